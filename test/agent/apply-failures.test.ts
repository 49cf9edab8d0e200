/**
 * Writes that fail part-way through a push leave a consistent lab: what only adds runs before
 * any delete, a link deleted to make way is put back when its replacement fails, and the error
 * says which objects changed. Against the simulated emulator (its session expiring mid-push) and
 * the fake EVE-NG server (refusing a chosen request).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmuError, type EmulatorClient } from '../../agent/emulator/backend';
import { SimulatedEmulator } from '../../agent/emulator/simulated/simulated-emulator';
import { applyChanges } from '../../agent/domain/apply';
import { journalFile } from '../../agent/domain/apply-journal';
import { diffToEmulator } from '../../agent/domain/diff';
import { observedTopology } from '../../agent/domain/observed';
import { makeLink, type TopoNode, type Topology } from '../../agent/domain/topology';
import { ApplyStopped } from '../../agent/domain/domain-error';
import { waitFor, type Reply, type TestAgent, withTestAgent } from '../support/agent';
import type { FakeEveServer } from '../eveng/fake-server';

/** a -- b -- c, on two-port Linux nodes. */
function lab(name: string, extra: { nodes?: string; links?: string; aRam?: number } = {}): string {
  return [
    `name: ${name}`,
    'defaults:',
    '  template: linux',
    '  ethernet: 2',
    'nodes:',
    `  a: {${extra.aRam ? ` ram: ${extra.aRam}` : ''} }`,
    '  b: {}',
    '  c: {}',
    ...(extra.nodes ? [extra.nodes] : []),
    'links:',
    '  - endpoints: [a:e0, b:e0]',
    extra.links ?? '  - endpoints: [b:e1, c:e0]',
    '',
  ].join('\n');
}

/** The same lab with a's RAM changed, node d added and b:e1 moved from c to d. */
function changed(name: string, more = ''): string {
  return lab(name, { aRam: 2048, nodes: `  d: {}\n${more}`, links: '  - endpoints: [b:e1, d:e0]' });
}

async function links(agent: TestAgent, token: string, yaml: string): Promise<string[]> {
  const reply = await agent.call('POST', '/api/v1/projects/inspect', { yaml, refresh: true }, token);
  return (reply.body.data.links as { name?: string; a?: string; b?: string }[])
    .map((l) => l.name ?? `${l.a} -- ${l.b}`)
    .sort();
}

function names(actions: { op: string; kind: string; name: string }[]): string[] {
  return actions.map((a) => `${a.op} ${a.kind} ${a.name}`).sort();
}

function failedPush(reply: Reply): { applied: string[]; failed: string; restored: string[]; notApplied: number } {
  assert.equal(reply.body.ok, false, JSON.stringify(reply.body));
  const data = reply.body.data as {
    applied: { op: string; kind: string; name: string }[];
    failed?: { op: string; kind: string; name: string };
    restored: { op: string; kind: string; name: string }[];
    not_applied: number;
  };
  assert.ok(data, `the error carries what changed: ${JSON.stringify(reply.body)}`);
  return {
    applied: names(data.applied),
    failed: data.failed ? names([data.failed])[0] : '',
    restored: names(data.restored),
    notApplied: data.not_applied,
  };
}

test('simulated: a push cut short by the emulator (session expired) has deleted nothing, and says what it made', async () => {
  await withTestAgent({ writeDelayMs: 50 }, async (agent) => {
    let token = await agent.login();
    const base = lab('cutshort');
    const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml: base }, token);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    const before = await links(agent, token, base);
    assert.deepEqual(before, ['a:e0 -- b:e0', 'b:e1 -- c:e0']);

    // 64 more nodes: eight rounds of the simulated emulator's eight writes at once, about 0.4 s.
    const more = Array.from({ length: 64 }, (_, i) => `  x${i}: {}`).join('\n');
    const file = journalFile(agent.dataDir, deployed.body.data.lab as string);
    const pushing = agent.call('POST', '/api/v1/projects/reconcile', { yaml: changed('cutshort', more) }, token);
    await waitFor(async () => {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { done: number }).done >= 8;
      } catch {
        return false;
      }
    }, 'the journal to show 8 steps done');
    agent.expireEmulatorSession();
    const reply = await pushing;
    assert.equal(reply.body.code, 'expired_emu_session', JSON.stringify(reply.body));
    const outcome = failedPush(reply);
    assert.ok(outcome.applied.length >= 8, `it made 8 or more objects: ${outcome.applied.join(', ')}`);
    assert.ok(
      outcome.applied.every((a) => !a.startsWith('delete')),
      `nothing was deleted: ${outcome.applied.join(', ')}`,
    );
    assert.ok(outcome.notApplied > 0);
    assert.match(reply.body.error ?? '', /Changed before it stopped: [+~] node .*; plan again to see what is left\./);

    token = await agent.login();
    assert.deepEqual(await links(agent, token, base), before, 'every link is still there');
    const status = await agent.call('POST', '/api/v1/projects/status', { yaml: base }, token);
    assert.equal(status.body.data.locked, false, 'a clean failure leaves no mid-apply mark');
    // The next push makes the rest.
    const again = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: changed('cutshort', more) }, token);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(await links(agent, token, base), ['a:e0 -- b:e0', 'b:e1 -- d:e0']);
  });
});

