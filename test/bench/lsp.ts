/**
 * Language server over stdio, ours against yaml-language-server with the lab
 * JSON Schema, on the same generated labs, answering the same requests at the
 * same positions:
 * - completion latency p50 and p95 of keys (in a node), a template value and
 *   an interface after `node:` (ours asks the reference agent for these);
 * - the time from an edit to the first diagnostics published for the new
 *   version (ours: local checks; yaml-language-server: its schema validation,
 *   after its own debounce), and separately ours with the agent's findings,
 *   which wait for typing to pause;
 * - typing as a person does (a new link, a new key, each half-typed on the
 *   way) at 2,000 and 10,000 nodes: keystroke → local diagnostics p50 and p95,
 *   taking turns with the baseline; then ours alone at a person's pace (the
 *   link, the key and a digit), on the valid lab and with one `[` left open
 *   near the top: p95 against one frame (16 ms) at 10,000 nodes, the broken
 *   lab against the valid one, and how the new key's p95 grows from 2,000 to
 *   10,000 nodes (its exponent: 0 costs the same at any size, 1 grows with the
 *   lab); opening that broken lab; and a tab typed into indentation near the
 *   top, then the same keystrokes; and `image: "vios` typed near the top and
 *   left open, then the same keystrokes;
 * - RSS of both servers at the end, all labs still open: right after the last
 *   edit (the target), and again after both have been idle for a while.
 * The servers take turns request by request, so both see the same machine.
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CompletionItem,
  CompletionList,
  Position,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol';
import { withUnclosedBracket } from '../support/typing';
import { startAgentProcess } from './support/agent-process';
import { BIG_LAB_NODES, benchBigLab } from './support/big-lab';
import { writeGeneratedProject } from './support/labs';
import { LspServer, type Publication } from './support/lsp-server';
import { ROOT } from './support/paths';
import { ourServer } from './support/our-server';
import { MiB, progress, report, runSection, type Target } from './support/report';
import { percentile, median, since, sleep } from './support/stats';

/** Completion samples per kind and server, by lab size (yaml-language-server needs ~1 s a request on the largest). */
const SAMPLES_BY_SIZE: Record<number, number> = { 50: 40, 500: 25, 2000: 12 };
/** BENCH_LSP_SIZES (e.g. "2000") runs only some of the labs, to profile one. */
const WANTED = process.env.BENCH_LSP_SIZES?.split(',').map(Number) ?? [50, 500, 2000, BIG_LAB_NODES];
const SIZES = WANTED.filter((n) => n in SAMPLES_BY_SIZE);
/** Edits timed per server, by lab size. */
const EDITS: Record<number, number> = { 50: 10, 500: 8, 2000: 6 };
const WARMUP = 2;
/** At least this many completion samples of ours per kind and lab. */
const MIN_OURS_SAMPLES = 40;
const KINDS = ['keys', 'template', 'interface'] as const;
type Kind = (typeof KINDS)[number];

