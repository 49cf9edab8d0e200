/**
 * The success path of every one of the 28 operations, in the order a user
 * would meet them, against the real reference agent over real HTTPS.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { type AgentClient, openConsole, ticketOf } from '../../common/api/client';
import { OPERATIONS, type BulkResult } from '../../common/api/contract';
import { attachTelnet, DO, IAC, TelnetOption, WILL } from '../../common/telnet';

const { BINARY, ECHO, SGA } = TelnetOption;
import { labYaml, startTestAgent, TEST_USER, type TestAgent } from '../support/agent';

let agent: TestAgent;
let client: AgentClient;
const yaml = labYaml('ops');
const LAB = '/lab-agent/ops.unl';
let state: unknown;
/** Operations this file exercised successfully; the last test checks all 28 are here. */
const covered = new Set<string>();

before(async () => {
  agent = await startTestAgent();
  client = agent.client();
});
after(() => agent.stop());

async function waitUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('getHealth needs no login', async () => {
  const health = await client.getHealth();
  assert.equal(health.status, 'ok');
  assert.equal(health.tls, true);
  covered.add('getHealth');
});

test('login returns a token, which the client keeps; getSession names the user', async () => {
  const login = await client.login(TEST_USER);
  assert.match(login.token ?? '', /^[0-9a-f]{64}$/);
  assert.equal(client.token, login.token);
  assert.equal((await client.getSession()).username, 'lab');
  covered.add('login').add('getSession');
});

test('getCapabilities reports features and project modes', async () => {
  const caps = await client.getCapabilities();
  assert.equal(caps.emuReachable, true);
  assert.equal(caps.features?.console_stream, true);
  assert.equal(caps.projectModes?.imported?.source_mutation, false);
  assert.match(caps.emuDescription ?? '', /EVE-NG (Community|Pro) \d/, 'says what the agent fronts');
  covered.add('getCapabilities');
});

test('templates: list (all and provisioned only), detail, images, attributes', async () => {
  const all = await client.listTemplates();
  const ids = all.templates?.map((t) => t.id) ?? [];
  assert.ok(ids.includes('vios') && ids.includes('xrv9k'));
  const provisioned = await client.listTemplates({ provisioned: 'true' });
  const provisionedIds = provisioned.templates?.map((t) => t.id) ?? [];
  assert.ok(provisionedIds.includes('vios'));
  assert.ok(!provisionedIds.includes('xrv9k'), 'xrv9k is not provisioned');

  const vios = await client.getTemplate({ id: 'vios' });
  assert.equal(vios.id, 'vios');
  assert.ok(vios.images?.some((i) => i.id === 'vios-adventerprisek9-m.SPA.159-3.M6' && i.available));
  const images = await client.listTemplateImages({ id: 'vios' });
  assert.equal(images.template, 'vios');
  assert.ok((images.images?.length ?? 0) > 0);
  const attributes = await client.listTemplateAttributes({ id: 'vios' });
  assert.equal(attributes.template, 'vios');
  assert.ok(Array.isArray(attributes.attributes));
  covered.add('listTemplates').add('getTemplate').add('listTemplateImages').add('listTemplateAttributes');
});

test('network types and icons', async () => {
  const types = await client.listNetworkTypes();
  assert.ok(types.types?.some((t) => t.id === 'bridge'));
  const icons = await client.listIcons();
  assert.ok(icons.icons?.some((i) => i.id === 'Router.png'));
  covered.add('listNetworkTypes').add('listIcons');
});

test('authoring: link-interface completions leave used interfaces out, the preview shows them', async () => {
  const completions = await client.completeLinkInterfaces({ yaml, node: 'r1', excludeUsed: true });
  const names = completions.items?.map((i) => i.name) ?? [];
  assert.ok(names.includes('Gi0/2'));
  assert.ok(!names.includes('Gi0/0'), 'Gi0/0 is used by a link');
  const preview = await client.previewInterfaces({ yaml, node: 'r1' });
  const gi0 = preview.items?.find((i) => i.name === 'Gi0/0');
  assert.equal(gi0?.used, true);
  assert.equal(gi0?.peer, 'r2:Gi0/0');
  covered.add('completeLinkInterfaces').add('previewInterfaces');
});

