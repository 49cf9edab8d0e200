import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type TestAgent, withTestAgent } from '../support/agent';

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

/** A reconcile from the emulator into the client's text of `payload`, which must succeed: its data (the text, `changed`, the files). */
async function pullFromEmu(agent: TestAgent, token: string, payload: Record<string, unknown>) {
  const pulled = await agent.call('POST', '/api/v1/projects/reconcile', { ...payload, direction: 'from_emu' }, token);
  assert.equal(pulled.status, 200, JSON.stringify(pulled.body));
  return pulled.body.data;
}

test("reconcile from_emu edits the client's own text: comments and order stay, only differences change", async () => {
  await withTestAgent({}, async (agent) => {
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
    const { yaml, changed: didChange } = await pullFromEmu(agent, token, {
      yaml: ORIGINAL,
      plan_identity: plan.body.data.plan_identity,
    });
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
    const again = await pullFromEmu(agent, token, { yaml });
    assert.equal(again.changed, false);
    assert.equal(again.yaml, yaml);

    // from_emu makes no writes: the plan identity of a to_emu plan is unchanged by it.
    const before = await agent.call('POST', '/api/v1/projects/plan', { yaml: ORIGINAL }, token);
    await pullFromEmu(agent, token, { yaml: ORIGINAL });
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
  });
});

/** The lines of `after` that differ from `before`, as [line number, before, after]; equal lengths assumed. */
function changedLines(before: string, after: string): [number, string, string][] {
  const a = before.split('\n');
  const b = after.split('\n');
  assert.equal(b.length, a.length, `line count changed:\n${after}`);
  return a.flatMap((line, i): [number, string, string][] => (line === b[i] ? [] : [[i + 1, line, b[i]]]));
}

test('pulling one changed value into the sample lab changes exactly that one line', async () => {
  const samples = join(__dirname, '..', '..', '..', 'samples');
  const yaml = readFileSync(join(samples, 'campus.lab.yaml'), 'utf8');
  const files = Object.fromEntries(
    readdirSync(join(samples, 'configs')).map((f) => [
      `configs/${f}`,
      readFileSync(join(samples, 'configs', f), 'utf8'),
    ]),
  );
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml, files }, token)).status, 200);
    // The live lab's r2 gets more memory (as if changed on the emulator).
    const live = yaml.replace(/( {2}r2:\n(?: {4}.*\n)*? {4}ram: )512/, '$11024');
    assert.notEqual(live, yaml);
    const pushed = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: live, files }, token);
    assert.equal(pushed.status, 200, JSON.stringify(pushed.body));

    const pulled = await pullFromEmu(agent, token, { yaml, files });
    const diff = changedLines(yaml, pulled.yaml);
    assert.deepEqual(diff, [[diff[0]?.[0], '    ram: 512', '    ram: 1024']], JSON.stringify(diff));
    assert.deepEqual(pulled.files, files);
  });
});

test('nodes, networks and links pulled from the emulator are added and removed as whole lines, the rest untouched', async () => {
  const original = `name: lines
description: >-
  A folded description that a re-render
  would put on one line.
nodes:
  r1:
    template: vios    # aligned
    ram: 512          # comments
  r2:
    template: vios
  r3:
    template: vios
networks:
  lan:
    type: bridge
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]   # kept
  - endpoints: [r2:Gi0/1, r3:Gi0/1]
  - endpoints: [r3:Gi0/2, lan]
`;
  const liveText = original
    .replace('  r3:\n    template: vios\n', '  r4:\n    template: linux\n')
    .replace(
      '  - endpoints: [r2:Gi0/1, r3:Gi0/1]\n  - endpoints: [r3:Gi0/2, lan]\n',
      '  - endpoints: [r2:Gi0/1, r4:e0]\n',
    )
    .replace('  lan:\n    type: bridge\n', '  lan:\n    type: bridge\n  wan:\n    type: pnet1\n');
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml: liveText }, token)).status, 200);
    const result: string = (await pullFromEmu(agent, token, { yaml: original })).yaml;
    // Every line of the original that survives is byte for byte the same, in the same order.
    const kept = original.split('\n').filter((line) => result.split('\n').includes(line));
    for (const line of [
      'description: >-',
      '  A folded description that a re-render',
      '    template: vios    # aligned',
      '    ram: 512          # comments',
      '  - endpoints: [r1:Gi0/0, r2:Gi0/0]   # kept',
    ])
      assert.ok(kept.includes(line), `"${line}" changed:\n${result}`);
    assert.ok(!result.includes('r3'), result);
    assert.match(result, /\n {2}r4:\n {4}template: linux\n/);
    assert.match(result, /\n {2}wan:\n {4}type: pnet1\n/);
    assert.match(result, /\n {2}- endpoints: \[r2:Gi0\/1, r4:e0\]\n/);
    assert.deepEqual(parse(result).links.length, 2);
  });
});

test('tabs the lab format reads as text or blank survive a pull byte for byte; a tabbed line set aside refuses it', async () => {
  // A tab after a block scalar's indentation (text), a line of a tab alone and a tab before a comment (blank).
  const tabbed = ORIGINAL.replace('  r2: {}', '  r2:\n    ram: 1024').replace(
    'name: from-emu\n',
    'name: from-emu\n\t\n\t# a tabbed comment\ndescription: |\n  interface eth0\n  \tip address 10.0.0.1/24\n',
  );
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml: tabbed }, token)).status, 200);
    const live = tabbed.replace('    ram: 1024', '    ram: 2048');
    assert.equal((await agent.call('POST', '/api/v1/projects/reconcile', { yaml: live }, token)).status, 200);

    const pulled: string = (await pullFromEmu(agent, token, { yaml: tabbed })).yaml;
    // Only r2's ram line changes; every tabbed line is as it was.
    const diff = changedLines(tabbed, pulled);
    assert.deepEqual(diff, [[diff[0]?.[0], '    ram: 1024', '    ram: 2048']], pulled);

    // A tab in the indentation of a line the lab reads: that line is set aside, the document does not validate,
    // and the agent refuses to write into it rather than render it anew.
    const broken = tabbed.replace('  r1:\n', '  r1:\n\tram: 1024\n');
    const refused = await agent.call(
      'POST',
      '/api/v1/projects/reconcile',
      { yaml: broken, direction: 'from_emu' },
      token,
    );
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.match(JSON.stringify(refused.body), /tab in indentation/);
    assert.equal(refused.body.data?.yaml, undefined);
  });
});
