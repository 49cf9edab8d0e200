/**
 * Packet summaries beside the bytes (decisions §14) on the Linux emulator,
 * against the real agent over real HTTPS with the OSPF sample running: the
 * agent's tshark summarizes exactly the packets of the pcapng stream, numbered
 * as tshark numbers the saved file; a summaries reader that stops reading ends
 * its own stream (`lagging`) without holding the capture back, and its tshark
 * goes; tickets are refused as the pcapng stream's are; kill -9 of the agent
 * takes its tshark with it and the next start removes the cgroup.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentClient } from '../../common/api/client';
import {
  CAPTURE_END_TRAILER,
  type CapturePayload,
  type PacketSummary,
  type SummariesEndLine,
} from '../../common/api/contract';
import { processAlive } from '../../agent/emulator/linux/kernel';
import { failsWith, type TestAgent } from '../support/agent';
import { eventually, ospfSample } from './support';
import { killMidCapture } from './killed-agent';
import {
  agentCgroups,
  cgroupRunning,
  cgroupsGone,
  H1_REACHES_H2,
  openPaused,
  processesGone,
  savePcapng,
  startCaptureLab,
  stopCaptureLab,
  tsharkFields,
} from './capture-lab';

let agent: TestAgent;
let client: AgentClient;
let prefix = '';
const sample = ospfSample();
let state: unknown;
const payload = (request: Omit<CapturePayload, 'yaml'>): CapturePayload => ({ ...sample, state, ...request });
const work = mkdtempSync(join(tmpdir(), 'lab-agent-summaries-'));

/** This agent's cgroups of one kind (`cap`: dumpcap, `sum`: tshark), with their member processes. */
const cgroupsOf = (kind: 'cap' | 'sum') => agentCgroups(prefix, kind);

/** The pid of every live tshark on the machine (the test's own run to their end). */
function tsharks(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'tshark' && processAlive(pid);
      } catch {
        return false;
      }
    });
}

/** tshark's fields of every packet of a pcapng stream, as the test reads it from a file. */
const tsharkFile = (pcapng: Buffer, fields: string[]) => tsharkFields(savePcapng(work, pcapng), fields);

/** Reads a whole stream of the typed client's; `trailer` is the pcapng stream's Capture-End. */
async function readAll(reply: { body: NodeJS.ReadableStream; trailers: Record<string, string | undefined> }) {
  const chunks: Buffer[] = [];
  for await (const chunk of reply.body as AsyncIterable<Buffer>) chunks.push(chunk);
  return { body: Buffer.concat(chunks), trailer: reply.trailers[CAPTURE_END_TRAILER] };
}

/** The summaries stream's lines: the packets, and the last line. */
function linesOf(body: Buffer): { packets: PacketSummary[]; last: SummariesEndLine } {
  const lines = body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PacketSummary);
  const last = lines.pop() as unknown as SummariesEndLine;
  assert.ok(last && 'end' in last, `the last line says why the summaries ended: ${JSON.stringify(last)}`);
  assert.ok(
    lines.every((l) => 'no' in l),
    'every other line is a packet',
  );
  return { packets: lines, last };
}

function ping(from: string, to: string, command = `ping -c 5 -i 0.2 -W 1 ${to}`) {
  return client.execConsole({ ...sample, state, node: from, command, timeout_ms: 60_000 });
}

before(async () => {
  ({ agent, client, prefix, state } = await startCaptureLab(sample, ['dumpcap', 'tshark'], H1_REACHES_H2));
});

after(() => stopCaptureLab(agent, prefix, work));

test('the Linux emulator with tshark offers summaries beside the bytes', async () => {
  const caps = await client.getCapabilities();
  assert.equal(caps.features?.capture, true);
  assert.equal(caps.features?.capture_summaries, true);
});

