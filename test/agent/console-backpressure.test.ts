/**
 * Console streams apply back-pressure: a client that stops reading cannot make
 * the agent hold what its console prints. The built agent runs in its own
 * process, so its memory is its own (read from /proc).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { loginTo, makeDataDir, openNonReadingStream, rawCall, spawnAgent, waitFor } from '../support/agent';
import { assertDroppedAfterBoundedRead, assertGrowthBounded } from '../support/stalled-client';

/** How much the agent may grow behind a client that reads nothing. */
const GROWTH_BOUND_MiB = 48;
/** What such a client may find waiting when it reads again: socket buffers and the console's bound. */
const RECEIVED_BOUND_MiB = 16;
const LAB = '/lab-agent/bp.unl';

test(
  'a console client that stops reading leaves the agent’s memory bounded, and is dropped',
  { timeout: 120_000 },
  async () => {
    const dataDir = makeDataDir();
    const agent = await spawnAgent(dataDir, ['--boot-ms', '10']);
    try {
      const token = await loginTo(agent);
      const call = async (path: string, body: unknown) => {
        const reply = await rawCall(agent.url, agent.certPem, 'POST', path, JSON.stringify(body), token);
        assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.body).slice(0, 300)}`);
        return reply.body.data;
      };
      // A router whose running config is about 100 KB: each `show running-config` prints all of it.
      const config = Array.from({ length: 1000 }, (_, i) => `interface Loopback${i}\n description ${'x'.repeat(80)}\n`);
      await call('/api/v1/projects/deploy', {
        yaml: 'name: bp\nnodes:\n  r1:\n    template: vios\n    config: configs/r1.cfg\n',
        files: { 'configs/r1.cfg': `hostname r1\n${config.join('')}` },
      });
      await call('/api/v1/projects/exec', { lab: LAB, action: 'start' });
      await waitFor(async () => (await call('/api/v1/projects/status', { lab: LAB })).running === 1, 'r1 to run');

      const { ticket } = await call('/api/v1/console/attach', { lab: LAB, node: 'r1' });
      const stream = await openNonReadingStream(agent, token, ticket);
      const before = agent.rss();
      // 3,000 commands that would print about 300 MB, typed by a client that reads none of it.
      stream.write(Buffer.from('show running-config\r'.repeat(3000)));
      await assertGrowthBounded(() => agent.rss(), before, GROWTH_BOUND_MiB, 200, 25);
      // Reading again, the client finds a bounded amount, then the end: the agent dropped it.
      await assertDroppedAfterBoundedRead(stream, RECEIVED_BOUND_MiB);

      // The console and the agent carry on for everyone else.
      const output = await call('/api/v1/console/exec', { lab: LAB, node: 'r1', command: 'show version' });
      assert.match(output.output, /Cisco IOS/);
    } finally {
      agent.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
