/**
 * The extension's capture module (client/capture/) against the real agent over
 * real HTTPS with the OSPF sample running on the Linux emulator: the capture is
 * written to its file, which tshark reads with OSPF hellos; the live decoder
 * (tshark, display filter included) sees the packets as they come; a reader that
 * stops reading still gets every byte, from the file; the agent's Capture-End
 * reason and its refusals come back as they are; an agent killed mid-capture
 * ends the recording and the decoder with a clear message and a readable file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentClient, AgentError } from '../../common/api/client';
import type { CapturePayload } from '../../common/api/contract';
import { readAgentSummaries } from '../../client/capture/agent-summaries';
import { decodeCapture } from '../../client/capture/decoder';
import type { PacketRow } from '../../client/capture/packet-rows';
import { CaptureRecording } from '../../client/capture/recording';
import type { TestAgent } from '../support/agent';
import { endingText } from '../../client/capture/ending';
import { ospfSample } from './support';
import { destroyAndStop, killUserClient, withKillableAgents } from './killed-agent';
import { R1_FULL, startCaptureLab, stopCaptureLab, tsharkFields } from './capture-lab';

let agent: TestAgent;
let client: AgentClient;
let prefix = '';
let state: unknown;
const sample = ospfSample();
const work = mkdtempSync(join(tmpdir(), 'lab-agent-capture-client-'));
let files = 0;
const payload = (request: Omit<CapturePayload, 'yaml'>): CapturePayload => ({ ...sample, state, ...request });
const newFile = () => join(work, 'captures', `c${++files}.pcapng`);

/** Resolves with the rows once `enough` holds of them (the decoder keeps running). */
function decodeUntil(recording: CaptureRecording, filter: string, enough: (rows: PacketRow[]) => boolean) {
  const rows: PacketRow[] = [];
  let problem: string | undefined;
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  const decoder = decodeCapture('tshark', recording, filter, {
    row: (row) => {
      rows.push(row);
      if (enough(rows)) resolve();
    },
    ended: (p) => {
      problem = p;
      resolve();
    },
  });
  return { rows, done, decoder, problem: () => problem };
}

before(async () => {
  ({ agent, client, prefix, state } = await startCaptureLab(sample, ['tshark'], R1_FULL));
});

after(() => stopCaptureLab(agent, prefix, work));

test('a capture stopped by the user: the live decoder saw OSPF hellos, and tshark reads them from the file', async () => {
  const file = newFile();
  const recording = await CaptureRecording.start(client, payload({ targets: ['r1:eth1'] }), file);
  assert.deepEqual(
    recording.started.targets?.map((t) => t.target),
    ['r1:eth1'],
  );
  // A display filter of Wireshark's language, applied by tshark as packets come.
  const live = decodeUntil(recording, 'ospf.msg == 1', (rows) => rows.length >= 2);
  await live.done;
  assert.equal(live.problem(), undefined);
  for (const row of live.rows) {
    assert.equal(row.interface, 'r1:eth1');
    assert.equal(row.protocol, 'OSPF');
    assert.match(row.info, /Hello/);
    assert.match(row.source, /^10\.0\.\d+\.\d+$/);
  }
  live.decoder.stop();
  recording.stop();
  assert.deepEqual(await recording.ended, { by: 'user' });
  await recording.close();
  const hellos = tsharkFields(file, ['frame.interface_name', 'ip.src'], 'ospf.msg == 1');
  assert.ok(hellos.length >= 2, `${hellos.length} OSPF hellos in the file`);
  assert.ok(hellos.every(([iface]) => iface === 'r1:eth1'));
  assert.equal(readFileSync(file).length, recording.bytes);
});

test("with the agent's summaries, the rows come from the agent: the file's packets, numbered as the file, no local tshark run", async () => {
  const file = newFile();
  const recording = await CaptureRecording.start(client, payload({ targets: ['r1:eth1'], duration_ms: 3000 }), file, {
    summaries: true,
  });
  assert.ok(recording.summaries, 'the agent offers summaries and the stream is open');
  const rows: PacketRow[] = [];
  const ended = new Promise<string | undefined>((resolve) => {
    readAgentSummaries(recording.summaries as NonNullable<typeof recording.summaries>, {
      row: (row) => rows.push(row),
      ended: resolve,
    });
  });
  assert.deepEqual(await recording.ended, { by: 'agent', reason: 'duration' });
  assert.equal(await ended, undefined, 'the summaries are complete');
  await recording.close();
  const fromFile = tsharkFields(file, ['frame.number', 'frame.interface_name', '_ws.col.Protocol'], 'frame');
  assert.ok(rows.some((r) => r.protocol === 'OSPF' && /Hello/.test(r.info)));
  assert.deepEqual(
    rows.map((r) => [String(r.no), r.interface, r.protocol]),
    fromFile,
  );
});

