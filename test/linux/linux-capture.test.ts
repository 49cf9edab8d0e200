/**
 * Packet capture on the Linux emulator (decisions §14), against the real agent
 * over real HTTPS with the OSPF sample running: the pcapng it streams is read
 * by Wireshark's tshark, merged captures are one timeline, and the hostile
 * cases (missing targets, a stopped node, a bad filter, a client that stops
 * reading, the agent killed with -9) end in clear errors and no process left.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentClient } from '../../common/api/client';
import { CAPTURE_END_TRAILER, type CapturePayload } from '../../common/api/contract';
import { failsWith, type TestAgent } from '../support/agent';
import { ospfSample } from './support';
import { killMidCapture } from './killed-agent';
import {
  agentCgroups,
  cgroupRunning,
  cgroupsGone,
  H1_REACHES_H2,
  openPaused,
  savePcapng,
  startCaptureLab,
  stopCaptureLab,
  tsharkFields,
} from './capture-lab';

let agent: TestAgent;
let client: AgentClient;
let token = '';
let prefix = '';
const sample = ospfSample();
let state: unknown;
const payload = () => ({ ...sample, state });
const work = mkdtempSync(join(tmpdir(), 'lab-agent-capture-'));

/** The cgroups of this agent's capture processes (lab-<agent>-cap<id>), and their member processes. */
const captureCgroups = () => agentCgroups(prefix, 'cap');

interface Streamed {
  status: number;
  body: Buffer;
  trailer: string | undefined;
  /** The envelope of a refusal. */
  error?: { code?: string; error?: string };
}

