/**
 * What the tests of a Linux agent killed with -9 mid-capture share: agents spawned as their own
 * processes on one data directory (so one can be killed), the scenario of a kill while a capture
 * runs, and the next agent's start that must remove what the killed one left, then the lab.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { NodeCgroups } from '../../agent/emulator/linux/cgroup';
import { deleteNamespace } from '../../agent/emulator/linux/kernel';
import { AgentClient } from '../../common/api/client';
import type { ProjectPayload } from '../../common/api/contract';
import { KILL_USER, namespacesOf, prefixOf, spawnLinuxAgent } from './support';
import { agentCgroups, cgroupRunning, processesGone } from './capture-lab';

type SpawnedAgent = Awaited<ReturnType<typeof spawnLinuxAgent>>;

/** Two Linux hosts, a and b, linked on eth0. */
export function twoHostLab(name: string): string {
  return `name: ${name}\ndefaults:\n  template: linux\nnodes:\n  a: {ethernet: 1}\n  b: {ethernet: 1}\nlinks:\n  - endpoints: [a:eth0, b:eth0]\n`;
}

/** Agents spawned on one data directory, one after the other; `spawn` gives the next. */
export interface KillableAgents {
  dataDir: string;
  /** The kernel names' prefix of every agent on this data directory. */
  prefix(): string;
  spawn(): Promise<SpawnedAgent>;
}

/**
 * Runs `body` on a fresh data directory; however it ends, every agent it spawned is killed and
 * whatever they left (namespaces, cgroups) goes with the directory (a passing run left nothing).
 */
export async function withKillableAgents(name: string, body: (agents: KillableAgents) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `lab-agent-${name}-`));
  const spawned: Promise<SpawnedAgent>[] = [];
  try {
    await body({
      dataDir,
      prefix: () => prefixOf(dataDir),
      spawn: () => (spawned[spawned.length] = spawnLinuxAgent(dataDir)),
    });
  } finally {
    for (const started of await Promise.allSettled(spawned))
      if (
        started.status === 'fulfilled' &&
        started.value.child.exitCode === null &&
        started.value.child.signalCode === null
      )
        started.value.child.kill('SIGKILL');
    if (existsSync(join(dataDir, 'linux-agent-id'))) {
      for (const ns of await namespacesOf(prefixOf(dataDir))) await deleteNamespace(ns);
      const cgroups = new NodeCgroups(existsSync('/sys/fs/cgroup/cgroup.controllers') ? 2 : 1);
      for (const cgroup of cgroups.list(prefixOf(dataDir))) await cgroups.remove(cgroup);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An agent's client logged in as the user the spawned agents have. */
export async function killUserClient(agent: SpawnedAgent): Promise<AgentClient> {
  const client = new AgentClient({ baseUrl: agent.url, pin: agent.pin });
  await client.login(KILL_USER);
  return client;
}

/** The next agent (already spawned) destroys the lab and stops; no namespace of the data directory is left. */
export async function destroyAndStop(next: SpawnedAgent, lab: ProjectPayload, prefix: string): Promise<void> {
  const again = await killUserClient(next);
  await again.destroyProject(lab);
  await again.close();
  next.child.kill('SIGTERM');
  const code = await new Promise((done) => next.child.once('exit', done));
  assert.deepEqual(await namespacesOf(prefix), [], `the agent (exit ${String(code)}) said:\n${next.said()}`);
}

/**
 * kill -9 of an agent while it captures a:eth0 of a two-host lab (with summaries for `sum`): the
 * processes of `kind` die with it, their cgroup is left behind, and the next start removes it.
 * `running` tells when all of them run (`what` names them); `whileRunning` checks them before the kill.
 */
export async function killMidCapture(
  kind: 'cap' | 'sum',
  what: string,
  running: (pids: number[]) => boolean,
  whileRunning: (pids: number[]) => void = () => undefined,
): Promise<void> {
  await withKillableAgents(`${kind}-kill`, async (agents) => {
    const first = await agents.spawn();
    const prefix = agents.prefix();
    const lab = twoHostLab(`${kind}kill`);
    const other = await killUserClient(first);
    const deployed = await other.deployProject({ yaml: lab });
    await other.execProject({ yaml: lab, state: deployed.state, action: 'start' });
    const started = await other.startCapture({
      yaml: lab,
      state: deployed.state,
      targets: ['a:eth0'],
      ...(kind === 'sum' ? { summaries: true } : {}),
    });
    const streams = [started.stream, ...(kind === 'sum' ? [started.summaries] : [])].map(
      (path) =>
        new Promise<void>((resolve) => {
          const req = httpsRequest(
            new URL(path ?? '', first.url),
            { rejectUnauthorized: false, headers: { authorization: `Bearer ${other.token}` } },
            (res) => {
              res.resume();
              res.on('close', resolve);
            },
          );
          req.on('error', () => resolve());
          req.end();
        }),
    );
    const cgroup = await cgroupRunning(prefix, kind, what, running);
    whileRunning(cgroup.pids);
    first.child.kill('SIGKILL');
    await Promise.all(streams);
    await other.close();
    await processesGone(cgroup.pids, `${what} to die with the agent`);
    assert.equal(agentCgroups(prefix, kind).length, 1, 'its cgroup is left behind');
    const second = await agents.spawn();
    assert.deepEqual(agentCgroups(prefix, kind), [], 'the next start removed it');
    await destroyAndStop(second, { yaml: lab, state: deployed.state }, prefix);
  });
}