test("r1:eth1 while h1 pings h2: the agent's summaries are the packets of the pcapng, as tshark reads its file", async () => {
  const started = await client.startCapture(payload({ targets: ['r1:eth1'], duration_ms: 4000, summaries: true }));
  assert.match(started.summaries_ticket ?? '', /^[0-9a-f]{64}$/);
  assert.notEqual(started.summaries_ticket, started.ticket);
  assert.equal(started.summaries, `/api/v1/capture/summaries/${started.summaries_ticket}`);
  // The summaries stream is opened first: it waits for the capture, and still misses no packet.
  const summaries = await client.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' });
  assert.equal(summaries.status, 200);
  const [pcapng, summarized] = await Promise.all([
    client.streamCapture({ ticket: started.ticket ?? '' }).then(readAll),
    readAll(summaries),
    ping('h1', '10.0.2.10'),
  ]);
  assert.equal(pcapng.trailer, 'duration');
  const { packets, last } = linesOf(summarized.body);
  assert.deepEqual(last, { end: 'complete', packets: packets.length });
  const fields = ['frame.number', 'frame.interface_name', '_ws.col.Source', '_ws.col.Destination', '_ws.col.Protocol'];
  const fromFile = tsharkFile(pcapng.body, fields);
  assert.ok(fromFile.length > 10, `${fromFile.length} packets in the file`);
  assert.deepEqual(
    packets.map((p) => [String(p.no), p.interface, p.source, p.destination, p.protocol]),
    fromFile,
    "each summary is the file's packet of that number: interface, addresses, protocol",
  );
  assert.ok(
    packets.some((p) => p.protocol === 'ICMP' && p.source === '10.0.1.10' && /Echo \(ping\) request/.test(p.info)),
    'echo requests h1 → h2',
  );
  assert.ok(
    packets.some((p) => p.protocol === 'OSPF' && /Hello Packet/.test(p.info)),
    'OSPF hellos',
  );
  assert.ok(
    packets.every((p) => /^\d{10}\.\d{9}$/.test(p.time)),
    'times are epoch seconds with nanoseconds',
  );
  await cgroupsGone(prefix, 'sum', 'tshark and its cgroup to go once the summaries are complete');
});

test('summaries of a reader that stops reading end with `lagging`; the pcapng stream is not slowed and tshark goes', async () => {
  const started = await client.startCapture(payload({ targets: ['r1:eth0'], duration_ms: 120_000, summaries: true }));
  const paused = await openPaused(agent, started.summaries ?? '', client.token);
  assert.equal(paused.statusCode, 200);
  assert.equal(paused.headers['content-type'], 'application/x-ndjson');
  const capture = await client.streamCapture({ ticket: started.ticket ?? '' });
  const chunks: Buffer[] = [];
  capture.body.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((done) => capture.body.on('end', done));
  await cgroupRunning(prefix, 'sum', 'tshark');
  // About 60,000 packets and 60 MB cross h1-r1: far more summary lines than the sockets hold for a paused reader.
  // dumpcap drops packets it cannot take in time (a busy machine, a slow start), so the flood is sent again, four
  // times at most, until the summaries have lagged.
  for (let round = 0; round < 4 && cgroupsOf('sum').length > 0; round++) {
    const flood = await ping('h1', '10.0.1.1', 'ping -f -c 30000 -s 1000 -q 10.0.1.1');
    assert.match(flood.output ?? '', /30000 packets transmitted/);
    await cgroupsGone(prefix, 'sum', 'the lagging tshark and its cgroup to go', 5_000).catch(() => undefined);
  }
  await cgroupsGone(prefix, 'sum', 'the lagging tshark and its cgroup to go', 20_000);
  assert.equal(cgroupsOf('cap').length, 1, 'the capture still runs');
  // Had the capture waited for the summaries, it would stall with them; it goes on: these echoes reach its stream.
  await ping('h1', '10.0.1.1', 'ping -c 3 -i 0.2 -s 777 10.0.1.1');
  // In the stream before r1 stops: stopping ends the capture, and dumpcap's last writes with it.
  // (A stream cut mid-block is a file tshark calls cut short: counted as none yet.)
  const echoes = (): number => {
    try {
      return tsharkFile(Buffer.concat(chunks), ['frame.number', 'frame.len']).filter(([, len]) => len === '819').length;
    } catch {
      return 0;
    }
  };
  await eventually(
    () => Promise.resolve(echoes()),
    (n) => n >= 6,
    'the 3 echoes of 777 bytes and replies',
    10_000,
  );
  await client.execProject({ ...sample, state, action: 'stop', node: 'r1', stopmode: 1 });
  await ended;
  assert.equal(capture.trailers[CAPTURE_END_TRAILER], 'node_stopped');
  await client.execProject({ ...sample, state, action: 'start', node: 'r1' });
  const pcapng = Buffer.concat(chunks);
  const frames = tsharkFile(pcapng, ['frame.number', 'frame.len']);
  assert.equal(frames.filter(([, len]) => len === '819').length, 6, 'the 3 echoes of 777 bytes after, and replies');
  const rest: Buffer[] = [];
  paused.on('data', (c: Buffer) => rest.push(c));
  const summariesEnded = new Promise<void>((done) => paused.on('end', done));
  paused.resume();
  await summariesEnded;
  const { packets, last } = linesOf(Buffer.concat(rest));
  assert.equal(last.end, 'lagging');
  assert.match(last.message ?? '', /4 MiB of packets behind/);
  assert.equal(last.packets, packets.length, 'the lines sent before it gave up are counted');
  assert.ok(
    pcapng.length > 4 * 1024 * 1024 && packets.length < frames.length,
    `the stream carried ${pcapng.length} bytes, ${frames.length} packets; the summaries ${packets.length}`,
  );
  assert.deepEqual(
    packets.map((p) => p.no),
    packets.map((_, i) => i + 1),
    'the summaries sent are the first packets, in order',
  );
  await cgroupsGone(prefix, 'cap', 'the capture process to go');
});