const BASELINE = 'yaml-language-server';
const YAML_LS = join(ROOT, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
const SCHEMA = process.env.BENCH_LAB_SCHEMA ?? join(ROOT, 'syntaxes', 'lab.schema.json');

interface Lab {
  size: number;
  text: string;
  uri: string;
  positions: Record<Kind, Position>;
  /** A one-character value both servers check, toggled by the edits. */
  editAt: Position;
  editValues: [string, string];
}

/** Counts line breaks in place: splitting a 2 MB text made tens of thousands of strings a keystroke (see typeInto). */
function positionAt(text: string, offset: number): Position {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  const lineStart = offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
  return { line, character: offset - lineStart };
}

/**
 * Right after `node:` in the middle link whose node still has a free
 * interface, so that the answer is not empty.
 */
function freeInterfacePosition(text: string): number {
  const ethernet = new Map<string, number>();
  for (const m of text.matchAll(/^ {2}([A-Za-z0-9_-]+):\n(?: {4}.*\n)*? {4}ethernet: (\d+)$/gm))
    ethernet.set(m[1], Number(m[2]));
  const linksStart = text.indexOf('\nlinks:\n');
  const used = new Map<string, number>();
  for (const m of text.slice(linksStart).matchAll(/([A-Za-z0-9_-]+):[^\s,\]]+/g))
    used.set(m[1], (used.get(m[1]) ?? 0) + 1);
  const links = [...text.slice(linksStart).matchAll(/^ {2}- endpoints: \[([A-Za-z0-9_-]+):/gm)];
  const free = links.filter((m) => (used.get(m[1]) ?? 0) < (ethernet.get(m[1]) ?? 0));
  const link = (free.length > 0 ? free : links)[(free.length > 0 ? free : links).length >> 1];
  return linksStart + link.index + link[0].length;
}

/** Where the requests go: a node in the middle of `nodes`, a link in the middle of `links`. */
function prepareLab(dir: string, size: number): Lab {
  const { path, text } = writeGeneratedProject(dir, size);

  const vios = [...text.matchAll(/^ {2}(r\d+):\n {4}template: vios\n/gm)];
  const node = vios[vios.length >> 1];
  const nodeStart = node.index;
  const templateLineEnd = nodeStart + node[0].length - 1;
  const ethernet = text.indexOf('    ethernet: 8\n', nodeStart);
  const interfaceAt = freeInterfacePosition(text);
  return {
    size,
    text,
    uri: pathToFileURL(path).href,
    positions: {
      // The start of a node's key line: the keys a node can have.
      keys: positionAt(text, ethernet + 4),
      // The end of `template: vios`: the template values.
      template: positionAt(text, templateLineEnd),
      // Right after `node:` in a link: that node's free interfaces.
      interface: positionAt(text, interfaceAt),
    },
    editAt: positionAt(text, ethernet + '    ethernet: '.length),
    editValues: ['7', '8'],
  };
}

async function complete(server: LspServer, uri: string, position: Position): Promise<{ ms: number; items: number }> {
  const start = performance.now();
  const result = await server.request<CompletionList | CompletionItem[] | null>('textDocument/completion', {
    textDocument: { uri },
    position,
    context: { triggerKind: 1 },
  });
  const ms = since(start);
  const items = result === null ? 0 : Array.isArray(result) ? result.length : result.items.length;
  return { ms, items };
}

/** The change replacing the one-character value at `lab.editAt`. */
function valueEdit(lab: Lab, value: string): TextDocumentContentChangeEvent {
  return {
    range: { start: lab.editAt, end: { line: lab.editAt.line, character: lab.editAt.character + 1 } },
    text: value,
  };
}

/**
 * Makes one change; resolves with the times from the edit to each of the first
 * `publications` publications of the new version (fewer if a later one does
 * not come within 5 s).
 */
async function timeEdit(
  server: LspServer,
  uri: string,
  change: TextDocumentContentChangeEvent,
  publications: number,
): Promise<number[]> {
  const after = server.publicationCount(uri);
  const start = performance.now();
  const version = await server.change(uri, [change]);
  const times: number[] = [];
  let from = after;
  for (let i = 0; i < publications; i++) {
    const ofVersion = (p: Publication) => p.version === undefined || p.version === version;
    let published: Publication;
    try {
      // A full reparse of the 10,000-node lab with broken text took 30 s on a loaded machine: a figure, not a failure.
      published = await server.waitForPublication(uri, from, ofVersion, i === 0 ? 120_000 : 5000);
    } catch (error) {
      if (i === 0) throw error;
      break;
    }
    times.push(published.at - start);
    from = (server.publications.get(uri) ?? []).indexOf(published) + 1;
  }
  return times;
}

/** Waits until a server has published for the newest version and stayed quiet for `quietMs`. */
async function settle(server: LspServer, uri: string, quietMs: number): Promise<void> {
  for (;;) {
    const count = server.publicationCount(uri);
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    if (server.publicationCount(uri) === count) return;
  }
}

/** How long both servers sit idle, all labs open, before their resident memory is read again. */
const IDLE_BEFORE_RSS_MS = 20_000;

/** The lab typed on like a person (the largest: where re-reading to the end of the file showed). */
const TYPING_SIZE = 2000;

/**
 * Rounds of our keystrokes on the valid and the broken lab for the unclosed-[
 * ratio: at 10,000 nodes one round is 11 keystrokes, whose p95 is the slowest.
 */
const BROKEN_ROUNDS = 3;
/** One frame at 60 Hz: the budget for keystroke → diagnostics p95 at 10,000 nodes (#29). */
const FRAME_MS = 16;
/** The largest growth exponent of keystroke → diagnostics p95 from 2,000 to 10,000 nodes (#29): nearly flat. */
const MAX_GROWTH_EXPONENT = 0.2;

/** Rounds of the tab-in-indentation keystrokes (before its line was set aside, #29, a full reparse each: seconds). */
const TAB_ROUNDS = 2;

/**
 * A tab typed at the start of the second line of the first node (a tab in
 * indentation: that line is set aside, docs/lab-format.md; a YAML parser alone
 * reads the rest of the lab differently), then the keystrokes with it in
 * place, each one character later.
 */
function withTabTyped(text: string, keys: Keystroke[]): Keystroke[] {
  const at = text.indexOf('\n', text.indexOf('\nnodes:') + 1 + '\nnodes:'.length) + 1;
  return [{ offset: at, text: '\t' }, ...keys.map((k) => ({ ...k, offset: k.offset + (k.offset >= at ? 1 : 0) }))];
}

/** Rounds of the unclosed-quote keystrokes (2,000 nodes, load average 17: quote p95 461 ms vs valid 307 ms, 1.50x; tab 1.37x). */
const QUOTE_ROUNDS = 2;

/**
 * `image: "vios` typed on a new line of the first node, character by character
 * and left unclosed (that line is set aside, docs/lab-format.md; a YAML parser
 * alone reads the rest of the lab as one string), then the keystrokes with it
 * in place.
 */
function withQuoteTyped(text: string, keys: Keystroke[]): Keystroke[] {
  const at = text.indexOf('\n', text.indexOf('\nnodes:') + 1 + '\nnodes:'.length);
  const line = '\n    image: "vios';
  return [...typed(at, line), ...keys.map((k) => ({ ...k, offset: k.offset + (k.offset > at ? line.length : 0) }))];
}

/** A new link typed in the middle of `links`, one keystroke at a time, passing through every half-typed state. */
function newLinkKeys(text: string): Keystroke[] {
  return typed(
    text.indexOf('\n', text.indexOf('  - endpoints: [', text.length >> 1)),
    '\n  - endpoints: [r1:Gi0/7, sw2:Gi3/3]',
  );
}

/** What ours types alone at a person's pace, on any lab (typingSection). */
const OURS_KEYS = 'a new link and a new key in a node typed character by character, then a digit in a value';

/** The keystrokes of OURS_KEYS. */
function pacedKeystrokes(text: string): Keystroke[] {
  return [...newLinkKeys(text), ...newKeyKeys(text), ...digitKeys(text)];
}

/** A digit typed into a node's value a sixteenth into `nodes` (`ethernet: 8` becomes `ethernet: 80`). */
function digitKeys(text: string): Keystroke[] {
  return typed(text.indexOf('\n', text.indexOf('    ethernet: ', text.indexOf('\nnodes:') + (text.length >> 4))), '0');
}

/** A new key typed in a node an eighth into `nodes`, one keystroke at a time. */
function newKeyKeys(text: string): Keystroke[] {
  return typed(
    text.indexOf('\n', text.indexOf('    ethernet: ', text.indexOf('\nnodes:') + (text.length >> 3))),
    '\n    cpu: 2',
  );
}

interface Keystroke {
  offset: number;
  text: string;
}

function typed(at: number, line: string): Keystroke[] {
  return [...line].map((text, i) => ({ offset: at + i, text }));
}

/**
 * Types the keystrokes into `uri`, taking turns between the servers, `paceMs`
 * apart at least; then undoes them (untimed). Every change is made before the
 * first keystroke: building the 2 MB text after each one and finding the
 * position in it filled the bench's own heap, and its collections (5-10 ms
 * major GCs) fell inside the keystrokes timed.
 */
async function typeInto(servers: LspServer[], uri: string, text: string, keys: Keystroke[], paceMs = 0) {
  const { typing, undo } = keystrokeChanges(text, keys);
  const times = servers.map((): number[] => []);
  for (const change of typing) {
    if (paceMs > 0) await sleep(paceMs);
    for (const [i, server] of servers.entries()) times[i].push((await timeEdit(server, uri, change, 1))[0]);
  }
  for (const server of servers) {
    const from = server.publicationCount(uri);
    const version = await server.change(uri, undo);
    await server.waitForPublication(uri, from, (p) => p.version === undefined || p.version >= version, 60_000);
    await settle(server, uri, 300);
  }
  return times;
}

/**
 * The didChange events of `keys` typed one by one into `text`, and of their
 * undo: as the editor sends an undo, one change per keystroke, last first, in
 * one notification. Replacing the whole text instead made the server reparse
 * it all (seconds for the broken 10,000-node lab) in the next figure.
 */
function keystrokeChanges(text: string, keys: Keystroke[]) {
  const typing: TextDocumentContentChangeEvent[] = [];
  let current = text;
  for (const key of keys) {
    const at = positionAt(current, key.offset);
    typing.push({ range: { start: at, end: at }, text: key.text });
    current = current.slice(0, key.offset) + key.text + current.slice(key.offset);
  }
  const undo: TextDocumentContentChangeEvent[] = [];
  for (const key of [...keys].reverse()) {
    const end = key.offset + key.text.length;
    undo.push({ range: { start: positionAt(current, key.offset), end: positionAt(current, end) }, text: '' });
    current = current.slice(0, key.offset) + current.slice(end);
  }
  if (current !== text) throw new Error('the keystrokes do not undo to the text they were typed into');
  return { typing, undo };
}

/**
 * A person typing about seven characters a second: the pause between keystrokes of ours alone. Taking
 * turns with the baseline instead leaves ours idle for seconds (yaml-language-server's keystroke at
 * 10,000 nodes) before each one: on this machine a process woken after a second or more idle read its
 * pipe up to 12 ms after the write (p95 9 ms; 0.7 ms at this pace), a figure of the machine, not of a
 * keystroke in the middle of typing, which the frame budget is about.
 */
const PACE_MS = 150;

/**
 * Keystrokes as a person types them, each waiting for its diagnostics, on the
 * valid lab against the baseline (`keys`) and, ours alone at a person's pace,
 * on the valid lab and on the lab with an unclosed bracket (`oursKeys`: see
 * pacedKeystrokes). The offsets are into the lab's text: a link later in
 * the file is typed before a node earlier in it, so that the node's offset
 * still holds. Resolves with ours on the valid lab at that pace.
 */
async function typingSection(
  ours: LspServer,
  theirs: LspServer,
  lab: Pick<Lab, 'size' | 'text' | 'uri'>,
  dir: string,
  keys: Keystroke[],
  oursKeys: Keystroke[],
): Promise<number[]> {
  progress(`lsp: typing ${keys.length} keystrokes into the ${lab.size}-node lab`);
  const [valid, baseline] = await typeInto([ours, theirs], lab.uri, lab.text, keys);
  const brokenText = withUnclosedBracket(lab.text);
  const brokenPath = join(dir, `broken-${lab.size}.lab.yaml`);
  writeFileSync(brokenPath, brokenText);
  const brokenUri = pathToFileURL(brokenPath).href;
  // Opened in both (the RSS figures compare servers holding the same labs); only ours is typed into.
  const oursOpen = await ours.openUntilDiagnostics(brokenUri, 'lab-yaml', brokenText, 60_000);
  const theirsOpen = await theirs.openUntilDiagnostics(brokenUri, 'yaml', brokenText, 60_000);
  report({
    name: `lsp open → first diagnostics (${lab.size} nodes, unclosed [)`,
    value: oursOpen,
    unit: 'ms',
    baseline: { name: BASELINE, value: theirsOpen },
    // A target on the largest lab, as for the valid open; at 2,000 nodes ours costs what a valid open costs (0.3 s).
    targets: lab.size === BIG_LAB_NODES ? [{ on: 'ratio', op: '<=', limit: 0.5 }] : undefined,
  });
  // The bracket shifts every offset after it by one character.
  const brokenKeys = oursKeys.map((k) => ({ ...k, offset: k.offset + 1 }));
  // Both sides of this ratio are ours: more rounds, taking turns, so that its p95 is not one keystroke's noise.
  const paced: number[][] = [];
  const broken: number[] = [];
  // The baseline reads the broken lab it just opened for seconds more: ours alone types once it has done.
  await untilIdle(theirs);
  const theirsCpu = theirs.cpuMs() ?? NaN;
  for (let round = 0; round < BROKEN_ROUNDS; round++) {
    paced.push((await typeInto([ours], lab.uri, lab.text, oursKeys, PACE_MS))[0]);
    broken.push(...(await typeInto([ours], brokenUri, brokenText, brokenKeys, PACE_MS))[0]);
  }
  const validAgain = paced.flat();
  const meanwhile = `${BASELINE} used ${((theirs.cpuMs() ?? NaN) - theirsCpu).toFixed(0)} ms of CPU meanwhile`;
  for (const p of [50, 95]) {
    report({
      name: `lsp typing → local diagnostics p${p} (${lab.size} nodes)`,
      value: percentile(valid, p),
      unit: 'ms',
      baseline: { name: BASELINE, value: percentile(baseline, p) },
      targets: [{ on: 'ratio', op: '<=', limit: 0.5 }],
      note:
        p === 95
          ? `${keys.length} keystrokes each, taking turns: ${keys.length > 20 ? 'a new link and ' : ''}a new key in a node, half-typed on the way; load average ${loadavg()[0].toFixed(1)}`
          : undefined,
    });
  }
  const what = `${oursKeys.length} keystrokes (${OURS_KEYS}) ${BROKEN_ROUNDS} times, ${PACE_MS} ms apart`;
  const frame: Target[] = lab.size === BIG_LAB_NODES ? [{ on: 'value', op: '<=', limit: FRAME_MS }] : [];
  report({
    name: `lsp typing at a person's pace → local diagnostics p95 (${lab.size} nodes)`,
    value: percentile(validAgain, 95),
    unit: 'ms',
    targets: frame,
    note: `${what}; ${meanwhile}; load average ${loadavg()[0].toFixed(1)}; p50 ${percentile(validAgain, 50).toFixed(1)} ms`,
  });
  // The same keystrokes with the bracket open: within one frame too, and within twice ours on the valid lab.
  report({
    name: `lsp typing at a person's pace → local diagnostics p95 (${lab.size} nodes, unclosed [)`,
    value: percentile(broken, 95),
    unit: 'ms',
    baseline: { name: 'ours on the valid lab', value: percentile(validAgain, 95) },
    targets: [{ on: 'ratio', op: '<=', limit: 2 }, ...frame],
    note: `${what}, taking turns with the valid lab, with one [ left open near the top; p50 ${percentile(broken, 50).toFixed(1)} ms against ${percentile(validAgain, 50).toFixed(1)} ms`,
  });
  const breakages = [
    {
      what: 'tab in indentation',
      keys: withTabTyped(lab.text, oursKeys),
      rounds: TAB_ROUNDS,
      how: 'a tab typed into the indentation of the first node, then the same keystrokes with it there',
    },
    {
      what: 'unclosed quote',
      keys: withQuoteTyped(lab.text, oursKeys),
      rounds: QUOTE_ROUNDS,
      how: 'image: "vios typed on a new line of the first node and left open, then the same keystrokes',
    },
  ];
  for (const breakage of breakages) await reportBreakage(ours, lab, validAgain, breakage);
  return validAgain;
}

/** Waits, a minute at most, until `server` uses under a twentieth of a CPU over half a second. */
async function untilIdle(server: LspServer): Promise<void> {
  const deadline = performance.now() + 60_000;
  let before = server.cpuMs();
  while (before !== undefined && performance.now() < deadline) {
    await sleep(500);
    const now = server.cpuMs();
    if (now === undefined || now - before < 25) return;
    before = now;
  }
}

/** Typing with one common breakage typed first, against ours on the valid lab: it must stay local (within 2×). */
async function reportBreakage(
  ours: LspServer,
  lab: Pick<Lab, 'size' | 'text' | 'uri'>,
  validAgain: number[],
  breakage: { what: string; keys: Keystroke[]; rounds: number; how: string },
): Promise<void> {
  const times: number[] = [];
  for (let round = 0; round < breakage.rounds; round++)
    times.push(...(await typeInto([ours], lab.uri, lab.text, breakage.keys, PACE_MS))[0]);
  for (const p of [50, 95]) {
    report({
      name: `lsp typing → local diagnostics p${p} (${lab.size} nodes, ${breakage.what})`,
      value: percentile(times, p),
      unit: 'ms',
      baseline: { name: 'ours on the valid lab', value: percentile(validAgain, p) },
      targets: p === 95 ? [{ on: 'ratio', op: '<=', limit: 2 }] : undefined,
      note: p === 95 ? `${breakage.how}; ${breakage.rounds} rounds` : undefined,
    });
  }
}

/**
 * How keystroke → diagnostics p95 grows with the lab, as the exponent k of
 * p95 ∝ nodes^k between two sizes, from the same keystrokes at both: every
 * one ours types at a person's pace on the valid lab (OURS_KEYS,
 * BROKEN_ROUNDS times). The new key's 33 alone made the p95 their second
 * slowest, one keystroke's noise: 0.28 and 0.35 in two runs where the p95 of
 * all 147 grew by 0.09 and 0.17.
 */
function reportGrowth(small: { size: number; times: number[] }, large: { size: number; times: number[] }): void {
  const [a, b] = [percentile(small.times, 95), percentile(large.times, 95)];
  const [a50, b50] = [percentile(small.times, 50), percentile(large.times, 50)];
  report({
    name: `lsp typing → local diagnostics p95 growth exponent (${small.size} → ${large.size} nodes)`,
    value: Math.log(b / a) / Math.log(large.size / small.size),
    unit: '',
    targets: [{ on: 'value', op: '<=', limit: MAX_GROWTH_EXPONENT }],
    note: `p95 ${a.toFixed(1)} ms → ${b.toFixed(1)} ms (p50 ${a50.toFixed(1)} → ${b50.toFixed(1)} ms) for the same ${large.times.length} keystrokes (${OURS_KEYS}, ${PACE_MS} ms apart); 0 is the same cost at any size, 1 grows with the lab`,
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lab-bench-lsp-'));
  const agent = await startAgentProcess();
  const client = await agent.loggedIn();
  const token = client.token;
  await client.close();
  // Without the schema the baseline would do far less work than it does for a user: no figures rather than flattering ones.
  if (!existsSync(SCHEMA))
    throw new Error(`no JSON Schema at ${SCHEMA}: yaml-language-server needs it to be a fair baseline`);
  const yamlSettings = {
    yaml: {
      schemas: { [pathToFileURL(SCHEMA).href]: ['*.lab.yaml'] },
      validate: true,
      completion: true,
      hover: true,
      format: { enable: false },
      schemaStore: { enable: false },
    },
    http: { proxy: '', proxyStrictSSL: false },
    editor: { tabSize: 2, detectIndentation: false },
  };

  const ours = await LspServer.start({
    ...ourServer(),
    initializationOptions: { session: { baseUrl: agent.url, token, pin: agent.fingerprint } },
  });
  const theirs = await LspServer.start({
    name: BASELINE,
    script: YAML_LS,
    settings: yamlSettings,
    rootUri: pathToFileURL(dir).href,
  });
  await theirs.notify('workspace/didChangeConfiguration', { settings: yamlSettings });
  report({
    name: 'lsp server start → initialize answered',
    value: ours.startupMs,
    unit: 'ms',
    baseline: { name: BASELINE, value: theirs.startupMs },
  });

  // Ours typing at a person's pace on the 2,000-node lab, for the growth to 10,000.
  let pacedAtTypingSize: number[] | undefined;
  try {
    for (const size of SIZES) {
      const lab = prepareLab(dir, size);
      progress(`lsp: ${size} nodes (${lab.text.split('\n').length} lines, ${Math.round(lab.text.length / 1024)} KiB)`);
      await ours.open(lab.uri, 'lab-yaml', lab.text);
      await theirs.open(lab.uri, 'yaml', lab.text);
      await Promise.all([
        ours.waitForPublication(lab.uri, 0, () => true),
        theirs.waitForPublication(lab.uri, 0, () => true),
      ]);
      await Promise.all([settle(ours, lab.uri, 500), settle(theirs, lab.uri, 500)]);

      for (const kind of KINDS) {
        const position = lab.positions[kind];
        const times: Record<'ours' | 'theirs', number[]> = { ours: [], theirs: [] };
        const items = { ours: 0, theirs: 0 };
        // Ours is cheap to ask: a few requests per request of the baseline make its percentiles steadier.
        const oursPerTurn = Math.ceil(MIN_OURS_SAMPLES / SAMPLES_BY_SIZE[size]);
        for (let i = 0; i < WARMUP + SAMPLES_BY_SIZE[size]; i++) {
          for (let k = 0; k < oursPerTurn; k++) {
            const a = await complete(ours, lab.uri, position);
            items.ours = a.items;
            if (i >= WARMUP) times.ours.push(a.ms);
          }
          const b = await complete(theirs, lab.uri, position);
          items.theirs = b.items;
          if (i >= WARMUP) times.theirs.push(b.ms);
        }
        for (const p of [50, 95]) {
          // yaml-language-server offers no interfaces (the schema cannot know them): its time there is no
          // like-for-like baseline, so the interface target is the absolute one of the issue.
          const targets: Target[] =
            kind !== 'interface'
              ? [{ on: 'ratio', op: '<=', limit: 0.5 }]
              : p === 95
                ? [{ on: 'value', op: '<=', limit: 20 }]
                : [];
          report({
            name: `lsp completion p${p} (${size} nodes, ${kind})`,
            value: percentile(times.ours, p),
            unit: 'ms',
            baseline: { name: BASELINE, value: percentile(times.theirs, p) },
            targets,
            note:
              p === 95
                ? `${times.ours.length} requests vs ${times.theirs.length}, taking turns; ${items.ours} items vs ${items.theirs}`
                : undefined,
          });
        }
      }

      // Edit → diagnostics, one server at a time (each edit waits for the server to be quiet again).
      const local: number[] = [];
      const withAgent: number[] = [];
      const baseline: number[] = [];
      for (let i = 0; i < EDITS[size]; i++) {
        const value = lab.editValues[i % 2];
        const [localMs, agentMs] = await timeEdit(ours, lab.uri, valueEdit(lab, value), 2);
        local.push(localMs);
        if (agentMs !== undefined) withAgent.push(agentMs);
        baseline.push((await timeEdit(theirs, lab.uri, valueEdit(lab, value), 1))[0]);
        await Promise.all([settle(ours, lab.uri, 300), settle(theirs, lab.uri, 300)]);
      }
      report({
        name: `lsp edit → diagnostics median (${size} nodes, local)`,
        value: median(local),
        unit: 'ms',
        baseline: { name: BASELINE, value: median(baseline) },
        targets: [{ on: 'ratio', op: '<=', limit: 0.5 }],
        note: `${local.length} edits; yaml-language-server's time includes its 200 ms debounce`,
      });
      if (withAgent.length > 0) {
        report({
          name: `lsp edit → agent diagnostics median (${size} nodes)`,
          value: median(withAgent),
          unit: 'ms',
          note: 'includes the validate debounce (300 ms after the last edit) and the agent call',
        });
      }
      if (size === TYPING_SIZE) {
        const keys = [...newLinkKeys(lab.text), ...newKeyKeys(lab.text)];
        pacedAtTypingSize = await typingSection(ours, theirs, lab, dir, keys, pacedKeystrokes(lab.text));
      }
    }

    if (WANTED.includes(BIG_LAB_NODES)) {
      const big = await benchBigLab(ours, theirs, BASELINE, dir);
      // The baseline takes seconds a keystroke at this size: the new key alone.
      const lab = { size: BIG_LAB_NODES, ...big };
      const paced = await typingSection(ours, theirs, lab, dir, newKeyKeys(big.text), pacedKeystrokes(big.text));
      if (pacedAtTypingSize)
        reportGrowth({ size: TYPING_SIZE, times: pacedAtTypingSize }, { size: BIG_LAB_NODES, times: paced });
    }

    report({
      name: 'lsp RSS at end (all labs open)',
      value: (ours.rss() ?? NaN) / MiB,
      unit: 'MiB',
      baseline: { name: BASELINE, value: (theirs.rss() ?? NaN) / MiB },
      targets: [{ on: 'ratio', op: '<=', limit: 0.5 }],
      note: 'right after the last edit',
    });
    // Both servers can shrink once idle for a while (V8 collects and returns memory): the figure users see at rest.
    await sleep(IDLE_BEFORE_RSS_MS);
    report({
      name: 'lsp RSS at rest (all labs open)',
      value: (ours.rss() ?? NaN) / MiB,
      unit: 'MiB',
      baseline: { name: BASELINE, value: (theirs.rss() ?? NaN) / MiB },
      note: `both servers idle for ${IDLE_BEFORE_RSS_MS / 1000} s after the last edit`,
    });
  } finally {
    await Promise.all([ours.stop(), theirs.stop()]);
    await agent.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runSection(main);
