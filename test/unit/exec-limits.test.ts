import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capOutput, EXEC_LIMITS, ExecLimits } from '../../agent/console/exec-limits';
import { ApiError } from '../../agent/http/api-error';

test('a user has at most two exec-many calls in flight; a third is refused saying why, others are not held', async () => {
  const limits = new ExecLimits();
  const releases: (() => void)[] = [];
  const pending = () => new Promise<void>((resolve) => releases.push(resolve));
  const first = limits.run('alice', pending);
  const second = limits.run('alice', pending);
  await assert.rejects(
    limits.run('alice', pending),
    (e: unknown) =>
      e instanceof ApiError && e.code === 'agent_busy' && /2 console exec-many calls running/.test(e.message),
  );
  const bob = limits.run('bob', async () => 'bob ran');
  assert.equal(await bob, 'bob ran');
  releases.forEach((release) => release());
  await Promise.all([first, second]);
  // Finished calls give their place back, failed ones too.
  await assert.rejects(
    limits.run('alice', () => Promise.reject(new Error('node gone'))),
    /node gone/,
  );
  assert.equal(await limits.run('alice', async () => 'again'), 'again');
  assert.equal(EXEC_LIMITS.callsPerUser, 2);
});

test('output over the cap is cut, with a note saying how much there was', () => {
  assert.deepEqual(capOutput('short', 10), { output: 'short', truncated: false });
  const cut = capOutput('x'.repeat(25), 10);
  assert.equal(cut.truncated, true);
  assert.ok(cut.output.startsWith(`${'x'.repeat(10)}\n[output cut: 25 characters, the agent keeps 10]`), cut.output);
  assert.equal(capOutput('abc', 0).output.startsWith('\n[output cut: 3'), true);
});
