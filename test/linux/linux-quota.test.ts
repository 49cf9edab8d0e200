/**
 * The nodes a lab may have on the Linux emulator: QUOTAS.nodesPerLab unless the
 * agent is given another limit (`--max-nodes-per-lab`, decisions §11). A node past
 * the limit is refused with the flag's name, and nothing of it is made. Node
 * starts under way at once: one per 64 MiB of memory unless `--concurrent-starts`
 * says otherwise; a start past them waits its turn (counted while they run).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmuError, EmuNodeStatus } from '../../agent/emulator/backend';
import { LinuxEmulator } from '../../agent/emulator/linux/linux-emulator';
import { defaultConcurrentStarts, QUOTAS } from '../../agent/emulator/linux/quotas';
import { nodeSpec } from '../support/emu-node';
import { namespacesOf, prefixOf, requireLinuxLabs } from './support';

const dataDirs: string[] = [];

after(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function openEmulator(nodesPerLab?: number, concurrentStarts?: number): Promise<LinuxEmulator> {
  await requireLinuxLabs();
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-linux-quota-'));
  dataDirs.push(dataDir);
  const opened = await LinuxEmulator.open({ dataDir, log: () => undefined, nodesPerLab, concurrentStarts });
  assert.ok(opened instanceof LinuxEmulator, 'the Linux emulator runs here');
  return opened;
}

/** A Linux host of its own name. */
const host = (i: number) => nodeSpec(`h${i}`, 'linux', 1, { icon: 'Server.png', ram: 64, config: '' });

test(`a lab may have ${QUOTAS.nodesPerLab} nodes unless the agent says otherwise; starts at once follow memory`, async () => {
  const emu = await openEmulator();
  try {
    assert.equal(emu.nodesPerLab, QUOTAS.nodesPerLab);
    assert.equal(emu.starts.size, defaultConcurrentStarts());
    assert.equal(defaultConcurrentStarts(24 * 1024 ** 3, 2), 32, '16 per CPU');
    assert.equal(defaultConcurrentStarts(24 * 1024 ** 3, 64), 384, 'one per 64 MiB');
    assert.equal(defaultConcurrentStarts(256 * 1024 ** 2, 2), QUOTAS.concurrentStarts.min);
    assert.equal(defaultConcurrentStarts(1024 ** 4, 256), QUOTAS.concurrentStarts.max);
    assert.equal((await emu.connect()).maxConcurrentWrites, emu.starts.size, 'a Start All runs as many calls');
  } finally {
    await emu.close({ stopLabs: true });
  }
});

test('with a limit of 2 nodes a lab, a third node is refused naming the flag, and nothing of it is made', async () => {
  const emu = await openEmulator(2);
  const prefix = prefixOf(dataDirs[dataDirs.length - 1]);
  try {
    const client = await emu.connect();
    const lab = '/lab-agent/quota.unl';
    await client.createLab(lab, { name: 'quota', description: '' });
    await client.addNode(lab, host(1));
    await client.addNode(lab, host(2));
    const namespaces = (await namespacesOf(prefix)).length;
    await assert.rejects(
      client.addNode(lab, host(3)),
      (e: unknown) => e instanceof EmuError && /has 2 nodes.*--max-nodes-per-lab.*h3 was not added/.test(e.message),
    );
    assert.equal((await client.getLab(lab))?.nodes.length, 2);
    assert.equal((await namespacesOf(prefix)).length, namespaces, 'no namespace for the refused node');
    await client.deleteLab(lab);
  } finally {
    await emu.close({ stopLabs: true });
  }
  assert.deepEqual(await namespacesOf(prefix), []);
});

test('with 2 starts at once, 5 hosts started together start 2 at a time, and all start', async () => {
  const emu = await openEmulator(undefined, 2);
  const prefix = prefixOf(dataDirs[dataDirs.length - 1]);
  try {
    const client = await emu.connect();
    const lab = '/lab-agent/starts.unl';
    await client.createLab(lab, { name: 'starts', description: '' });
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await client.addNode(lab, host(i))).id);
    let peak = 0;
    let done = false;
    const all = Promise.all(ids.map((id) => client.startNode(lab, id))).finally(() => (done = true));
    // Bounded by the starts: each gives up within its time limits.
    while (!done) {
      peak = Math.max(peak, emu.starts.busy);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await all;
    assert.equal(peak, 2, `${peak} starts were under way at once`);
    assert.ok(
      (await client.getLab(lab))?.nodes.every((n) => n.status === EmuNodeStatus.running),
      'every host runs',
    );
    await client.deleteLab(lab);
  } finally {
    await emu.close({ stopLabs: true });
  }
  assert.deepEqual(await namespacesOf(prefix), []);
});
