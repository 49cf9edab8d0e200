/**
 * The Linux emulator end to end: the real agent over real HTTPS deploys the
 * sample OSPF lab into real network namespaces, FRR forms adjacencies, hosts
 * ping across the routers, consoles are real vtysh sessions, and every kernel
 * object and process is gone after destroy and shutdown.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentClient } from '../../common/api/client';
import { openConsole } from '../../common/api/client';
import type { BulkResult } from '../../common/api/contract';
import { attachTelnet } from '../../common/telnet';
import { parseLab } from '../../common/lab/parse/parse';
import { validateLab } from '../../common/lab/rules/validate';
import { startTestAgent, type TestAgent } from '../support/agent';
import { eventually, namespacesOf, ospfSample, prefixOf, processesOf, requireLinuxLabs } from './support';

let agent: TestAgent | undefined;
let client: AgentClient;
let prefix = '';
const sample = ospfSample();
let state: unknown;
const payload = () => ({ ...sample, state });

before(async () => {
  await requireLinuxLabs();
  agent = await startTestAgent({ emulator: 'linux' });
  prefix = prefixOf(agent.dataDir);
  client = await agent.loggedIn();
});

after(async () => {
  if (!agent) return;
  await agent.stop();
  // Shutdown removes every namespace and process of the agent.
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(processesOf(prefix), []);
});

async function run(node: string, command: string) {
  return client.execConsole({ ...payload(), node, command, timeout_ms: 20_000 });
}

async function bulk(action: 'start' | 'stop' | 'wipe', node?: string, stopmode?: 0 | 1 | 2 | 3): Promise<BulkResult> {
  return client.execProject({
    ...payload(),
    action,
    ...(node ? { node } : {}),
    ...(stopmode !== undefined ? { stopmode } : {}),
  });
}

test('the agent fronts the Linux emulator and its catalogue comes from this machine', async () => {
  assert.match(agent?.running.emulator ?? '', /^linux \(network namespaces, FRRouting \d/);
  const caps = await client.getCapabilities();
  assert.equal(caps.emuReachable, true);
  assert.match(caps.emuDescription ?? '', /^Linux network namespaces \(FRRouting \d/);
  const { templates } = await client.listTemplates({});
  assert.deepEqual(templates?.map((t) => t.id).sort(), ['frr', 'linux', 'switch']);
  const frr = await client.getTemplate({ id: 'frr' });
  assert.match(JSON.stringify(frr), /frr-\d+\.\d+/);
  const attributes = await client.listTemplateAttributes({ id: 'frr' });
  assert.match(JSON.stringify(attributes), /ospfd/);
});

test('the sample passes local validation and the agent validate', async () => {
  assert.deepEqual(
    validateLab(parseLab(sample.yaml)).filter((d) => d.severity === 'error'),
    [],
  );
  const validated = await client.validateProject(sample);
  assert.equal(validated.status, 'valid', JSON.stringify(validated.diagnostics));
});

test('deploy makes one namespace per node plus the fabric, with eth interfaces wired as the document says', async () => {
  const deployed = await client.deployProject(sample);
  state = deployed.state;
  assert.equal(deployed.nodes, 5);
  assert.equal(deployed.links, 4);
  assert.equal((await namespacesOf(prefix)).length, 6);
  const inspected = await client.inspectProject({ ...payload(), refresh: true });
  const r2 = inspected.nodes?.find((n) => n.name === 'r2');
  assert.deepEqual(
    r2?.interfaces?.map((i) => [i.name, i.peer]),
    [
      ['eth0', 'r1:eth1'],
      ['eth1', 'r3:eth0'],
    ],
  );
  const plan = await client.planProject(payload());
  assert.match(plan.text ?? '', /No changes/);
});

test('start boots every node; routers form OSPF adjacencies (Full) and h1 pings h2 across them', async () => {
  const started = await bulk('start');
  assert.equal(started.started, 5, JSON.stringify(started));
  const status = await client.getProjectStatus(payload());
  assert.equal(status.running, 5);
  const neighbors = await eventually(
    () => run('r2', 'show ip ospf neighbor'),
    (r) => (r.output?.match(/Full/g) ?? []).length === 2,
    'r2 to see r1 and r3 as Full neighbours',
  );
  assert.match(neighbors.output ?? '', /10\.255\.0\.1\s+\d+\s+Full/);
  // As long as the sample's own tests wait (60 s): routes follow the adjacencies, later on a loaded machine.
  const ping = await eventually(
    () => run('h1', 'ping -c 1 -W 1 10.0.2.10'),
    (r) => /1 received/.test(r.output ?? ''),
    'h1 to ping h2 across r1, r2 and r3',
    60_000,
    routingState,
  );
  assert.match(ping.output ?? '', /ttl=61/); // three routers on the way
});

/** What each node has of the path from h1 to h2: its links, addresses, neighbours and routes. */
async function routingState(): Promise<string> {
  const reads = [
    ...['h1', 'h2'].map((node) => [node, 'ip -br link; ip -br address; ip route'] as const),
    ...['r1', 'r2', 'r3'].flatMap((node) =>
      ['show interface brief', 'show ip ospf neighbor', 'show ip route'].map((command) => [node, command] as const),
    ),
  ];
  const many = await client.execConsoleMany({
    ...payload(),
    targets: reads.map(([node, command]) => ({ node, command })),
  });
  return (many.results ?? []).map((r) => `--- ${r.node}: ${r.command}\n${r.output ?? r.error ?? ''}`).join('\n');
}

