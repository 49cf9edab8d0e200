/**
 * Nodes outlive the agent (decisions §9 "Agent restarts"): stopping the agent
 * leaves its routers running; the next agent on the same data directory takes
 * them back with their running configs (same processes, console changes still
 * there and still told apart from the startup config), reports nodes that died
 * while it was away as stopped, and an agent stopped with stopLabs saves
 * running configs before it removes everything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { commandLine, namespacePids, signalAll } from '../../agent/emulator/linux/kernel';
import { startTestAgent, type TestAgent } from '../support/agent';
import {
  eventually,
  namespacesOf,
  ospfSample,
  prefixOf,
  processesOf,
  requireLinuxLabs,
  typeOnConsole,
} from './support';

const sample = ospfSample();

/** zebra pids by the path space (-N) they run in. */
function zebras(prefix: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const pid of processesOf(prefix)) {
    const argv = commandLine(pid) ?? [];
    if (argv[0]?.endsWith('/zebra')) found.set(argv[argv.indexOf('-N') + 1], pid);
  }
  return found;
}

test('an agent restart keeps nodes running with their running configs; a stop with stopLabs saves them first', async () => {
  await requireLinuxLabs();
  let agent: TestAgent = await startTestAgent({ emulator: 'linux' });
  const dataDir = agent.dataDir;
  const prefix = prefixOf(dataDir);
  try {
    let client = await agent.loggedIn();
    const state = (await client.deployProject(sample)).state;
    const payload = () => ({ ...sample, state });
    for (const node of ['r1', 'r2', 'h1'])
      assert.equal((await client.execProject({ ...payload(), action: 'start', node })).started, 1);
    await typeOnConsole(client, payload(), 'r1', ['configure terminal', 'interface eth1', 'ip ospf cost 77', 'end']);
    const before = zebras(prefix);
    assert.equal(before.size, 2);

    // Stop the agent (as a restart does): the routers keep running.
    await agent.close();
    assert.equal((await namespacesOf(prefix)).length, 6);
    assert.deepEqual(zebras(prefix), before);

    agent = await startTestAgent({ emulator: 'linux', dataDir });
    client = await agent.loggedIn();
    const status = await client.getProjectStatus(payload());
    assert.deepEqual(
      status.nodes?.filter((n) => n.state === 'running').map((n) => n.name),
      ['h1', 'r1', 'r2'],
    );
    assert.deepEqual(zebras(prefix), before, 'the same daemons run on: nothing was restarted');
    const running = await client.execConsole({ ...payload(), node: 'r1', command: 'show running-config' });
    assert.match(running.output ?? '', /ip ospf cost 77/);
    // The change is still known as one made on the console: a pull still finds it.
    const pull = await client.planProject({ ...payload(), direction: 'from_emu' });
    assert.match(pull.text ?? '', /~ node r1: config .*1 statement changed on the node/);
    await eventually(
      () => client.execConsole({ ...payload(), node: 'r2', command: 'show ip ospf neighbor' }),
      (r) => /Full/.test(r.output ?? ''),
      'r2 to keep r1 as a Full neighbour',
    );

    // r2 dies while the agent is away: the next agent says it stopped and makes it startable again.
    await agent.close();
    const ids = (state as { nodes: Record<string, number> }).nodes;
    const r2ns = [...before.keys()].find((ns) => ns.endsWith(`-n${ids.r2}`));
    assert.ok(r2ns, `r2's path space among ${[...before.keys()].join(', ')}`);
    signalAll(await namespacePids(r2ns), 'SIGKILL');
    await eventually(
      () => Promise.resolve(zebras(prefix).has(r2ns)),
      (has) => !has,
      "r2's zebra to die",
      10_000,
    );
    agent = await startTestAgent({ emulator: 'linux', dataDir });
    client = await agent.loggedIn();
    const after = await client.getProjectStatus(payload());
    assert.deepEqual(
      after.nodes?.filter((n) => n.state === 'running').map((n) => n.name),
      ['h1', 'r1'],
    );
    assert.equal((await client.execProject({ ...payload(), action: 'start', node: 'r2' })).started, 1);

    // Stopped with stopLabs, the agent saves running configs, then removes every namespace and process.
    await agent.running.close({ stopLabs: true });
    assert.deepEqual(await namespacesOf(prefix), []);
    assert.deepEqual(processesOf(prefix), []);
    agent = await startTestAgent({ emulator: 'linux', dataDir });
    client = await agent.loggedIn();
    assert.equal((await client.getProjectStatus(payload())).running, 0);
    assert.equal((await client.execProject({ ...payload(), action: 'start', node: 'r1' })).started, 1);
    const saved = await client.execConsole({ ...payload(), node: 'r1', command: 'show running-config' });
    assert.match(saved.output ?? '', /ip ospf cost 77/, 'r1 booted from the running config it saved');
    await client.destroyProject(payload());
  } finally {
    await agent.running.close({ stopLabs: true }).catch(() => undefined);
    assert.deepEqual(await namespacesOf(prefix), []);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
