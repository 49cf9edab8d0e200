/**
 * A lab's fabric commands from many calls at once go by as few `ip -batch` runs as possible
 * (kernel.ts IpBatch): counted by the runs, in a real namespace. A failing command fails its own
 * caller only; the commands before it are done, those after it run in the next batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addNamespace,
  bridgeCommand,
  deleteNamespace,
  IpBatch,
  links,
  masterCommand,
} from '../../agent/emulator/linux/kernel';
import { requireLinuxLabs } from './support';

test('5 commands at once take 3 runs; the failing one fails its caller alone', async () => {
  await requireLinuxLabs();
  const ns = `lab-test-ipbatch-${process.pid}`;
  await addNamespace(ns);
  try {
    let runs = 0;
    const batch = new IpBatch(ns, (work) => {
      runs++;
      return work();
    });
    // The first runs alone (nothing else waits yet); the other four wait for it and go together,
    // until the third command fails: the last two go in a third run.
    const outcomes = await Promise.allSettled([
      batch.run([bridgeCommand('b1')]),
      batch.run([bridgeCommand('b2')]),
      batch.run([masterCommand('missing0', 'b1')]),
      batch.run([bridgeCommand('b3')]),
      batch.run([bridgeCommand('b4'), masterCommand('b4', undefined)]),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const failure = (outcomes[2] as PromiseRejectedResult).reason as Error;
    assert.match(failure.message, /link set missing0 master b1.*Cannot find device/);
    assert.equal(runs, 3, `${runs} ip runs for 5 calls`);
    const made = (await links(ns)).map((l) => l.ifname).filter((n) => n.startsWith('b'));
    assert.deepEqual(made.sort(), ['b1', 'b2', 'b3', 'b4']);
  } finally {
    await deleteNamespace(ns);
  }
});
