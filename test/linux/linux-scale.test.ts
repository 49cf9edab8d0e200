/**
 * The Linux emulator at scale, proved by counting (its timings are figures of
 * `npm run bench linux-lab`): adding a node reads that node from the kernel,
 * not the whole lab; nodes of one lab start and stop side by side; a read of
 * the lab is one whole read. Real namespaces and FRR, through the emulator's
 * own client as the agent uses it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmuNodeStatus, type EmulatorClient } from '../../agent/emulator/backend';
import { LinuxEmulator } from '../../agent/emulator/linux/linux-emulator';
import { nodeSpec } from '../support/emu-node';
import { namespacesOf, prefixOf, processesOf, requireLinuxLabs } from './support';

const LAB = '/lab-agent/scale.unl';
const ROUTERS = 6;

let dataDir = '';
let emu: LinuxEmulator | undefined;
let client: EmulatorClient;

before(async () => {
  await requireLinuxLabs();
  dataDir = mkdtempSync(join(tmpdir(), 'lab-linux-scale-'));
  const opened = await LinuxEmulator.open({ dataDir, log: () => undefined });
  assert.ok(opened instanceof LinuxEmulator, 'the Linux emulator runs here');
  emu = opened;
  client = await emu.connect();
});

after(async () => {
  if (!emu) return;
  const prefix = prefixOf(dataDir);
  await emu.close({ stopLabs: true });
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(processesOf(prefix), []);
  rmSync(dataDir, { recursive: true, force: true });
});

/** An FRR router of its own name and hostname. */
const router = (i: number) => nodeSpec(`r${i}`, 'frr', 2, { ram: 64, config: `hostname r${i}\n` });

/** Runs `calls` at once and counts, while they run, the most nodes of the lab starting at the same moment. */
async function peakStarting(calls: Promise<unknown>[]): Promise<number> {
  let peak = 0;
  let done = false;
  const all = Promise.all(calls).finally(() => (done = true));
  // Bounded by the calls: each start gives up within FRR's readiness limits.
  while (!done) {
    peak = Math.max(peak, emu?.starts.busy ?? 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await all;
  return peak;
}

test(`${ROUTERS} adds read ${ROUTERS} nodes from the kernel and never the whole lab`, async () => {
  assert.ok(emu);
  await client.createLab(LAB, { name: 'scale', description: '' });
  const before = { ...emu.reads };
  for (let i = 1; i <= ROUTERS; i++) {
    const node = await client.addNode(LAB, router(i));
    assert.equal(node.name, `r${i}`);
    assert.equal(node.status, EmuNodeStatus.stopped);
    assert.deepEqual(
      node.interfaces?.map((i) => [i.name, i.networkId]),
      [
        ['eth0', 0],
        ['eth1', 0],
      ],
    );
  }
  assert.deepEqual(
    { labs: emu.reads.labs - before.labs, nodes: emu.reads.nodes - before.nodes },
    { labs: 0, nodes: ROUTERS },
  );
  const lab = await client.getLab(LAB);
  assert.equal(lab?.nodes.length, ROUTERS);
  assert.equal(emu.reads.labs - before.labs, 1, 'a read of the lab is one whole read');
});

test('the nodes of one lab start side by side and stop side by side', async () => {
  assert.ok(emu);
  const lab = await client.getLab(LAB);
  const ids = lab?.nodes.map((n) => n.id) ?? [];
  assert.equal(ids.length, ROUTERS);
  const peak = await peakStarting(ids.map((id) => client.startNode(LAB, id)));
  // Taking turns, one node would start at a time.
  assert.equal(peak, ROUTERS, `at most ${peak} node(s) were starting at once`);
  const running = await client.getLab(LAB);
  assert.deepEqual(
    running?.nodes.map((n) => n.status),
    ids.map(() => EmuNodeStatus.running),
  );
  await Promise.all(ids.map((id) => client.stopNode(LAB, id, 1)));
  const stopped = await client.getLab(LAB);
  assert.deepEqual(
    stopped?.nodes.map((n) => n.status),
    ids.map(() => EmuNodeStatus.stopped),
  );
});

test('a read for console commands reads no running config; a full read reads each dirty one once', async () => {
  assert.ok(emu);
  const lab = await client.getLab(LAB);
  const ids = lab?.nodes.map((n) => n.id) ?? [];
  await Promise.all(ids.map((id) => client.startNode(LAB, id)));
  // A command may change a router's running config: each is due for a read again.
  const run = client.runCommand?.bind(client);
  assert.ok(run, 'the Linux emulator runs commands itself');
  const outputs = await Promise.all(ids.map((id) => run(LAB, id, 'show version', 20_000, 4096)));
  assert.ok(
    outputs.every((o) => /FRRouting/.test(o.output)),
    'every router answered',
  );
  const before = emu.reads.runningConfigs;
  const light = await client.getLab(LAB, { runningConfigs: false });
  assert.deepEqual(
    light?.nodes.map((n) => n.status),
    ids.map(() => EmuNodeStatus.running),
  );
  assert.equal(emu.reads.runningConfigs - before, 0, 'exec and destroy need no running config');
  await client.getLab(LAB);
  assert.equal(emu.reads.runningConfigs - before, ROUTERS, 'a full read reads each router once');
});

test('two full reads at once after a change share one fresh read of each router: neither gets the config from before', async () => {
  assert.ok(emu);
  const lab = await client.getLab(LAB);
  const ids = lab?.nodes.map((n) => n.id) ?? [];
  const run = client.runCommand?.bind(client);
  assert.ok(run, 'the Linux emulator runs commands itself');
  // vtysh runs each line of one -c as a command.
  const change = 'configure terminal\ninterface lo\ndescription read-after-change';
  await Promise.all(ids.map((id) => run(LAB, id, change, 20_000, 4096)));
  const before = emu.reads.runningConfigs;
  // The first read begins each router's read; the second arrives while it is in flight and waits for it.
  const reads = await Promise.all([client.getLab(LAB), client.getLab(LAB)]);
  for (const [i, read] of reads.entries())
    for (const node of read?.nodes ?? [])
      assert.match(node.runningConfig?.text ?? '', /description read-after-change/, `read ${i + 1} of ${node.name}`);
  assert.equal(emu.reads.runningConfigs - before, ROUTERS, 'one read of each router for both');
});

test('deleting a lab of running routers removes them directly: nothing of the lab is left', async () => {
  assert.ok(emu);
  assert.equal(client.deleteLabRemovesNodes, true, 'destroy asks for deleteLab only');
  const before = { ...emu.reads };
  await client.deleteLab(LAB);
  assert.equal(await client.getLab(LAB), undefined);
  const prefix = prefixOf(dataDir);
  // The fabric namespace of other labs would stay: this agent has no other lab.
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(processesOf(prefix), []);
  assert.deepEqual(emu.reads, before, 'nothing was read back from the kernel to remove it');
});