test('console exec and exec-many return the real output and duration', async () => {
  const version = await run('r1', 'show version');
  assert.match(version.output ?? '', /FRRouting \d+\.\d+/);
  assert.ok((version.duration_ms ?? -1) >= 0);
  const many = await client.execConsoleMany({
    ...payload(),
    targets: [
      { node: 'r3', command: 'show ip route 10.0.1.0/24' },
      { node: 'h2', command: 'ip -br address show dev eth0' },
    ],
  });
  assert.match(many.results?.[0].output ?? '', /Known via "ospf"/);
  assert.match(many.results?.[1].output ?? '', /10\.0\.2\.10\/24/);
  const bad = await run('r1', 'show no-such-thing');
  assert.match(bad.output ?? '', /Unknown command|% /);
});

test('a console session is a real vtysh: ? lists choices, Tab completes, Ctrl-C clears, config changes stick', async () => {
  const { socket } = await openConsole(client, { ...payload(), node: 'r1' });
  let output = '';
  const telnet = attachTelnet(socket, { onText: (t) => (output += t), onClose: () => undefined });
  const raw = (text: string) => socket.write(Buffer.from(text, 'utf8'));
  try {
    const seen = (pattern: RegExp, what: string) =>
      eventually(
        () => Promise.resolve(output),
        (o) => pattern.test(o),
        what,
        10_000,
      );
    telnet.send('\n');
    await seen(/r1# ?$/, 'the r1# prompt');
    raw('show ip ospf ?');
    await seen(/neighbor\s+Neighbor list/, 'the help that ? lists');
    output = '';
    raw('\x03');
    await seen(/r1# ?$/, 'the prompt again after Ctrl-C');
    output = '';
    raw('show ip ospf neigh\t');
    await seen(/show ip ospf neighbor $/, 'Tab completing "neighbor"');
    raw('\r');
    await seen(/Full[\s\S]*r1# ?$/, 'the neighbour table');
    for (const line of ['configure terminal', 'interface eth1', 'description changed-on-the-console', 'end']) {
      output = '';
      telnet.send(`${line}\n`);
      await seen(/r1(\([\w-]+\))?# ?$/, `the prompt after "${line}"`);
    }
  } finally {
    telnet.close();
  }
  const config = await run('r1', 'show running-config');
  assert.match(config.output ?? '', /description changed-on-the-console/);
});

test('reconcile from_emu returns the running config of a router changed on its console as its config file', async () => {
  const plan = await client.planProject({ ...payload(), direction: 'from_emu' });
  assert.match(plan.text ?? '', /r1/);
  const pulled = await client.reconcileProject({ ...payload(), direction: 'from_emu' });
  assert.equal(pulled.changed, true);
  assert.match(pulled.files?.['configs/r1.conf'] ?? '', /description changed-on-the-console/);
  assert.equal(
    pulled.files?.['configs/r2.conf'],
    sample.files['configs/r2.conf'],
    'an unchanged router keeps its file',
  );
  // The document keeps its nodes and links (only a config file changed).
  const before = parseLab(sample.yaml);
  const after = parseLab(pulled.yaml ?? '');
  assert.deepEqual(
    after.nodes.map((n) => n.name),
    before.nodes.map((n) => n.name),
  );
  assert.equal(after.links.length, before.links.length);
});

test('reconcile to_emu adds a node with its namespace, and prune removes it again', async () => {
  // r2:eth1 moves from r3 to r4: r3's link goes, r4's comes.
  const withR4 = sample.yaml
    .replace('\nlinks:\n', '  r4:\n    position: {x: 380, y: 360}\n\nlinks:\n')
    .replace('[r2:eth1, r3:eth0]', '[r2:eth1, r4:eth0]');
  assert.match(withR4, /r4:\n[\s\S]*\[r2:eth1, r4:eth0\]/);
  const applied = await client.reconcileProject({ ...payload(), yaml: withR4, prune: true });
  assert.equal(applied.changed, true);
  assert.equal((await namespacesOf(prefix)).length, 7);
  const inspected = await client.inspectProject({ ...payload(), yaml: withR4, refresh: true });
  assert.equal(inspected.nodes?.find((n) => n.name === 'r2')?.interfaces?.[1].peer, 'r4:eth0');
  const back = await client.reconcileProject({ ...payload(), prune: true });
  assert.equal(back.changed, true);
  assert.equal((await namespacesOf(prefix)).length, 6);
  const again = await client.inspectProject({ ...payload(), refresh: true });
  assert.equal(again.nodes?.find((n) => n.name === 'r2')?.interfaces?.[1].peer, 'r3:eth0');
});

test('stop modes: hibernate is refused; graceful saves the running config; power off and auto stop', async () => {
  const hibernate = await bulk('stop', 'r3', 2);
  assert.equal(hibernate.failed, 1);
  const graceful = await bulk('stop', 'r1', 0);
  assert.equal(graceful.stopped, 1);
  const powerOff = await bulk('stop', 'r2', 1);
  assert.equal(powerOff.stopped, 1);
  const auto = await bulk('stop', 'r3', 3);
  assert.equal(auto.stopped, 1);
  const again = await bulk('stop', 'r3', 1);
  assert.equal(again.already_stopped, 1);
  const status = await client.getProjectStatus(payload());
  assert.deepEqual(
    status.nodes?.filter((n) => n.state === 'running').map((n) => n.name),
    ['h1', 'h2'],
  );
  // Stopped routers run no process (their consoles closed too); their namespaces remain, interfaces down.
  assert.deepEqual(processesOf(prefix), []);
  assert.equal((await namespacesOf(prefix)).length, 6);
  const restarted = await bulk('start', 'r1');
  assert.equal(restarted.started, 1);
  assert.match(
    (await run('r1', 'show running-config')).output ?? '',
    /changed-on-the-console/,
    'r1 booted from what it saved',
  );
});

test('wipe drops the saved state: the router boots from its startup config again', async () => {
  const wiped = await bulk('wipe', 'r1');
  assert.equal(wiped.wiped, 1);
  assert.equal((await client.getProjectStatus(payload())).nodes?.find((n) => n.name === 'r1')?.state, 'stopped');
  await bulk('start', 'r1');
  assert.doesNotMatch((await run('r1', 'show running-config')).output ?? '', /changed-on-the-console/);
  const plan = await client.planProject(payload());
  assert.match(plan.text ?? '', /No changes/);
});

test('destroy removes every namespace and process of the lab', async () => {
  const destroyed = await client.destroyProject(payload());
  assert.equal(destroyed.status, 'destroyed');
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(processesOf(prefix), []);
});

test('a host whose startup script fails does not start, and is counted as failed', async () => {
  const lab = {
    yaml: 'name: broken-host\nnodes:\n  h9:\n    template: linux\n    config: h9.sh\n',
    files: { 'h9.sh': 'ip address add 10.9.9.9/24 dev eth0\nexit 3\n' },
  };
  const deployed = await client.deployProject(lab);
  const started = await client.execProject({ ...lab, state: deployed.state, action: 'start' });
  assert.equal(started.failed, 1, JSON.stringify(started));
  assert.equal(started.started, 0);
  const status = await client.getProjectStatus({ ...lab, state: deployed.state });
  assert.equal(status.nodes?.[0].state, 'stopped');
  await client.destroyProject({ ...lab, state: deployed.state });
  assert.deepEqual(await namespacesOf(prefix), []);
});
