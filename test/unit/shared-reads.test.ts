import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedReads } from '../../agent/domain/shared-reads';

test('ten identical reads in flight cost one computation and get its answer; the next read after it computes again', async () => {
  const reads = new SharedReads();
  let computed = 0;
  let release: (value: string) => void = () => undefined;
  const read = () => {
    computed++;
    return new Promise<string>((resolve) => (release = resolve));
  };
  const ten = Array.from({ length: 10 }, () => reads.share('plan 1 /a.unl', read));
  // Reads start one turn late, so requests that arrive together join the first.
  await new Promise((r) => setImmediate(r));
  assert.equal(computed, 1);
  release('answer');
  assert.deepEqual(
    await Promise.all(ten),
    Array.from({ length: 10 }, () => 'answer'),
  );
  const after = reads.share('plan 1 /a.unl', read);
  await new Promise((r) => setImmediate(r));
  assert.equal(computed, 2, 'a finished read is not kept');
  release('second');
  assert.equal(await after, 'second');
});

test('reads with different keys (another lab, or after a write) are computed each', async () => {
  const reads = new SharedReads();
  let computed = 0;
  const read = async () => ++computed;
  const answers = await Promise.all([
    reads.share('status 1 /a', read),
    reads.share('status 2 /a', read),
    reads.share('status 1 /b', read),
  ]);
  assert.equal(computed, 3);
  assert.deepEqual([...answers].sort(), [1, 2, 3]);
});

test('a failed read fails every caller that joined it, and is not kept', async () => {
  const reads = new SharedReads();
  let computed = 0;
  const failing = () => {
    computed++;
    return Promise.reject(new Error('emulator down'));
  };
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => reads.share('k', failing)));
  assert.equal(computed, 1);
  assert.ok(results.every((r) => r.status === 'rejected'));
  assert.equal(await reads.share('k', async () => 'back'), 'back');
});
