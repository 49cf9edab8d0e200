/**
 * The language server under a long fuzz of typing over stdio: bursts of
 * random edits as a person makes them (new keys, new links, half-typed lines,
 * brackets left open) on the 2,000-node lab (BENCH_PRESSURE_NODES), first
 * valid, then with an unclosed bracket near the top, each lab closed after its
 * run. Figures: edits per second sustained (the edits over the time until the
 * server has published for the last one), p95 from the last edit of a burst
 * to diagnostics for it (or a newer version), peak RSS sampled through each
 * run (from what the server held before it), how long the server took to
 * catch up after the last edit (no backlog: about one reparse), and the
 * server's CPU per edit: edits per second also depends on the cores the bench
 * process shares with the server, and on how many edits each update coalesces.
 */
import { generateLab } from '../support/generate-lab';
import { TypingSimulator, withUnclosedBracket } from '../support/typing';
import { LspServer } from './support/lsp-server';
import { ourServer } from './support/our-server';
import { MiB, progress, report, runSection } from './support/report';
import { percentile, since, sleep } from './support/stats';

const NODES = Number(process.env.BENCH_PRESSURE_NODES ?? 2000);
/** Edits per run; BENCH_PRESSURE_EDITS shortens it (e.g. against a slow build). */
const EDITS = Number(process.env.BENCH_PRESSURE_EDITS ?? 6000);
const MAX_BURST = 40;
/** A run that has not caught up this long after its last edit counts as a backlog. */
const CATCH_UP_LIMIT_MS = 60_000;

interface Run {
  edits: number;
  seconds: number;
  latencies: number[];
  catchUpMs: number;
  serverCpuMs: number;
}

async function fuzz(server: LspServer, uri: string, text: string, seed: number): Promise<Run> {
  const typing = new TypingSimulator(text, seed);
  await server.open(uri, 'lab-yaml', text);
  await server.waitForPublication(uri, 0, () => true, 120_000);
  const latencies: number[] = [];
  const pending: { version: number; at: number }[] = [];
  let newest = 1;
  const seen = (): void => {
    const list = server.publications.get(uri) ?? [];
    const published = list.length > 0 ? (list[list.length - 1].version ?? 0) : 0;
    while (pending.length > 0 && pending[0].version <= published) {
      const burst = pending.shift();
      if (burst) latencies.push(list[list.length - 1].at - burst.at);
    }
  };
  const cpuAtStart = server.cpuMs() ?? NaN;
  const started = performance.now();
  let sent = 0;
  let burst = 0;
  while (sent < EDITS) {
    const size = 1 + ((burst++ * 7919) % MAX_BURST);
    const versions: Promise<number>[] = [];
    for (let i = 0; i < size && sent < EDITS; i++, sent++) versions.push(server.change(uri, [typing.next()]));
    newest = Math.max(...(await Promise.all(versions)));
    pending.push({ version: newest, at: performance.now() });
    // A person pauses between bursts now and then; the server must keep up either way.
    await sleep(burst % 5 === 0 ? 5 : 0);
    seen();
  }
  const lastEdit = performance.now();
  let catchUpMs = Infinity;
  try {
    await server.waitForPublication(uri, 0, (p) => (p.version ?? 0) >= newest, CATCH_UP_LIMIT_MS);
    catchUpMs = since(lastEdit);
  } catch {
    // A backlog: the figures below show it (edits per second counts the limit as the time taken).
  }
  seen();
  return {
    serverCpuMs: (server.cpuMs() ?? NaN) - cpuAtStart,
    edits: sent,
    seconds: (lastEdit - started + Math.min(catchUpMs, CATCH_UP_LIMIT_MS)) / 1000,
    latencies,
    catchUpMs,
  };
}

async function main(): Promise<void> {
  const server = await LspServer.start({
    ...ourServer(),
    initializationOptions: { session: null },
  });
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, server.rss() ?? 0);
  }, 100);
  const reportPeak = (name: string): void => {
    peakRss = Math.max(peakRss, server.rss() ?? 0);
    report({
      name: `lsp fuzz peak RSS (${NODES} nodes, ${name})`,
      value: peakRss / MiB,
      unit: 'MiB',
      targets: [{ on: 'value', op: '<=', limit: 300 }],
      note: 'from opening the lab to diagnostics for the last edit',
    });
  };
  try {
    const lab = generateLab(NODES);
    for (const [name, text, seed] of [
      ['valid', lab, 1],
      ['unclosed bracket at the top', withUnclosedBracket(lab), 2],
    ] as const) {
      progress(`lsp-pressure: ${EDITS} edits on the ${NODES}-node lab (${name})`);
      const uri = `untitled:pressure-${seed}.lab.yaml`;
      // Each run is one lab being edited: the one before is closed, and the server holds what it holds then.
      peakRss = server.rss() ?? 0;
      const run = await fuzz(server, uri, text, seed);
      report({
        name: `lsp fuzz edits per second (${NODES} nodes, ${name})`,
        value: run.edits / run.seconds,
        unit: 'edits/s',
        targets: [{ on: 'value', op: '>=', limit: 1000 }],
        note: `${run.edits} edits in bursts of 1–${MAX_BURST}, until diagnostics for the last one`,
      });
      report({
        name: `lsp fuzz burst → diagnostics p95 (${NODES} nodes, ${name})`,
        value: percentile(run.latencies, 95),
        unit: 'ms',
        note: `${run.latencies.length} bursts; ${Number.isFinite(run.catchUpMs) ? `caught up ${Math.round(run.catchUpMs)} ms after the last edit` : `still behind ${CATCH_UP_LIMIT_MS / 1000} s after the last edit`}`,
      });
      report({
        name: `lsp fuzz server CPU per edit (${NODES} nodes, ${name})`,
        value: (run.serverCpuMs * 1000) / run.edits,
        unit: 'µs',
        note: `${(run.serverCpuMs / 1000).toFixed(1)} s of CPU (GC threads included) from the first edit to diagnostics for the last`,
      });
      reportPeak(name);
      await server.notify('textDocument/didClose', { textDocument: { uri } });
      // The server collects shortly after a large document closes (server/release-memory.ts).
      await sleep(1000);
    }
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
}

runSection(main);
