import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabTurns } from '../../agent/emulator/linux/lab-turns';

/** Calls that stay under way until released, counting how many run at once and in what order they began. */
class Probe {
  running = 0;
  peak = 0;
  readonly began: string[] = [];
  private readonly releases = new Map<string, () => void>();

  work(name: string): () => Promise<string> {
    return () => {
      this.began.push(name);
      this.running++;
      this.peak = Math.max(this.peak, this.running);
      return new Promise<string>((resolve) =>
        this.releases.set(name, () => {
          this.running--;
          resolve(name);
        }),
      );
    };
  }

  release(name: string): void {
    const release = this.releases.get(name);
    assert.ok(release, `${name} has not begun`);
    release();
  }
}

/** Lets every queued continuation run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('calls on different nodes of one lab run side by side; calls on one node take turns', async () => {
  const turns = new LabTurns();
  const probe = new Probe();
  const calls = [
    turns.node('/a.unl', 1, probe.work('n1 first')),
    turns.node('/a.unl', 2, probe.work('n2')),
    turns.node('/a.unl', 3, probe.work('n3')),
    turns.node('/a.unl', 1, probe.work('n1 second')),
    turns.node('/a.unl', undefined, probe.work('whole-lab read')),
  ];
  await settle();
  assert.deepEqual(probe.began, ['n1 first', 'n2', 'n3', 'whole-lab read']);
  assert.equal(probe.peak, 4);
  probe.release('n1 first');
  await settle();
  assert.deepEqual(probe.began.at(-1), 'n1 second');
  for (const name of ['n2', 'n3', 'n1 second', 'whole-lab read']) probe.release(name);
  assert.deepEqual(await Promise.all(calls), ['n1 first', 'n2', 'n3', 'n1 second', 'whole-lab read']);
});

test('a structure change runs alone: after the calls before it, before the calls after it', async () => {
  const turns = new LabTurns();
  const probe = new Probe();
  const calls = [
    turns.node('/a.unl', 1, probe.work('n1')),
    turns.node('/a.unl', 2, probe.work('n2')),
    turns.structure('/a.unl', probe.work('add network')),
    turns.node('/a.unl', 3, probe.work('n3')),
    turns.node('/b.unl', 1, probe.work('other lab')),
  ];
  await settle();
  assert.deepEqual(probe.began, ['n1', 'n2', 'other lab']);
  probe.release('n1');
  await settle();
  assert.equal(probe.began.includes('add network'), false, 'the change waits for every earlier call');
  probe.release('n2');
  await settle();
  assert.deepEqual(probe.began.slice(3), ['add network']);
  probe.release('add network');
  await settle();
  assert.deepEqual(probe.began.slice(4), ['n3']);
  probe.release('n3');
  probe.release('other lab');
  await Promise.all(calls);
  await turns.settled();
});

test('a failed call does not hold up the next one', async () => {
  const turns = new LabTurns();
  await assert.rejects(
    turns.structure('/a.unl', () => {
      throw new Error('no');
    }),
    /no/,
  );
  assert.equal(await turns.node('/a.unl', 1, () => 'ran'), 'ran');
  assert.equal(await turns.structure('/a.unl', () => 'ran too'), 'ran too');
});