test('a capture the agent ends (duration) gives its Capture-End reason; a late, slow reader gets every byte from the file', async () => {
  const file = newFile();
  const recording = await CaptureRecording.start(
    client,
    payload({ targets: ['r1:eth1', 'r2:eth0'], duration_ms: 3000 }),
    file,
  );
  // A reader with a one-byte buffer that reads nothing until the capture has ended.
  const slow = new PassThrough({ highWaterMark: 1 });
  recording.follow(slow);
  assert.deepEqual(await recording.ended, { by: 'agent', reason: 'duration' });
  const chunks: Buffer[] = [];
  for await (const chunk of slow) chunks.push(chunk as Buffer);
  const written = readFileSync(file);
  assert.equal(Buffer.concat(chunks).length, written.length);
  assert.ok(Buffer.concat(chunks).equals(written), 'the slow reader got the file, byte for byte');
  // A decoder started after the end reads the whole file, both interfaces in one timeline.
  const late = decodeUntil(recording, '', () => false);
  await late.done;
  assert.equal(late.problem(), undefined);
  await recording.close();
  assert.deepEqual([...new Set(late.rows.map((r) => r.interface))].sort(), ['r1:eth1', 'r2:eth0']);
  assert.deepEqual(
    late.rows.map((r) => r.no),
    late.rows.map((_, i) => i + 1),
  );
  const times = late.rows.map((r) => Number(r.time));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    'in time order',
  );
  assert.equal(tsharkFields(file, ['frame.number'], 'ospf.msg == 1').length >= 2, true);
});

test("a display filter tshark cannot compile ends the decoder with tshark's message; the capture goes on", async () => {
  const recording = await CaptureRecording.start(client, payload({ targets: ['r1:eth1'] }), newFile());
  const bad = decodeUntil(recording, 'ospf.msg ==', () => false);
  await bad.done;
  assert.match(bad.problem() ?? '', /filter|expression/i);
  const good = decodeUntil(recording, 'ospf', (rows) => rows.length >= 1);
  await good.done;
  assert.equal(good.problem(), undefined);
  good.decoder.stop();
  recording.stop();
  assert.deepEqual(await recording.ended, { by: 'user' });
  await recording.close();
});

test('refusals: a missing interface and a bad capture filter are AgentErrors with their codes; no file is made', async () => {
  const file = newFile();
  const refused = async (request: Omit<CapturePayload, 'yaml'>, code: string) => {
    await assert.rejects(CaptureRecording.start(client, payload(request), file), (err: unknown) => {
      assert.ok(err instanceof AgentError, String(err));
      assert.equal(err.code, code);
      return true;
    });
  };
  await refused({ targets: ['r1:eth7'] }, 'interface_not_found');
  await refused({ targets: ['r1:eth1'], filter: 'bogus filter here' }, 'invalid_filter');
  assert.equal(existsSync(file), false);
});

test('the agent killed mid-capture: the recording ends as a lost connection, the decoder ends, the file keeps what arrived', async () => {
  const lab = [
    'name: capdead',
    'defaults: {template: linux, ethernet: 1}',
    'nodes:',
    '  a: {config: a.sh}',
    '  b: {config: b.sh}',
    'links:',
    '  - endpoints: [a:eth0, b:eth0]',
    '',
  ].join('\n');
  const labFiles = { 'a.sh': 'ip address add 10.9.0.1/24 dev eth0\n', 'b.sh': 'ip address add 10.9.0.2/24 dev eth0\n' };
  await withKillableAgents('capture-dead', async (agents) => {
    const first = await agents.spawn();
    const doomed = await killUserClient(first);
    const labState = (await doomed.deployProject({ yaml: lab, files: labFiles })).state;
    await doomed.execProject({ yaml: lab, files: labFiles, state: labState, action: 'start' });
    const file = newFile();
    const recording = await CaptureRecording.start(
      doomed,
      { yaml: lab, files: labFiles, state: labState, targets: ['a:eth0'] },
      file,
    );
    const live = decodeUntil(recording, 'icmp', (rows) => rows.length >= 6);
    const ping = await doomed.execConsole({
      yaml: lab,
      files: labFiles,
      state: labState,
      node: 'a',
      command: 'ping -c 3 -i 0.2 10.9.0.2',
    });
    assert.match(ping.output ?? '', /3 received/, `the ping: ${ping.output}`);
    await live.done;
    first.child.kill('SIGKILL');
    // Nothing hangs: the recording settles as a lost connection, and the decoder reads the file to its end.
    const ending = await recording.ended;
    assert.equal(ending.by, 'lost', JSON.stringify(ending));
    assert.match(endingText(ending), /connection to the agent was lost mid-capture .* The file keeps every packet/);
    const ended = new Promise<string | undefined>((resolve) =>
      decodeCapture('tshark', recording, 'icmp', { row: () => undefined, ended: resolve }),
    );
    assert.equal(await ended, undefined, 'tshark read the cut-off file to its end without an error');
    live.decoder.stop();
    await recording.close();
    await doomed.close();
    const echoes = tsharkFields(file, ['icmp.type'], 'icmp');
    assert.ok(echoes.length >= 6, `${echoes.length} ICMP packets in the file`);
    assert.equal(readFileSync(file).length, recording.bytes, 'every byte that arrived is in the file');
    // The next start of the agent removes what the killed one left; then the lab goes.
    await destroyAndStop(await agents.spawn(), { yaml: lab, files: labFiles, state: labState }, agents.prefix());
  });
});
