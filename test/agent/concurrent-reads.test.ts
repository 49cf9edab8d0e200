import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainLab, startTestAgent, type TestAgent } from '../support/agent';

/** Nodes of the lab: enough that one plan or status call costs the agent tens of milliseconds. */
const NODES = 1500;
const AT_ONCE = 10;
/**
 * Ten identical reads at once may take this many times one read; before they were shared they
 * took about ten times (plan 6–9×, status 10–11× on a loaded machine). A status answer carries
 * every node's row, and each of the ten clients is still sent its own: it gets more room.
 */
const MAX_RATIO = { plan: 3, status: 5 };

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** The median time of one call, after a warm-up that also opens a connection for each call made at once. */
async function oneCall(call: () => Promise<unknown>): Promise<number> {
  await Promise.all(Array.from({ length: AT_ONCE }, call));
  const times = [await timed(call), await timed(call), await timed(call)].sort((a, b) => a - b);
  return times[1];
}

async function readsAtOnce(
  agent: TestAgent,
  read: keyof typeof MAX_RATIO,
  body: unknown,
  token: string,
): Promise<string> {
  const path = `/api/v1/projects/${read}`;
  const call = async () => {
    const reply = await agent.call('POST', path, body, token);
    assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
  };
  const single = await oneCall(call);
  // The median of three, as for one call: a single sample swings with whatever else the machine runs.
  const atOnce = () => timed(() => Promise.all(Array.from({ length: AT_ONCE }, call)));
  const together = [await atOnce(), await atOnce(), await atOnce()].sort((a, b) => a - b)[1];
  const ratio = together / single;
  const what = `${AT_ONCE} ${path} at once took ${together.toFixed(0)} ms, one took ${single.toFixed(0)} ms (${ratio.toFixed(1)}×)`;
  assert.ok(ratio < MAX_RATIO[read], what);
  return what;
}

test('plan and status calls on one lab do not queue behind each other: ten at once take about the time of one', async (t) => {
  const agent = await startTestAgent();
  try {
    const token = await agent.login();
    const yaml = chainLab('reads', NODES);
    const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml }, token);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body).slice(0, 300));
    const changed = yaml.replace('  n0:\n    ethernet: 2\n', '  n0:\n    ethernet: 3\n');
    t.diagnostic(await readsAtOnce(agent, 'plan', { yaml: changed }, token));
    t.diagnostic(await readsAtOnce(agent, 'status', { yaml }, token));
  } finally {
    await agent.stop();
  }
});
