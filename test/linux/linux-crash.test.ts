/**
 * Crash clean-up: an agent killed with SIGKILL in the middle of a deploy
 * leaves namespaces and FRR processes behind; the next agent on the same data
 * directory removes exactly those, reports the lab as interrupted, a push
 * finishes the deploy, and destroy plus shutdown leave nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { deleteNamespace, namespacePids, processAlive } from '../../agent/emulator/linux/kernel';
import { removeRouter } from '../../agent/emulator/linux/frr';
import { AgentClient } from '../../common/api/client';
import { failsWith, startTestAgent, TEST_USER } from '../support/agent';
import { eventually, namespacesOf, ospfSample, prefixOf, processesOf, requireLinuxLabs } from './support';

const AGENT = join(__dirname, '..', '..', '..', 'dist', 'agent.js');
const LINUX_USER = { username: TEST_USER.username, password: 'linux-crash-test-password' };

/** Starts the built agent as its own process and reads its URL and fingerprint. */
async function spawnAgent(dataDir: string) {
  // The Linux emulator refuses the demo account: the test user comes from the environment.
  const child = spawn(process.execPath, [AGENT, '--emulator', 'linux', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, LAB_AGENT_USER: LINUX_USER.username, LAB_AGENT_PASSWORD: LINUX_USER.password },
  });
  const lines = createInterface({ input: child.stdout });
  let url = '';
  let pin = '';
  for await (const line of lines) {
    url ||= /listening on (\S+)/.exec(line)?.[1] ?? '';
    pin ||= /fingerprint: (\S+)/.exec(line)?.[1] ?? '';
    if (url && pin) break;
  }
  assert.ok(url && pin, 'the agent printed its URL and fingerprint');
  return { child, url, pin };
}

test('kill -9 in the middle of a deploy, restart: leftovers are removed and nothing leaks', async () => {
  await requireLinuxLabs();
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-agent-linux-crash-'));
  try {
    // Forty hosts more than the sample: the deploy still has most of its nodes to make when the kill comes (with the
    // sample alone it once finished between two looks at the namespaces, and nothing was interrupted).
    const ospf = ospfSample();
    const extra = Array.from({ length: 40 }, (_, i) => `  x${i}:\n    template: linux\n    ethernet: 1\n`).join('');
    const sample = { ...ospf, yaml: ospf.yaml.replace('\nnodes:\n', `\nnodes:\n${extra}`) };
    assert.notEqual(sample.yaml, ospf.yaml, 'the extra hosts are in the lab');
    const first = await spawnAgent(dataDir);
    const prefix = prefixOf(dataDir);
    const client = new AgentClient({ baseUrl: first.url, pin: first.pin });
    await client.login(LINUX_USER);
    const deploying = client.deployProject(sample).catch(() => undefined);
    await eventually(
      () => namespacesOf(prefix),
      (list) => list.length >= 3,
      'the deploy to be under way',
      20_000,
    );
    first.child.kill('SIGKILL');
    await new Promise((done) => first.child.once('exit', done));
    await deploying;
    await client.close();
    assert.ok((await namespacesOf(prefix)).length >= 3, 'the crash left namespaces behind');
    // A node being made when the agent died may not be in its saved labs yet: make one such
    // namespace, with a process in it, as the crash could have left it.
    const stray = `${prefix}000000-n9`;
    execFileSync('ip', ['netns', 'add', stray]);
    const sleeper = spawn('ip', ['netns', 'exec', stray, 'sleep', '600'], { stdio: 'ignore', detached: true });
    sleeper.unref();
    await eventually(
      () => namespacePids(stray),
      (pids) => pids.includes(sleeper.pid ?? 0),
      'the stray process to run',
      5_000,
    );

    const second = await startTestAgent({ emulator: 'linux', dataDir });
    try {
      assert.ok(!(await namespacesOf(prefix)).includes(stray), 'the stray namespace is removed on start');
      assert.equal(processAlive(sleeper.pid ?? 0), false, 'the process in it is killed');
      const again = await second.loggedIn();
      // The interrupted deploy refuses a pull; a push finishes it from what the kernel has.
      await failsWith(again.reconcileProject({ ...sample, direction: 'from_emu' }), 'lab_locked_mid_apply');
      await again.reconcileProject(sample);
      const plan = await again.planProject(sample);
      assert.deepEqual(plan.actions, [], plan.text);
      assert.equal((await again.getProjectStatus(sample)).locked, false);
      await again.destroyProject(sample);
      assert.deepEqual(await namespacesOf(prefix), []);
    } finally {
      await second.close();
    }
    assert.deepEqual(await namespacesOf(prefix), []);
    assert.deepEqual(processesOf(prefix), []);
  } finally {
    // Whatever a failed run left behind goes too (a passing run left nothing).
    if (existsSync(join(dataDir, 'linux-agent-id'))) {
      for (const ns of await namespacesOf(prefixOf(dataDir))) {
        await removeRouter(ns);
        await deleteNamespace(ns);
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});
