/** Places: work past the places waits its turn (first come first served) and is never refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Places } from '../../agent/places';

test('ten starts on eight places: eight run at once, the other two wait and then run, in order', async () => {
  const places = new Places(8);
  const gates: (() => void)[] = [];
  const began: number[] = [];
  const runs = Array.from({ length: 10 }, (_, i) =>
    places.run(async () => {
      began.push(i);
      await new Promise<void>((resolve) => gates.push(resolve));
      return i;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(began, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(places.busy, 8);
  gates.shift()?.();
  gates.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(began.slice(8), [8, 9]);
  assert.equal(places.busy, 8, 'a freed place passes to the next in line');
  for (const open of gates.splice(0)) open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(places.busy, 0);
});

test('a failed work gives its place back', async () => {
  const places = new Places(1);
  await assert.rejects(
    places.run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(places.busy, 0);
  assert.equal(await places.run(() => Promise.resolve('next')), 'next');
});
