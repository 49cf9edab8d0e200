/**
 * The server under a burst of edits, over stdio as an editor drives it: edits
 * queued behind each other are applied together (one reparse and one publish
 * for a burst, not one per edit), the model after thousands of random edits
 * (broken documents included) equals a fresh parse of the text, and a badly
 * broken document publishes a bounded number of diagnostics.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic, DocumentSymbol, Range } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { generateLab } from '../support/generate-lab';
import { LspClient } from '../support/lsp';
import { TypingSimulator, withUnclosedBracket } from '../support/typing';

const MAX_DIAGNOSTICS = 1000;

let client: LspClient;

before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
});
after(async () => {
  await client.stop();
});

/** Everything a client sees of a document's model. */
async function observe(uri: string): Promise<{ symbols: DocumentSymbol[]; diagnostics: Diagnostic[] }> {
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  const diagnostics = await client.waitForDiagnostics(uri, () => true, {
    version: (client.diagnostics.get(uri) ?? []).at(-1)?.version,
  });
  return { symbols, diagnostics };
}

for (const [name, broken] of [
  ['valid', false],
  ['with an unclosed bracket', true],
] as const) {
  test(`bursts of random edits (${name}): coalesced, and the model equals a fresh parse`, async () => {
    const start = generateLab(60, { seed: 4 });
    const typing = new TypingSimulator(broken ? withUnclosedBracket(start) : start, broken ? 11 : 7);
    const uri = `untitled:pressure-${broken ? 'broken' : 'valid'}.lab.yaml`;
    await client.open(uri, typing.text);
    await client.waitForDiagnostics(uri, () => true);
    const BURSTS = 30;
    const PER_BURST = 20;
    for (let burst = 0; burst < BURSTS; burst++) {
      // The whole burst is written before the server can answer: it arrives as one backlog.
      const sent: Promise<number>[] = [];
      for (let i = 0; i < PER_BURST; i++) sent.push(client.change(uri, [typing.next()]));
      const version = Math.max(...(await Promise.all(sent)));
      await client.waitForDiagnostics(uri, () => true, { version });
    }
    const publications = client.publicationCount(uri);
    assert.ok(
      publications <= BURSTS * 3,
      `${publications} publications for ${BURSTS * PER_BURST} edits in ${BURSTS} bursts: queued edits are not coalesced`,
    );

    const fresh = `untitled:pressure-fresh-${broken ? 'broken' : 'valid'}.lab.yaml`;
    await client.open(fresh, typing.text);
    await client.waitForDiagnostics(fresh, () => true);
    const [edited, expected] = [await observe(uri), await observe(fresh)];
    const syntax = (seen: typeof edited) => seen.diagnostics.some((d) => d.code === 'yaml-syntax');
    if (syntax(edited) || syntax(expected)) {
      // Read alone, broken text may spread less than in a fresh parse (see incremental.ts); it is reported either way.
      assert.ok(syntax(edited) && syntax(expected), 'both report the syntax errors');
    } else {
      assert.deepEqual(edited, expected, 'the edited model differs from a fresh parse');
    }
    assert.deepEqual(drifts(), [], 'an incremental update drifted from the text');
    assert.equal(client.exitCode, null);
  });
}

/** What the server logged of models that drifted from the text (it then reparses: right, but a bug). */
function drifts(): string[] {
  return client.logs.filter((line) => /drifted|failed; reparsing/.test(line));
}