test('validate, plan, deploy', async () => {
  const validation = await client.validateProject({ yaml });
  assert.equal(validation.status, 'valid', JSON.stringify(validation.diagnostics));
  const plan = await client.planProject({ yaml });
  assert.equal(plan.lab, LAB);
  assert.equal(plan.exists, false);
  assert.ok((plan.summary?.create ?? 0) > 0);
  assert.ok(plan.plan_identity);
  const deploy = await client.deployProject({ yaml, plan_identity: plan.plan_identity });
  assert.equal(deploy.lab, LAB);
  assert.equal(deploy.nodes, 3);
  assert.equal(deploy.links, 3);
  state = deploy.state;
  covered.add('validateProject').add('planProject').add('deployProject');
});

test('status, inspect, open, consoles', async () => {
  const status = await client.getProjectStatus({ yaml, state });
  assert.equal(status.exists, true);
  assert.equal(status.state, 'stopped');
  assert.equal(status.total, 3);
  const inspection = await client.inspectProject({ lab: LAB, refresh: true });
  assert.equal(inspection.exists, true);
  assert.equal(inspection.nodes?.length, 3);
  const opened = await client.openProject({ lab: LAB });
  assert.equal(opened.exists, true);
  assert.ok(opened.url);
  const consoles = await client.listProjectConsoles({ yaml, state });
  assert.deepEqual(consoles.consoles?.map((c) => c.node).sort(), ['r1', 'r2', 'sw1']);
  covered.add('getProjectStatus').add('inspectProject').add('openProject').add('listProjectConsoles');
});

test('execProject starts every node and counts them', async () => {
  const result: BulkResult = await client.execProject({ yaml, state, action: 'start' });
  assert.equal(result.requested, 3);
  assert.equal(result.started, 3);
  await waitUntil(
    () => client.getProjectStatus({ yaml, state }),
    (s) => s.state === 'running',
    'the nodes to boot',
  );
  covered.add('execProject');
});

test('console exec on one node and on many', async () => {
  const one = await client.execConsole({ yaml, state, node: 'r1', command: 'show version' });
  assert.equal(one.node, 'r1');
  assert.match(one.output ?? '', /IOSv/);
  const many = await client.execConsoleMany({
    yaml,
    state,
    targets: [
      { node: 'r2', command: 'show ip interface brief' },
      { node: 'r1', command: 'show version' },
    ],
  });
  assert.deepEqual(
    many.results?.map((r) => [r.node, r.ok]),
    [
      ['r2', true],
      ['r1', true],
    ],
  );
  covered.add('execConsole').add('execConsoleMany');
});

test('attach and stream: the telnet greeting is answered and a command runs', async () => {
  const attach = await client.attachConsole({ yaml, state, node: 'r1' });
  assert.equal(attach.transport, 'emu-telnet');
  const ticket = ticketOf(attach);
  assert.ok(ticket, 'the attach carries a ticket');
  assert.match(ticket, /^[0-9a-f]{64}$/);
  const socket = await client.streamConsole({ ticket });
  let output = '';
  let closed = false;
  const telnet = attachTelnet(socket, { onText: (t) => (output += t), onClose: () => (closed = true) });
  await waitUntil(
    async () => output,
    (o) => o.includes(`\x1b]0;${agent.consoleTitle('ops', 'r1')}\x07`),
    'the console title',
  );
  telnet.send('show version\n');
  await waitUntil(
    async () => output,
    (o) => /IOSv[\s\S]*r1#$/.test(o),
    'the command output',
  );
  telnet.close();
  await waitUntil(
    async () => closed,
    (c) => c,
    'the stream to close',
  );
  covered.add('attachConsole').add('streamConsole');
});

