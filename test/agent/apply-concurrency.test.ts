import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chainLab, makeDataDir, startTestAgent, type TestAgent, withTestAgent } from '../support/agent';

/** A chain of linux nodes with a network at each end. */
function labWith(nodes: number): string {
  const last = nodes - 1;
  return (
    chainLab('side-by-side', nodes) +
    `  - endpoints: [n0:e0, mgmt]\n  - endpoints: [n${last}:e1, edge]\nnetworks:\n  mgmt: {}\n  edge: {}\n`
  );
}

async function planSummary(agent: TestAgent, token: string, yaml: string): Promise<Record<string, number>> {
  const plan = await agent.call('POST', '/api/v1/projects/plan', { yaml, prune: true }, token);
  assert.equal(plan.status, 200, JSON.stringify(plan.body));
  return plan.body.data.summary as Record<string, number>;
}

test('applies run side by side yet leave the lab exactly as planned, and saved so', async () => {
  const dataDir = makeDataDir();
  try {
    const first = await startTestAgent({ dataDir, writeDelayMs: 2 });
    const token = await first.login();
    const big = labWith(120);
    const deployed = await first.call('POST', '/api/v1/projects/deploy', { yaml: big }, token);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    assert.equal(deployed.body.data.nodes, 120);
    assert.equal(deployed.body.data.links, 121);
    assert.deepEqual(await planSummary(first, token, big), { create: 0, update: 0, delete: 0, unchanged: 243 });

    // Half the nodes go, with their links; the network at the far end moves to the new last node.
    const small = labWith(60);
    const reconciled = await first.call('POST', '/api/v1/projects/reconcile', { yaml: small, prune: true }, token);
    assert.equal(reconciled.status, 200, JSON.stringify(reconciled.body));
    assert.ok(reconciled.body.data.summary.delete > 60, JSON.stringify(reconciled.body.data.summary));
    assert.deepEqual(await planSummary(first, token, small), { create: 0, update: 0, delete: 0, unchanged: 123 });
    await first.stop();

    // What the simulated emulator saved is what it served: a restarted agent plans no change.
    await withTestAgent({ dataDir }, async (second) => {
      const again = await second.login();
      assert.deepEqual(await planSummary(second, again, small), { create: 0, update: 0, delete: 0, unchanged: 123 });
    });
    const saved = JSON.parse(readFileSync(join(dataDir, 'emulator-state.json'), 'utf8')) as {
      labs: { path: string; nodes: { id: number; left: number; top: number }[]; networks: { id: number }[] }[];
    };
    const lab = saved.labs.find((l) => l.path === '/lab-agent/side-by-side.unl');
    assert.ok(lab);
    const distinct = <T>(items: T[]) => new Set(items).size === items.length;
    assert.ok(distinct(lab.nodes.map((n) => n.id)) && distinct(lab.networks.map((n) => n.id)), 'ids are unique');
    // Grid places are handed out in plan order, not in the order concurrent writes happen to finish.
    assert.ok(distinct(lab.nodes.map((n) => `${n.left},${n.top}`)), 'every node has its own place');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
