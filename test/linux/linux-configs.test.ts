/**
 * Configs on real routers (decisions §4 "Node configs"): a pushed config
 * reaches a running FRR router live (no restart, console changes kept), a
 * graceful stop keeps what was pushed, a push to a stopped router applies at
 * its next start, and a pull writes one console change as one changed line of
 * the user's file; after it the plan is truthful in both directions. A
 * router that cannot be read makes a pull fail, never report no change.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentClient } from '../../common/api/client';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from '../../agent/emulator/linux/kernel';
import { runDirOf } from '../../agent/emulator/linux/frr';
import { failsWith, startTestAgent, type TestAgent } from '../support/agent';
import { namespacesOf, ospfSample, prefixOf, processesOf, requireLinuxLabs, typeOnConsole } from './support';

let agent: TestAgent | undefined;
let client: AgentClient;
let prefix = '';
const sample = ospfSample();
let state: unknown;
let files = { ...sample.files };
const payload = () => ({ yaml: sample.yaml, files, state });

before(async () => {
  await requireLinuxLabs();
  agent = await startTestAgent({ emulator: 'linux' });
  prefix = prefixOf(agent.dataDir);
  client = await agent.loggedIn();
  state = (await client.deployProject(sample)).state;
});

after(async () => {
  if (!agent) return;
  await client.destroyProject(payload()).catch(() => undefined);
  await agent.stop();
  assert.deepEqual(await namespacesOf(prefix), []);
});

async function run(node: string, command: string): Promise<string> {
  return (await client.execConsole({ ...payload(), node, command, timeout_ms: 20_000 })).output ?? '';
}

async function bulk(action: 'start' | 'stop', node: string, stopmode?: 0 | 1) {
  return client.execProject({ ...payload(), action, node, ...(stopmode !== undefined ? { stopmode } : {}) });
}

/** The zebra processes of this agent's routers: the same pids before and after mean no restart. */
function zebras(): number[] {
  return processesOf(prefix)
    .filter((pid) => commandLine(pid)?.[0]?.endsWith('/zebra'))
    .sort();
}

/** Pushes the current files: the plan says what it does, then it is applied with that plan. */
async function push(): Promise<string> {
  const plan = await client.planProject(payload());
  const applied = await client.reconcileProject({ ...payload(), plan_identity: plan.plan_identity });
  state = applied.state;
  return plan.text ?? '';
}

test('a config pushed to a running router is in its running config at once, with no restart, console changes kept', async () => {
  assert.equal((await bulk('start', 'r3')).started, 1);
  // A change made on r3's console before the push.
  await typeOnConsole(client, payload(), 'r3', [
    'configure terminal',
    'interface lo',
    'description typed-on-the-console',
    'end',
  ]);
  const before = zebras();
  assert.equal(before.length, 1);
  files = {
    ...files,
    'configs/r3.conf': `${sample.files['configs/r3.conf']}interface eth2\n ip address 10.0.99.1/24\n!\n`,
  };
  const planText = await push();
  assert.match(planText, /~ node r3: config \(\d+ lines\) -> \(\d+ lines\)\s+# applied live to r3/);
  const running = await run('r3', 'show running-config');
  assert.match(running, /interface eth2\n ip address 10\.0\.99\.1\/24/);
  assert.match(running, /description typed-on-the-console/, 'the console change stays');
  assert.deepEqual(zebras(), before, 'r3 was not restarted');
  assert.match((await client.planProject(payload())).text ?? '', /No changes/);
});

test('a graceful stop and start keeps the pushed config', async () => {
  assert.equal((await bulk('stop', 'r3', 0)).stopped, 1);
  assert.equal((await bulk('start', 'r3')).started, 1);
  const running = await run('r3', 'show running-config');
  assert.match(running, /ip address 10\.0\.99\.1\/24/);
  assert.match(running, /description typed-on-the-console/);
});

test('a config pushed to a stopped router that saved its running config applies at its next start', async () => {
  assert.equal((await bulk('stop', 'r3', 0)).stopped, 1);
  files = {
    ...files,
    'configs/r3.conf': files['configs/r3.conf'].replace(' ip ospf passive\n', ' ip ospf passive\n ip ospf cost 33\n'),
  };
  assert.match(await push(), /# r3 starts with it/);
  assert.equal((await bulk('start', 'r3')).started, 1);
  const running = await run('r3', 'show running-config');
  assert.match(running, /ip ospf cost 33/, 'the push is not lost to what the graceful stop saved');
  assert.match(running, /ip address 10\.0\.99\.1\/24/);
  assert.match(running, /description typed-on-the-console/);
});

test('a pull writes one console change as one added line of the file; the plan is truthful afterwards', async () => {
  assert.equal((await bulk('start', 'r1')).started, 1);
  await typeOnConsole(client, payload(), 'r1', ['configure terminal', 'interface eth1', 'ip ospf cost 77', 'end']);
  const plan = await client.planProject({ ...payload(), direction: 'from_emu' });
  assert.match(plan.text ?? '', /~ node r1: config .*# 1 statement changed on the node written into the file in place/);
  const pulled = await client.reconcileProject({
    ...payload(),
    direction: 'from_emu',
    plan_identity: plan.plan_identity,
  });
  const original = files['configs/r1.conf'].split('\n');
  const now = (pulled.files?.['configs/r1.conf'] ?? '').split('\n');
  assert.deepEqual(
    now.filter((l) => !original.includes(l)),
    [' ip ospf cost 77'],
  );
  assert.deepEqual(
    original.filter((l) => !now.includes(l)),
    [],
  );
  assert.equal(now.length, original.length + 1, 'one line added, nothing reordered away');
  assert.ok(now.indexOf(' ip ospf cost 77') < now.indexOf('router ospf'), 'in its interface, not at the end');
  files = { ...files, ...pulled.files };
  // The pulled text is not the startup config yet: the plan says so, and pushing it changes nothing on r1.
  const before = zebras();
  assert.match(await push(), /~ node r1: config .*# applied live to r1/);
  assert.deepEqual(zebras(), before);
  assert.match((await client.planProject(payload())).text ?? '', /No changes/);
  assert.match((await client.planProject({ ...payload(), direction: 'from_emu' })).text ?? '', /No changes/);
});

test('a pull from routers whose vtysh does not answer fails and names the router; it works once they answer', async () => {
  await typeOnConsole(client, payload(), 'r1', ['configure terminal', 'interface eth1', 'ip ospf cost 78', 'end']);
  // vtysh reaches each daemon by its socket in the router's run directory: moved away, every read fails.
  const sockets = (await namespacesOf(prefix))
    .map((ns) => runDirOf(ns))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.vty'))
        .map((f) => join(dir, f)),
    );
  assert.ok(sockets.length > 0, 'the routers have vty sockets');
  for (const socket of sockets) renameSync(socket, `${socket}.aside`);
  try {
    const refused = await failsWith(client.planProject({ ...payload(), direction: 'from_emu' }), 'emu_unreachable');
    assert.match(refused.message, /running config of r\d could not be read/);
  } finally {
    for (const socket of sockets) renameSync(`${socket}.aside`, socket);
  }
  assert.match(
    (await client.planProject({ ...payload(), direction: 'from_emu' })).text ?? '',
    // The cost set on the console replaces the one pulled before: a statement removed and one added.
    /~ node r1: config .*# 2 statements changed on the node/,
  );
});