test('closing the summaries stream stops tshark at once, and the capture goes on', async () => {
  const started = await client.startCapture(payload({ targets: ['r2:eth0'], duration_ms: 120_000, summaries: true }));
  const summaries = await client.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' });
  const capture = await client.streamCapture({ ticket: started.ticket ?? '' });
  capture.body.resume();
  const running = await cgroupRunning(prefix, 'sum', 'the shell, cat and tshark', (pids) => pids.length === 3);
  summaries.body.destroy();
  await processesGone(running.pids, 'tshark to stop');
  await cgroupsGone(prefix, 'sum', 'its cgroup to go');
  assert.equal(cgroupsOf('cap').length, 1, 'the capture still runs');
  capture.body.destroy();
  await cgroupsGone(prefix, 'cap', 'the capture to stop');
});

test('summaries tickets: unknown, another session, used twice; the capture never opened; summaries without asking', async () => {
  await failsWith(client.streamCaptureSummaries({ ticket: 'a'.repeat(64) }), 'browser_token_invalid');
  await failsWith(client.streamCaptureSummaries({ ticket: 'not-a-ticket' }), 'browser_token_invalid');
  const started = await client.startCapture(payload({ targets: ['r1:eth0'], duration_ms: 1000, summaries: true }));
  // A capture ticket is not a summaries ticket, nor the other way round.
  await failsWith(client.streamCaptureSummaries({ ticket: started.ticket ?? '' }), 'browser_token_invalid');
  const other = await agent.loggedIn();
  await failsWith(other.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' }), 'browser_token_invalid');
  await other.close();
  const once = await client.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' });
  const again = failsWith(
    client.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' }),
    'browser_token_invalid',
  );
  assert.match((await again).message, /summaries ticket is unknown, already used/);
  await client.streamCapture({ ticket: started.ticket ?? '' }).then(readAll);
  assert.equal(linesOf((await readAll(once)).body).last.end, 'complete');
  // Without `summaries`, there is no summaries ticket.
  const plain = await client.startCapture(payload({ targets: ['r1:eth0'], duration_ms: 1000 }));
  assert.equal(plain.summaries_ticket, undefined);
  assert.equal(plain.summaries, undefined);
  await client.streamCapture({ ticket: plain.ticket ?? '' }).then(readAll);
});

test('a capture whose stream fails to start ends its summaries with the reason', async () => {
  const started = await client.startCapture(payload({ targets: ['r3:eth0'], summaries: true }));
  const summaries = await client.streamCaptureSummaries({ ticket: started.summaries_ticket ?? '' });
  await client.execProject({ ...sample, state, action: 'stop', node: 'r3', stopmode: 1 });
  try {
    await failsWith(client.streamCapture({ ticket: started.ticket ?? '' }), 'node_not_running');
    const { packets, last } = linesOf((await readAll(summaries)).body);
    assert.deepEqual(packets, []);
    assert.equal(last.end, 'failed');
    assert.match(last.message ?? '', /The capture did not start: .*r3 is not running/);
    assert.deepEqual(cgroupsOf('sum'), [], 'no tshark was started');
  } finally {
    await client.execProject({ ...sample, state, action: 'start', node: 'r3' });
  }
});

test('kill -9 of the agent mid-capture: tshark dies with it, and the next start removes its cgroup', () =>
  killMidCapture(
    'sum',
    'the shell, cat and tshark',
    (pids) => pids.length === 3,
    (pids) =>
      assert.ok(
        pids.some((pid) => tsharks().includes(pid)),
        'tshark is in the cgroup',
      ),
  ));
