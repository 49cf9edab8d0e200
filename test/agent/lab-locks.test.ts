import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { chainLab, makeDataDir, startTestAgent, type TestAgent, waitFor, withTestAgent } from '../support/agent';

/**
 * Nodes of the labs these tests deploy, at 5 ms per emulator write: enough that the node stage
 * alone takes about half a second even with the simulated emulator's 8 writes at once.
 */
const NODES = 800;

test('while a deploy is in flight, other long operations on that lab get 409 lab_busy; reads still work', async () => {
  await withTestAgent({ writeDelayMs: 5 }, async (agent) => {
    const token = await agent.login();
    const yaml = chainLab('busy', NODES);
    const deploying = agent.call('POST', '/api/v1/projects/deploy', { yaml }, token);
    await waitFor(
      async () => (await agent.call('POST', '/api/v1/projects/status', { yaml }, token)).body.data?.exists === true,
      'the lab to appear',
    );

    for (const [path, body] of [
      ['/api/v1/projects/deploy', { yaml, replace: true }],
      ['/api/v1/projects/reconcile', { yaml }],
      ['/api/v1/projects/destroy', { yaml }],
      ['/api/v1/projects/exec', { yaml, action: 'start' }],
    ] as const) {
      const reply = await agent.call('POST', path, body, token);
      assert.equal(reply.status, 409, path);
      assert.equal(reply.body.code, 'lab_busy', path);
    }
    const status = await agent.call('POST', '/api/v1/projects/status', { yaml }, token);
    assert.equal(status.status, 200);
    assert.ok(status.body.data.total < NODES, 'status saw the lab half-built');

    // Another lab is not affected.
    const other = await agent.call('POST', '/api/v1/projects/import', { lab: '/examples/campus.unl' }, token);
    assert.equal(other.status, 200);

    const deployed = await deploying;
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    assert.equal(deployed.body.data.nodes, NODES);
    assert.equal(deployed.body.data.links, NODES - 1);
    // Once it is done, the lab is free again.
    const exec = await agent.call('POST', '/api/v1/projects/exec', { yaml, action: 'start' }, token);
    assert.equal(exec.status, 200);
  });
});

/** Starts a slow deploy and stops the agent once a few nodes exist, as a crash mid-apply would. */
async function interruptDeploy(dataDir: string, yaml: string): Promise<void> {
  const first = await startTestAgent({ dataDir, writeDelayMs: 5 });
  const token = await first.login();
  const deploying = first.call('POST', '/api/v1/projects/deploy', { yaml }, token).catch(() => undefined);
  await waitFor(
    async () => ((await first.call('POST', '/api/v1/projects/status', { yaml }, token)).body.data?.total ?? 0) > 3,
    'nodes to appear',
  );
  await first.stop();
  await deploying;
}

