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

test('console commands run at most so many at once on the agent, whoever sends them; the rest wait in order', async () => {
  const limits = new ExecLimits(3);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const releases: (() => void)[] = [];
  const commands = Array.from({ length: 10 }, (_, i) =>
    limits.command(async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      if (i === 4) throw new Error('node gone');
      return i;
    }),
  );
  const settled = Promise.allSettled(commands);
  // Let each command that has a place start, then finish them one by one, oldest first.
  for (let done = 0; done < 10; done++) {
    await new Promise((r) => setImmediate(r));
    assert.ok(running <= 3, `${running} running`);
    releases.shift()?.();
  }
  const results = await settled;
  assert.equal(most, 3);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'first come, first served');
  assert.equal(results.filter((r) => r.status === 'rejected').length, 1, 'a failed command gives its place back too');
  assert.equal(await limits.command(async () => 'again'), 'again');
  assert.equal(EXEC_LIMITS.commandsOnAgent, 16);
});

test('output the emulator already cut short is marked cut even when it is within the cap', () => {
  const cut = capOutput('abc', 10, true);
  assert.equal(cut.truncated, true);
  assert.equal(cut.output, 'abc\n[output cut: more than 3 characters, the agent keeps 10]\n');
});