test('openConsole does attach and stream in one go; the stream opens with the EVE-NG telnet greeting', async () => {
  const { attach, socket } = await openConsole(client, { yaml, state, node: 'r2' });
  assert.equal(attach.name, 'r2');
  const received: number[] = [];
  socket.on('data', (chunk: Buffer) => received.push(...chunk));
  const title = [...Buffer.from(`\x1b]0;${agent.consoleTitle('ops', 'r2')}\x07`)];
  await waitUntil(
    async () => received.length,
    (n) => n >= 12 + title.length,
    'the greeting',
  );
  assert.deepEqual(received.slice(0, 12 + title.length), [
    IAC,
    WILL,
    ECHO,
    IAC,
    WILL,
    SGA,
    IAC,
    WILL,
    BINARY,
    IAC,
    DO,
    BINARY,
    ...title,
  ]);
  socket.destroy();
});

test('reconcile to_emu applies a change; from_emu reads the lab back', async () => {
  const changed = labYaml('ops', '  r3:\n    position: { x: 500, y: 100 }');
  const applied = await client.reconcileProject({ yaml: changed, state });
  assert.equal(applied.direction, 'to_emu');
  assert.equal(applied.changed, true);
  assert.ok(applied.actions?.some((a) => a.op === 'create' && a.kind === 'node' && a.name === 'r3'));
  const readBack = await client.reconcileProject({ yaml, state, direction: 'from_emu' });
  assert.equal(readBack.direction, 'from_emu');
  assert.match(readBack.yaml ?? '', /r3:/);
  covered.add('reconcileProject');
});

test('import clones an emulator lab into a managed copy', async () => {
  const imported = await client.importProject({ lab: '/examples/campus.unl' });
  assert.equal(imported.mode, 'imported');
  assert.equal(imported.source_lab, '/examples/campus.unl');
  assert.equal(imported.managed_lab, '/lab-agent/imported/campus.unl');
  assert.match(imported.yaml ?? '', /edge:/);
  covered.add('importProject');
});

test('destroy removes the lab', async () => {
  const destroyed = await client.destroyProject({ yaml, state });
  assert.equal(destroyed.status, 'destroyed');
  assert.equal(destroyed.wiped, true);
  assert.equal((await client.getProjectStatus({ yaml, state })).exists, false);
  covered.add('destroyProject');
});

test('the simulated emulator offers no capture: the flags are left out and startCapture is refused', async () => {
  const caps = await client.getCapabilities();
  assert.equal(caps.features?.capture, undefined);
  assert.equal(caps.features?.capture_summaries, undefined, 'no summaries without capture');
  await assert.rejects(
    client.startCapture({ yaml, state, targets: ['r1:eth0'], summaries: true }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'operation_not_allowed');
      return true;
    },
  );
  await assert.rejects(client.streamCaptureSummaries({ ticket: 'a'.repeat(64) }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'browser_token_invalid');
    return true;
  });
  await assert.rejects(client.startCapture({ yaml, state, targets: ['r1:eth0'] }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'operation_not_allowed');
    return true;
  });
  // No ticket can exist here: the stream refuses with the envelope, which the client throws.
  await assert.rejects(client.streamCapture({ ticket: 'a'.repeat(64) }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'browser_token_invalid');
    return true;
  });
});

test('logout ends the session and the client forgets its token', async () => {
  const logout = await client.logout();
  assert.ok(logout.status);
  assert.equal(client.token, '');
  covered.add('logout');
});

test('every operation of the contract was exercised', () => {
  // The capture operations (decisions §14) run where the emulator captures: test/linux/linux-capture*.test.ts.
  const capture = ['startCapture', 'streamCapture', 'streamCaptureSummaries'];
  assert.deepEqual(
    [...covered].sort(),
    Object.keys(OPERATIONS)
      .filter((op) => !capture.includes(op))
      .sort(),
  );
});