/** Runs `body` on a fresh data directory whose agent was stopped mid-deploy of a chain lab (`yaml`); the directory goes after. */
async function afterInterruptedDeploy(name: string, body: (dataDir: string, yaml: string) => Promise<void>) {
  const dataDir = makeDataDir();
  try {
    const yaml = chainLab(name, NODES);
    await interruptDeploy(dataDir, yaml);
    await body(dataDir, yaml);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('an agent stopped mid-deploy: exec and pull are refused (423) until a push finishes the deploy', () =>
  afterInterruptedDeploy('interrupted', async (dataDir, yaml) => {
    const second = await startTestAgent({ dataDir });
    try {
      const again = await second.login();
      const status = await second.call('POST', '/api/v1/projects/status', { yaml }, again);
      assert.equal(status.body.data.exists, true);
      assert.equal(status.body.data.locked, true);
      assert.ok(status.body.data.total < NODES, 'the apply really was interrupted');

      for (const [path, body] of [
        ['/api/v1/projects/exec', { yaml, action: 'start' }],
        ['/api/v1/projects/reconcile', { yaml, direction: 'from_emu' }],
      ] as const) {
        const reply = await second.call('POST', path, body, again);
        assert.equal(reply.status, 423, path);
        assert.equal(reply.body.code, 'lab_locked_mid_apply', path);
        assert.match(reply.body.error ?? '', /The deploy of lab .* was interrupted.*Push the document/, path);
      }
      // A deploy without replace still meets an existing lab, and says how to finish it.
      const deploy = await second.call('POST', '/api/v1/projects/deploy', { yaml }, again);
      assert.equal(deploy.status, 409);
      assert.equal(deploy.body.code, 'lab_exists');
      assert.match(deploy.body.error ?? '', /as an interrupted deploy left it\. Push the document/);

      const plan = await second.call('POST', '/api/v1/projects/plan', { yaml }, again);
      assert.equal(plan.body.data.locked, false);
      assert.equal(plan.body.data.applicable, true);
      assert.equal(plan.body.data.summary.delete, 0);
      const pushed = await second.call('POST', '/api/v1/projects/reconcile', { yaml }, again);
      assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
      const done = await second.call('POST', '/api/v1/projects/status', { yaml }, again);
      assert.equal(done.body.data.total, NODES);
      assert.equal(done.body.data.locked, false);
      const exec = await second.call('POST', '/api/v1/projects/exec', { yaml, action: 'stop' }, again);
      assert.equal(exec.status, 200);
    } finally {
      await second.close();
    }

    // The push cleared the mark for good: the next run starts with the lab free.
    await withTestAgent({ dataDir }, async (third) => {
      const t = await third.login();
      const plain = await third.call('POST', '/api/v1/projects/exec', { yaml, action: 'start' }, t);
      assert.equal(plain.status, 200, 'the push cleared the mark for good');
      const pull = await third.call('POST', '/api/v1/projects/reconcile', { yaml, direction: 'from_emu' }, t);
      assert.equal(pull.status, 200);
    });
  }));

/** Runs `body` on the next agent over the data directory of an interrupted deploy, logged in, stopped after. */
function nextAgentAfterInterruptedDeploy(
  name: string,
  body: (second: TestAgent, token: string, yaml: string) => Promise<void>,
): Promise<void> {
  return afterInterruptedDeploy(name, (dataDir, yaml) =>
    withTestAgent({ dataDir }, async (second) => body(second, await second.login(), yaml)),
  );
}

test('deploy with replace also clears an interrupted apply', () =>
  nextAgentAfterInterruptedDeploy('replaced', async (second, t, yaml) => {
    const rebuilt = await second.call('POST', '/api/v1/projects/deploy', { yaml, replace: true }, t);
    assert.equal(rebuilt.status, 200, JSON.stringify(rebuilt.body));
    assert.equal(rebuilt.body.data.nodes, NODES);
    const exec = await second.call('POST', '/api/v1/projects/exec', { yaml, action: 'stop' }, t);
    assert.equal(exec.status, 200);
  }));

test('destroy clears an interrupted apply', () =>
  nextAgentAfterInterruptedDeploy('halfway', async (second, t, yaml) => {
    assert.equal(
      (await second.call('POST', '/api/v1/projects/exec', { yaml, action: 'start' }, t)).body.code,
      'lab_locked_mid_apply',
    );
    const destroyed = await second.call('POST', '/api/v1/projects/destroy', { yaml }, t);
    assert.equal(destroyed.status, 200);
    assert.equal(destroyed.body.data.status, 'destroyed');
    const deployed = await second.call('POST', '/api/v1/projects/deploy', { yaml }, t);
    assert.equal(deployed.status, 200);
  }));

test('a lab locked in the emulator is readable but refuses changes with 423 lab_locked', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    const lab = '/examples/locked.unl';
    const status = await agent.call('POST', '/api/v1/projects/status', { lab }, token);
    assert.equal(status.body.data.locked, true);
    for (const [path, body] of [
      ['/api/v1/projects/exec', { lab, action: 'start' }],
      ['/api/v1/projects/import', { lab }],
      ['/api/v1/projects/destroy', { lab }],
      ['/api/v1/projects/deploy', { lab, yaml: 'name: locked\nnodes:\n  r1:\n    template: vios\n', replace: true }],
    ] as const) {
      const reply = await agent.call('POST', path, body, token);
      assert.equal(reply.status, 423, path);
      assert.equal(reply.body.code, 'lab_locked', path);
    }
  });
});