test('typing, deleting backwards and edits in more places than the text keeps apart: the model follows the text', async () => {
  const start = generateLab(300, { seed: 5 });
  const uri = 'untitled:pressure-places.lab.yaml';
  await client.open(uri, start);
  await client.waitForDiagnostics(uri, () => true);
  const mirror = TextDocument.create('mirror:', 'lab-yaml', 1, start);
  const send = async (changes: { range: Range; text: string }[]) => {
    TextDocument.update(mirror, changes, mirror.version + 1);
    return client.change(uri, changes);
  };
  const lines = start.split('\n');
  const keys = lines.flatMap((line, i) => (/^ {4}ethernet: \d+$/.test(line) ? [i] : []));
  // 24 places far apart, each edited in its own notification: more stretches than the text keeps apart.
  for (let k = 0; k < 24; k++) {
    const line = keys[Math.floor((k * (keys.length - 1)) / 23)];
    const at = (character: number) => ({ line, character });
    // One notification as the editor sends typing then backspaces: each change in the text the one before left.
    const version = await send([
      { range: { start: at(4), end: at(4) }, text: 'c' },
      { range: { start: at(5), end: at(5) }, text: 'p' },
      { range: { start: at(6), end: at(6) }, text: 'x' },
      { range: { start: at(6), end: at(7) }, text: '' },
      { range: { start: at(5), end: at(6) }, text: '' },
      { range: { start: at(4), end: at(5) }, text: 'e' },
    ]);
    await client.waitForDiagnostics(uri, () => true, { version });
  }
  const edited = await observe(uri);
  const fresh = 'untitled:pressure-places-fresh.lab.yaml';
  await client.open(fresh, mirror.getText());
  await client.waitForDiagnostics(fresh, () => true);
  assert.deepEqual(edited, await observe(fresh));
  assert.deepEqual(drifts(), [], 'an incremental update drifted from the text');
});

test('a burst that jumps between places far apart is applied once and reads as the final text does', async () => {
  const start = generateLab(400, { seed: 9 });
  const uri = 'untitled:pressure-far-apart.lab.yaml';
  await client.open(uri, start);
  await client.waitForDiagnostics(uri, () => true);
  // Node names far apart from each other; each round types a letter before each of them (links to them break).
  const lines = start.split('\n');
  const names = lines.flatMap((line, i) => (/^ {2}[a-z]+\d+:$/.test(line) ? [i] : []));
  const places = [0, 1, 2, 3, 4, 5].map((k) => names[Math.floor((k * (names.length - 1)) / 5)]);
  const mirror = TextDocument.create('mirror:', 'lab-yaml', 1, start);
  const published = client.publicationCount(uri);
  const sent: Promise<number>[] = [];
  for (let round = 0; round < 4; round++) {
    for (const line of places) {
      const change = { range: { start: { line, character: 2 }, end: { line, character: 2 } }, text: 'z' };
      TextDocument.update(mirror, [change], mirror.version + 1);
      sent.push(client.change(uri, [change]));
    }
  }
  const version = Math.max(...(await Promise.all(sent)));
  const edited = await client.waitForDiagnostics(uri, () => true, { version });
  assert.ok(
    client.publicationCount(uri) - published <= 2,
    `${client.publicationCount(uri) - published} publications for one burst: far-apart edits were applied one by one`,
  );
  const fresh = 'untitled:pressure-far-apart-fresh.lab.yaml';
  await client.open(fresh, mirror.getText());
  const expected = await client.waitForDiagnostics(fresh, () => true);
  assert.ok(expected.some((d) => d.code === 'unknown-node'));
  assert.deepEqual(edited, expected);
  assert.deepEqual(drifts(), [], 'an incremental update drifted from the text');
});

test('a request right after an edit sees that edit', async () => {
  const uri = 'untitled:pressure-request.lab.yaml';
  await client.open(uri, 'nodes:\n  r1:\n    template: vios\n');
  await client.change(uri, [
    { range: { start: { line: 1, character: 4 }, end: { line: 1, character: 4 } }, text: 'x' },
  ]);
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  assert.deepEqual(
    symbols[0].children?.map((s) => s.name),
    ['r1x'],
  );
});

test(`a document with thousands of problems publishes at most ${MAX_DIAGNOSTICS}, the last one saying how many more`, async () => {
  const uri = 'untitled:pressure-many-problems.lab.yaml';
  const nodes = Array.from({ length: 3000 }, (_, i) => `  r${i}:\n    templat: vios\n`).join('');
  await client.open(uri, `nodes:\n${nodes}`);
  const diagnostics = await client.waitForDiagnostics(uri, () => true);
  assert.equal(diagnostics.length, MAX_DIAGNOSTICS);
  const summary = diagnostics[diagnostics.length - 1];
  const message = typeof summary.message === 'string' ? summary.message : summary.message.value;
  assert.match(message, /^\d+ more problems in this file are not listed/);
  assert.deepEqual(summary.range.start, { line: 0, character: 0 });
});
