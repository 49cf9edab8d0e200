import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { startTestAgent } from './harness';

const ORIGINAL = `# Core lab: keep this comment
name: from-emu
defaults:
  template: vios   # every router is a vIOS
nodes:
  r1:
    position: {x: 100, y: 100}
  # r2 is the far end
  r2: {}
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]   # the core link
`;

test("reconcile from_emu edits the client's own text: comments and order stay, only differences change", async () => {
  const agent = await startTestAgent();
  try {
    const token = await agent.login();
    assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml: ORIGINAL }, token)).status, 200);

    // Someone changes the live lab (here through the agent, from another document).
    const changed = ORIGINAL.replace('  r2: {}', '  r2:\n    ram: 2048\n  r3:\n    template: linux').concat(
      '  - endpoints: [r2:Gi0/1, r3:e0]\n',
    );
    const pushed = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: changed }, token);
    assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
    assert.equal(pushed.body.data.summary.create, 2);

    const plan = await agent.call('POST', '/api/v1/projects/plan', { yaml: ORIGINAL, direction: 'from_emu' }, token);
    assert.equal(plan.body.data.direction, 'from_emu');
    assert.match(plan.body.data.plan_identity, /^from_emu:/);
    const pulled = await agent.call(
      'POST',
      '/api/v1/projects/reconcile',
      { yaml: ORIGINAL, direction: 'from_emu', plan_identity: plan.body.data.plan_identity },
      token,
    );
    assert.equal(pulled.status, 200, JSON.stringify(pulled.body));
    const { yaml, changed: didChange } = pulled.body.data;
    assert.equal(didChange, true);
    for (const comment of [
      '# Core lab: keep this comment',
      '# every router is a vIOS',
      '# r2 is the far end',
      '# the core link',
    ]) {
      assert.ok(yaml.includes(comment), `lost "${comment}" in:\n${yaml}`);
    }
    assert.ok(
      yaml.indexOf('name:') < yaml.indexOf('defaults:') && yaml.indexOf('defaults:') < yaml.indexOf('nodes:'),
      'section order kept',
    );
    const data = parse(yaml);
    assert.equal(data.nodes.r2.ram, 2048);
    assert.equal(data.nodes.r3.template, 'linux');
    assert.deepEqual(data.nodes.r1.position, { x: 100, y: 100 });
    assert.equal(data.links.length, 2);

    // The updated document now matches the live lab both ways, and a no-change pull returns the text as is.
    const toEmu = await agent.call('POST', '/api/v1/projects/plan', { yaml }, token);
    assert.equal(
      toEmu.body.data.summary.create + toEmu.body.data.summary.update + toEmu.body.data.summary.delete,
      0,
      toEmu.body.data.text,
    );
    const again = await agent.call('POST', '/api/v1/projects/reconcile', { yaml, direction: 'from_emu' }, token);
    assert.equal(again.body.data.changed, false);
    assert.equal(again.body.data.yaml, yaml);

    // from_emu makes no writes: the plan identity of a to_emu plan is unchanged by it.
    const before = await agent.call('POST', '/api/v1/projects/plan', { yaml: ORIGINAL }, token);
    await agent.call('POST', '/api/v1/projects/reconcile', { yaml: ORIGINAL, direction: 'from_emu' }, token);
    const after = await agent.call(
      'POST',
      '/api/v1/projects/plan',
      { yaml: ORIGINAL, plan_identity: before.body.data.plan_identity },
      token,
    );
    assert.equal(after.status, 200);
    // ...while a to_emu identity is refused for from_emu.
    const crossed = await agent.call(
      'POST',
      '/api/v1/projects/reconcile',
      { yaml: ORIGINAL, direction: 'from_emu', plan_identity: before.body.data.plan_identity },
      token,
    );
    assert.equal(crossed.status, 409);
    assert.equal(crossed.body.code, 'plan_stale');
  } finally {
    await agent.dispose();
  }
});
