/**
 * A real host console on the Linux emulator (bash on a pseudo-terminal) in
 * front of a client that stops reading: the program is paused behind it and
 * the client dropped, so the agent's memory stays bounded. Console exec input
 * that used to reach spawn() (a NUL, a 200 KB command) is a clear 400. The
 * agent runs in this process: its memory is this process's (from /proc).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STALLED_DROP_MS } from '../../agent/console/line-client';
import { openNonReadingStream, startTestAgent, waitFor, type TestAgent } from '../support/agent';
import { requireLinuxLabs } from './support';
import { assertDroppedAfterBoundedRead, assertGrowthBounded } from '../support/stalled-client';

const GROWTH_BOUND_MiB = 64;
const RECEIVED_BOUND_MiB = 16;
const LAB = '/lab-agent/console-bounds.unl';
const YAML = 'name: console-bounds\nnodes:\n  h1:\n    template: linux\n';

let agent: TestAgent | undefined;
/** The agent, once before() started it. */
const running = (): TestAgent => {
  if (!agent) throw new Error('the agent did not start');
  return agent;
};
let token = '';

const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024;

async function call(path: string, body: unknown) {
  const reply = await running().call('POST', path, body, token);
  assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body.data;
}

before(async () => {
  await requireLinuxLabs();
  agent = await startTestAgent({ emulator: 'linux' });
  token = await agent.login();
  await call('/api/v1/projects/deploy', { yaml: YAML });
  await call('/api/v1/projects/exec', { lab: LAB, action: 'start' });
  await waitFor(async () => (await call('/api/v1/projects/status', { lab: LAB })).running === 1, 'h1 to run', 30_000);
});

after(async () => {
  if (!agent) return;
  await agent.call('POST', '/api/v1/projects/destroy', { lab: LAB }, token);
  await agent.stop();
});

test(
  'a host console printing 300 MB to a client that reads nothing: the agent stays bounded and drops the client',
  { timeout: 120_000 },
  async () => {
    const { ticket } = await call('/api/v1/console/attach', { lab: LAB, node: 'h1' });
    const stream = await openNonReadingStream(running(), token, ticket);
    const before = rss();
    stream.write("head -c 300000000 /dev/zero | tr '\\0' x\r");
    // Not reading for longer than a client may stay behind (the program is paused meanwhile).
    await assertGrowthBounded(rss, before, GROWTH_BOUND_MiB, (STALLED_DROP_MS + 5_000) / 50, 50);
    // Reading again, the client finds a bounded amount, then the end: it stayed behind too long and was dropped.
    await assertDroppedAfterBoundedRead(stream, RECEIVED_BOUND_MiB);

    // The node's console still answers.
    const output = await call('/api/v1/console/exec', { lab: LAB, node: 'h1', command: 'echo still-here' });
    assert.match(output.output, /still-here/);
  },
);

test('console exec of a NUL or a 200 KB command on a real host is 400 invalid_request, not 500', async () => {
  for (const command of ['echo a\u0000b', `echo ${'x'.repeat(200 * 1024)}`]) {
    const reply = await running().call('POST', '/api/v1/console/exec', { lab: LAB, node: 'h1', command }, token);
    assert.equal(reply.status, 400, JSON.stringify(reply.body).slice(0, 300));
    assert.equal(reply.body.code, 'invalid_request');
    assert.match(reply.body.error ?? '', /control character|bytes long/);
  }
});