/** Reads a capture stream to its end (or until `stopAfterMs`, when the client closes it). */
function readStream(ticket: string, stopAfterMs?: number, bearer = token): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(`/api/v1/capture/stream/${ticket}`, agent.url),
      { ca: agent.certPem, headers: { authorization: `Bearer ${bearer}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const done = () => {
          const body = Buffer.concat(chunks);
          const streamed: Streamed = { status: res.statusCode ?? 0, body, trailer: res.trailers[CAPTURE_END_TRAILER] };
          if (res.statusCode !== 200) streamed.error = JSON.parse(body.toString()) as Streamed['error'];
          resolve(streamed);
        };
        res.on('end', done);
        res.on('close', done);
        if (stopAfterMs !== undefined) setTimeout(() => req.destroy(), stopAfterMs);
      },
    );
    req.on('error', (e) => (stopAfterMs === undefined ? reject(e) : undefined));
    req.end();
  });
}

async function capture(request: Omit<CapturePayload, 'yaml'>, stopAfterMs?: number): Promise<Streamed> {
  const started = await client.startCapture({ ...payload(), ...request });
  assert.match(started.ticket ?? '', /^[0-9a-f]{64}$/);
  assert.equal(started.stream, `/api/v1/capture/stream/${started.ticket}`);
  return readStream(started.ticket ?? '', stopAfterMs);
}

/** tshark's fields of every packet of a pcapng stream, one array per packet. */
const tshark = (pcapng: Buffer, fields: string[], filter = '') =>
  tsharkFields(savePcapng(work, pcapng), fields, filter);

function ping(from: string, to: string, count: number) {
  return client.execConsole({
    ...payload(),
    node: from,
    command: `ping -c ${count} -i 0.2 -W 1 ${to}`,
    timeout_ms: 30_000,
  });
}

before(async () => {
  ({ agent, client, prefix, state } = await startCaptureLab(sample, ['dumpcap', 'tshark'], H1_REACHES_H2));
  token = client.token;
});

after(() => stopCaptureLab(agent, prefix, work));

test('the Linux emulator offers capture', async () => {
  const caps = await client.getCapabilities();
  assert.equal(caps.features?.capture, true);
});

test('r1:eth1 while h1 pings h2: the pcapng holds ICMP and OSPF hellos, read by tshark', async () => {
  // Through the typed client, as the extension streams it.
  const started = await client.startCapture({ ...payload(), targets: ['r1:eth1'], duration_ms: 4000 });
  const read = async () => {
    const reply = await client.streamCapture({ ticket: started.ticket ?? '' });
    const chunks: Buffer[] = [];
    for await (const chunk of reply.body as AsyncIterable<Buffer>) chunks.push(chunk);
    return { status: reply.status, body: Buffer.concat(chunks), trailer: reply.trailers[CAPTURE_END_TRAILER] };
  };
  const [streamed] = await Promise.all([read(), ping('h1', '10.0.2.10', 5)]);
  assert.equal(streamed.status, 200);
  assert.equal(streamed.trailer, 'duration', 'the duration limit ended it');
  const packets = tshark(streamed.body, ['frame.interface_name', '_ws.col.Protocol', '_ws.col.Info']);
  assert.ok(
    packets.every(([ifname]) => ifname === 'r1:eth1'),
    'every packet is on the interface named r1:eth1',
  );
  const icmp = tshark(streamed.body, ['icmp.type', 'ip.src', 'ip.dst'], 'icmp');
  assert.ok(
    icmp.some(([type, src, dst]) => type === '8' && src === '10.0.1.10' && dst === '10.0.2.10'),
    'echo requests h1 → h2',
  );
  assert.ok(
    icmp.some(([type, src, dst]) => type === '0' && src === '10.0.2.10' && dst === '10.0.1.10'),
    'echo replies h2 → h1',
  );
  const hellos = tshark(streamed.body, ['ip.src'], 'ospf.msg == 1');
  assert.ok(hellos.length >= 2, `OSPF hellos (1 s apart) were captured: ${hellos.length}`);
  assert.ok(new Set(hellos.map(([src]) => src)).size === 2, 'hellos of both r1 and r2 are on the link');
  assert.deepEqual(captureCgroups(), [], 'the capture process is gone with its cgroup');
});

test('a merged capture of r1:eth1 and r2:eth1 holds both interfaces in one timeline, in time order', async () => {
  const [streamed] = await Promise.all([
    capture({ targets: ['r1:eth1', 'r2:eth1'], duration_ms: 5000, filter: 'icmp or ip proto 89' }),
    ping('h1', '10.0.2.10', 10),
  ]);
  assert.equal(streamed.status, 200);
  const packets = tshark(streamed.body, ['frame.interface_id', 'frame.interface_name', 'frame.time_epoch']);
  const names = new Set(packets.map(([id, name]) => `${id}=${name}`));
  assert.deepEqual([...names].sort(), ['0=r1:eth1', '1=r2:eth1']);
  // Each echo crosses both links: packets of the two interfaces interleave.
  let switches = 0;
  for (let i = 1; i < packets.length; i++) if (packets[i][0] !== packets[i - 1][0]) switches++;
  assert.ok(switches >= 10, `the two interfaces interleave in the timeline (${switches} switches)`);
  const times = packets.map(([, , t]) => t);
  const sorted = [...times].sort((a, b) => (BigInt(a.replace('.', '')) < BigInt(b.replace('.', '')) ? -1 : 1));
  assert.deepEqual(times, sorted, 'timestamps never decrease');
  // Only what the filter lets through (89: OSPF).
  assert.deepEqual(tshark(streamed.body, ['frame.number'], 'not (icmp or ospf)'), []);
});

test('the stream ends when the client closes it, and the capture process goes', async () => {
  const streamed = await capture({ targets: ['r2:eth0'] }, 1500);
  assert.equal(streamed.status, 200);
  assert.equal(streamed.trailer, undefined);
  await cgroupsGone(prefix, 'cap', 'the capture process and its cgroup to go');
});

test('max_bytes ends the capture before the stream passes it', async () => {
  // 60 echoes of 1,400 bytes and their replies: about 170 kB cross h1-r1.
  const [streamed] = await Promise.all([
    capture({ targets: ['r1:eth0'], max_bytes: 65_536 }),
    client.execConsole({
      ...payload(),
      node: 'h1',
      command: 'ping -c 60 -i 0.01 -s 1400 -q 10.0.1.1',
      timeout_ms: 30_000,
    }),
  ]);
  assert.equal(streamed.status, 200);
  assert.ok(streamed.body.length <= 65_536, `${streamed.body.length} bytes`);
  assert.ok(streamed.body.length > 40_000, `${streamed.body.length} bytes: close to the limit`);
  assert.equal(streamed.trailer, 'max_bytes');
});

test('hostile targets: a missing node or interface, a malformed target, a filter that does not compile', async () => {
  await failsWith(client.startCapture({ ...payload(), targets: ['r9:eth0'] }), 'node_not_found');
  const noIface = await failsWith(client.startCapture({ ...payload(), targets: ['r1:eth7'] }), 'interface_not_found');
  assert.match(noIface.message, /eth0, eth1/);
  await failsWith(client.startCapture({ ...payload(), targets: ['r1'] }), 'invalid_request');
  await failsWith(client.startCapture({ ...payload(), targets: [] }), 'invalid_request');
  await failsWith(client.startCapture({ ...payload(), targets: ['r1:eth0', 'r1:eth0'] }), 'invalid_request');
  await failsWith(client.startCapture({ ...payload(), targets: ['r1:eth0'], snaplen: 10 }), 'invalid_request');
  const bad = await failsWith(
    client.startCapture({ ...payload(), targets: ['r1:eth0'], filter: 'bogus filter here' }),
    'invalid_filter',
  );
  assert.match(bad.message, /syntax error|can't parse/);
  await failsWith(
    client.startCapture({ ...payload(), targets: ['r1:eth0'], filter: 'icmp\nor ospf' }),
    'invalid_request',
  );
});

test('a ticket works only for its session, and once', async () => {
  const started = await client.startCapture({ ...payload(), targets: ['r1:eth0'], duration_ms: 1000 });
  const stolen = await readStream(started.ticket ?? '', undefined, await agent.login());
  assert.equal(stolen.status, 403);
  assert.equal(stolen.error?.code, 'browser_token_invalid');
  const used = await readStream(started.ticket ?? '');
  assert.equal(used.status, 200);
  assert.equal(used.trailer, 'duration');
  const again = await readStream(started.ticket ?? '');
  assert.equal(again.status, 403);
  assert.equal(again.error?.code, 'browser_token_invalid');
});

test('a client that stops reading: the agent stops reading the capture, and the packets meanwhile are dropped', async () => {
  const started = await client.startCapture({ ...payload(), targets: ['r1:eth0'], duration_ms: 60_000 });
  const chunks: Buffer[] = [];
  const paused = await openPaused(agent, started.stream ?? '', token);
  assert.equal(paused.statusCode, 200);
  // About 57 MB cross h1-r1 while nobody reads the stream.
  const flood = await client.execConsole({
    ...payload(),
    node: 'h1',
    command: 'ping -f -c 20000 -s 1400 -q 10.0.1.1',
    timeout_ms: 60_000,
  });
  assert.match(flood.output ?? '', /20000 packets transmitted/);
  assert.equal(captureCgroups().length, 1, 'the capture still runs');
  // Now the client reads everything: if the agent had kept what it could not send, all of it would arrive.
  const ended = new Promise<void>((done) => paused.on('end', done));
  paused.on('data', (c: Buffer) => chunks.push(c));
  paused.resume();
  await client.execProject({ ...payload(), action: 'stop', node: 'r1', stopmode: 1 });
  await ended;
  assert.equal(paused.trailers[CAPTURE_END_TRAILER], 'node_stopped');
  const received = Buffer.concat(chunks);
  assert.ok(received.length < 20_000_000, `the client got ${received.length} bytes of the ~57 MB`);
  // The stream ends with dumpcap's interface statistics (which count the drops): the last block is one.
  const lastLength = received.readUInt32LE(received.length - 4);
  assert.equal(received.readUInt32LE(received.length - lastLength), 5, 'an Interface Statistics Block ends the stream');
  const packets = tshark(received, ['frame.number'], 'icmp').length;
  assert.ok(packets > 0 && packets < 40_000, `${packets} of the 40,000 ICMP packets were captured, the rest dropped`);
  await client.execProject({ ...payload(), action: 'start', node: 'r1' });
  await cgroupsGone(prefix, 'cap', 'the capture process to go');
});

test('an interface of a stopped node is refused; stopping a node ends its capture with node_stopped', async () => {
  const running = capture({ targets: ['r3:eth0', 'r1:eth1'] });
  await cgroupRunning(prefix, 'cap', 'the capture', () => true);
  await client.execProject({ ...payload(), action: 'stop', node: 'r3', stopmode: 1 });
  const streamed = await running;
  assert.equal(streamed.status, 200);
  assert.equal(streamed.trailer, 'node_stopped');
  assert.ok(tshark(streamed.body, ['frame.number']).length >= 0, 'what was captured is a readable pcapng');
  const refused = await failsWith(client.startCapture({ ...payload(), targets: ['r3:eth0'] }), 'node_not_running');
  assert.match(refused.message, /r3 is not running/);
  assert.deepEqual(captureCgroups(), []);
});

test('kill -9 of the agent mid-capture: the capture process dies with it, and the next start removes its cgroup', () =>
  killMidCapture('cap', 'the capture process', (pids) => pids.length > 0));