/** Runs `body` with an agent on the fake EVE-NG server (told by the test what to refuse) and a token of the agent. */
function onFakeEve(body: (agent: TestAgent, fake: FakeEveServer, token: string) => Promise<void>): Promise<void> {
  return withTestAgent({ emulator: 'eve-ng' }, async (agent) => {
    const fake = agent.fakeEve;
    assert.ok(fake, 'the test agent runs against the fake EVE-NG server');
    await body(agent, fake, await agent.login());
  });
}

test('EVE-NG: a node edit refused mid-push fails before any link is detached', async () => {
  await onFakeEve(async (agent, fake, token) => {
    const base = lab('refusededit');
    assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml: base }, token)).status, 200);
    const before = await links(agent, token, base);

    // EVE-NG refuses the edit of a (as it refused one-field edits with 20026).
    fake.failNext(
      (method, path, body) => method === 'PUT' && /\/nodes\/\d+$/.test(path) && body.name === 'a',
      'Cannot edit node in the selected lab (20026).',
    );
    const reply = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: changed('refusededit') }, token);
    assert.equal(reply.status, 403, JSON.stringify(reply.body));
    const outcome = failedPush(reply);
    assert.equal(outcome.failed, 'update node a');
    assert.ok(
      outcome.applied.every((a) => !a.startsWith('delete')),
      `nothing was deleted: ${outcome.applied.join(', ')}`,
    );
    assert.match(reply.body.error ?? '', /20026/);
    assert.deepEqual(await links(agent, token, base), before, 'b:e1 is still linked to c');
  });
});

test('EVE-NG: when the link onto a freed interface fails, the link deleted to make way is put back', async () => {
  await onFakeEve(async (agent, fake, token) => {
    const base = lab('putback');
    const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml: base }, token);
    assert.equal(deployed.status, 200);
    const path = deployed.body.data.lab as string;

    // EVE-NG refuses to attach d's interface: the new link b:e1 -- d:e0 cannot be made.
    const nodeId = (name: string) => fake.labState(path)?.nodes.find((n) => n.name === name)?.id;
    fake.failNext((method, url) => {
      const id = /\/nodes\/(\d+)\/interfaces$/.exec(url)?.[1];
      return method === 'PUT' && id !== undefined && Number(id) === nodeId('d');
    }, 'Failed to save interface (20034).');
    const reply = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: changed('putback') }, token);
    const outcome = failedPush(reply);
    assert.equal(outcome.failed, 'create link b:e1 -- d:e0');
    assert.deepEqual(outcome.restored, ['delete link b:e1 -- c:e0']);
    assert.deepEqual(outcome.applied, ['create node d', 'update node a'], 'what changed (and stayed changed)');
    assert.match(reply.body.error ?? '', /Put back: - link b:e1 -- c:e0\./);
    assert.deepEqual(await links(agent, token, base), ['a:e0 -- b:e0', 'b:e1 -- c:e0'], 'the old link is back');

    // Nothing is left half-made: the plan shows exactly the link still to move.
    const plan = (await agent.call('POST', '/api/v1/projects/plan', { yaml: changed('putback') }, token)).body.data;
    assert.deepEqual(names(plan.actions), ['create link b:e1 -- d:e0', 'delete link b:e1 -- c:e0'], plan.text);
  });
});

/** Node a (vIOS, with a startup config) linked to b; `replaced` makes a an IOL node, which EVE-NG cannot edit in place. */
function replacedLab(replaced: boolean): string {
  return [
    'name: replaced',
    'nodes:',
    replaced
      ? '  a: { template: iol, image: i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin, ethernet: 4, config: a.cfg }'
      : '  a: { template: vios, image: vios-adventerprisek9-m.SPA.159-3.M6, config: a.cfg }',
    '  b: { template: linux, ethernet: 2 }',
    'links:',
    `  - endpoints: [${replaced ? 'a:e0/0' : 'a:Gi0/0'}, b:e0]`,
    '',
  ].join('\n');
}

test('EVE-NG: a replaced node whose new copy is refused comes back with its id, template, config and link', async () => {
  await onFakeEve(async (agent, fake, token) => {
    const files = { 'a.cfg': 'hostname a\n!\nend\n' };
    const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml: replacedLab(false), files }, token);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    const path = deployed.body.data.lab as string;
    const nodeA = () => fake.labState(path)?.nodes.find((n) => n.name === 'a');
    const before = nodeA();
    assert.ok(before);
    const configOf = (id: number) => fake.labState(path)?.configs[String(id)];
    const configBefore = configOf(before.id);
    assert.match(configBefore ?? '', /hostname a/);

    // EVE-NG refuses the IOL copy (as it refuses a node whose image is missing).
    fake.failNext(
      (method, url, body) => method === 'POST' && /\/nodes$/.test(url) && body.template === 'iol',
      'Failed to create node (20022).',
    );
    const reply = await agent.call('POST', '/api/v1/projects/reconcile', { yaml: replacedLab(true), files }, token);
    const outcome = failedPush(reply);
    assert.equal(outcome.failed, 'create node a');
    assert.deepEqual(outcome.restored, ['delete link a:Gi0/0 -- b:e0', 'delete node a']);
    assert.deepEqual(outcome.applied, [], 'nothing else stayed changed');
    assert.match(reply.body.error ?? '', /20022.*Put back: - node a, - link a:Gi0\/0 -- b:e0\./s);

    const after = nodeA();
    assert.ok(after, 'node a is in the lab again');
    assert.deepEqual(
      [after.id, after.template, after.image, after.config, configOf(after.id)],
      [before.id, 'vios', before.image, '1', configBefore],
      'same id, template, image and enabled startup config',
    );
    assert.deepEqual(await links(agent, token, replacedLab(false)), ['a:Gi0/0 -- b:e0'], 'its link is back');
    const plan = await agent.call('POST', '/api/v1/projects/plan', { yaml: replacedLab(false), files }, token);
    assert.deepEqual(plan.body.data.summary, { create: 0, update: 0, delete: 0, unchanged: 3 }, plan.body.data.text);
  });
});

test('simulated: a replaced node whose new copy is refused comes back with its settings and links', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'apply-replace-'));
  const emu = new SimulatedEmulator({ dataDir, clock: Date.now, bootMs: 0, writeDelayMs: 0, log: () => undefined });
  try {
    const simulated = await emu.connect();
    // The emulator refuses the new copy of `a` (as an emulator refuses a node it cannot make).
    const client: EmulatorClient = Object.assign(Object.create(simulated) as EmulatorClient, {
      addNode: (path: string, spec: Parameters<EmulatorClient['addNode']>[1]) =>
        spec.template === 'vpcs'
          ? Promise.reject(new EmuError('refused', 'No such image.'))
          : simulated.addNode(path, spec),
    });
    const node = (name: string, template: string): TopoNode => ({
      name,
      template,
      image: template === 'linux' ? 'linux-ubuntu-22.04-server' : '',
      icon: 'Server.png',
      cpu: 1,
      ram: 1024,
      ethernet: 2,
      console: 'telnet',
      position: { x: name === 'a' ? 100 : 300, y: 100 },
    });
    const topology = (aTemplate: string): Topology => {
      const links = [makeLink({ node: 'a', index: 0, iface: 'e0' }, { node: 'b', index: 0, iface: 'e0' })];
      return {
        name: 'replaced',
        nodes: new Map([
          ['a', node('a', aTemplate)],
          ['b', node('b', 'linux')],
        ]),
        networks: new Map(),
        links: new Map(links.map((l) => [l.name, l])),
      };
    };
    const path = '/replaced.unl';
    const signal = new AbortController().signal;
    const first = diffToEmulator(topology('linux'), undefined, false);
    await applyChanges({
      client,
      lab: path,
      changes: first.changes,
      desired: topology('linux'),
      observed: undefined,
      signal,
    });
    const read = async () => observedTopology((await client.getLab(path)) ?? assert.fail('the lab is there'));
    const before = await read();

    const desired = topology('vpcs');
    const diff = diffToEmulator(desired, before, false);
    const failure = await applyChanges({
      client,
      lab: path,
      changes: diff.changes,
      desired,
      observed: before,
      signal,
    }).then(
      () => assert.fail('the apply fails'),
      (e: unknown) => e,
    );
    assert.ok(failure instanceof ApplyStopped, String(failure));
    const data = failure.outcome as {
      restored: { op: string; kind: string; name: string }[];
      failed: { name: string };
    };
    assert.equal(data.failed.name, 'a');
    assert.deepEqual(names(data.restored), ['delete link a:e0 -- b:e0', 'delete node a']);
    const after = await read();
    assert.deepEqual(after.nodes.get('a'), before.nodes.get('a'), 'template, image, settings and place as before');
    assert.deepEqual([...after.links.keys()], [...before.links.keys()], 'its link is back');
    assert.deepEqual(diffToEmulator(topology('linux'), after, false).changes, [], 'the lab is as it was');
  } finally {
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
