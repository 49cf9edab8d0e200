/**
 * What the capture tests on the Linux emulator share: an agent of their own with the OSPF sample
 * deployed and started, ready once its probe says so; the cgroups its capture (`cap`: dumpcap) and
 * summaries (`sum`: tshark) processes run in, and waits for them to run or go; after, the check
 * that it left nothing (namespaces, FRR processes, those cgroups); and tshark's reading of a file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { processAlive } from '../../agent/emulator/linux/kernel';
import type { AgentClient } from '../../common/api/client';
import type { ProjectPayload } from '../../common/api/contract';
import { startTestAgent, type TestAgent } from '../support/agent';
import { eventually, namespacesOf, prefixOf, processesOf, requireLinuxLabs } from './support';

/** A console command on a node of the sample, and what its output shows once the lab is ready. */
interface ReadyProbe {
  node: string;
  command: string;
  ready: RegExp;
  what: string;
}

/** OSPF converges in seconds (1 s hellos): h1 reaches h2 across the three routers. */
export const H1_REACHES_H2: ReadyProbe = {
  node: 'h1',
  command: 'ping -c 1 -W 1 10.0.2.10',
  ready: / 0% packet loss/,
  what: 'h1 to reach h2 over OSPF',
};

/** OSPF hellos go every second once FRR is up: r1 has an adjacency with r2 on eth1. */
export const R1_FULL: ReadyProbe = {
  node: 'r1',
  command: 'show ip ospf neighbor',
  ready: /\bFull\//,
  what: 'r1 to have a full OSPF neighbour',
};

export interface CaptureLab {
  agent: TestAgent;
  client: AgentClient;
  /** The kernel names' prefix of the agent (lab-<agent>-). */
  prefix: string;
  /** The sample's deployed state, for every payload. */
  state: unknown;
}

/** Starts an agent on the Linux emulator and the OSPF sample (ospfSample()) on it; fails with what is missing when it cannot run here. */
export async function startCaptureLab(
  sample: ProjectPayload,
  tools: ('dumpcap' | 'tshark')[],
  probe: ReadyProbe,
): Promise<CaptureLab> {
  await requireLinuxLabs();
  for (const tool of tools)
    if (!existsSync(`/usr/bin/${tool}`))
      throw new Error(`The capture tests need Wireshark's ${tool}: apt-get install -y tshark (.ci/run installs it).`);
  const agent = await startTestAgent({ emulator: 'linux' });
  const prefix = prefixOf(agent.dataDir);
  const client = await agent.loggedIn();
  const { state } = await client.deployProject(sample);
  await client.execProject({ ...sample, state, action: 'start' });
  await eventually(
    () => client.execConsole({ ...sample, state, node: probe.node, command: probe.command, timeout_ms: 10_000 }),
    (r) => probe.ready.test(r.output ?? ''),
    probe.what,
    60_000,
  );
  return { agent, client, prefix, state };
}

/** The cgroups of an agent's processes of one kind (`cap`: dumpcap, `sum`: tshark), with their members. */
export function agentCgroups(prefix: string, kind: 'cap' | 'sum'): { name: string; pids: number[] }[] {
  const root = '/sys/fs/cgroup';
  const dirs = existsSync(join(root, 'cgroup.controllers')) ? [root] : [join(root, 'pids')];
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.startsWith(`${prefix}${kind}`))
      .map((name) => ({
        name,
        pids: readFileSync(join(dir, name, 'cgroup.procs'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(Number),
      })),
  );
}

/** Waits until one cgroup of `kind` runs and `running` holds of its processes (`what` names them); that cgroup. */
export async function cgroupRunning(
  prefix: string,
  kind: 'cap' | 'sum',
  what: string,
  running: (pids: number[]) => boolean = (pids) => pids.length > 0,
): Promise<{ name: string; pids: number[] }> {
  const [cgroup] = await eventually(
    () => Promise.resolve(agentCgroups(prefix, kind)),
    (c) => c.length === 1 && running(c[0].pids),
    `${what} to run`,
    10_000,
  );
  return cgroup;
}

/** Waits until the agent has no cgroup of `kind` left: its processes gone, the cgroup removed. */
export async function cgroupsGone(prefix: string, kind: 'cap' | 'sum', what: string, limitMs = 10_000): Promise<void> {
  await eventually(
    () => Promise.resolve(agentCgroups(prefix, kind)),
    (left) => left.length === 0,
    what,
    limitMs,
  );
}

/** Waits until none of `pids` is alive. */
export async function processesGone(pids: number[], what: string): Promise<void> {
  await eventually(
    () => Promise.resolve(pids.filter(processAlive)),
    (alive) => alive.length === 0,
    what,
    10_000,
  );
}

/**
 * Removes the test's work folder and stops the agent (which removes its labs); none of its
 * namespaces, processes or capture cgroups is left.
 */
export async function stopCaptureLab(agent: TestAgent | undefined, prefix: string, work: string): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  if (!agent) return;
  await agent.stop();
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(processesOf(prefix), []);
  assert.deepEqual(
    [...agentCgroups(prefix, 'cap'), ...agentCgroups(prefix, 'sum')],
    [],
    'no capture or summaries cgroup is left',
  );
}

/** Saves a pcapng stream to a new file in `dir`, for tshark to read; its path. */
export function savePcapng(dir: string, pcapng: Buffer): string {
  const file = join(dir, `c${Date.now()}-${Math.random().toString(36).slice(2)}.pcapng`);
  writeFileSync(file, pcapng);
  return file;
}

/** tshark's fields of every packet of a pcapng file (`-Y filter` when given), one array per packet. */
export function tsharkFields(file: string, fields: string[], filter = ''): string[][] {
  const out = execFileSync(
    'tshark',
    [
      '-n',
      '-r',
      file,
      ...(filter ? ['-Y', filter] : []),
      '-T',
      'fields',
      '-E',
      'separator=|',
      ...fields.flatMap((f) => ['-e', f]),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('|'));
}

/** A GET of the agent whose response is left paused (nobody reads it). */
export function openPaused(agent: TestAgent, path: string, bearer: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, agent.url),
      { ca: agent.certPem, headers: { authorization: `Bearer ${bearer}` } },
      (res) => {
        res.pause();
        resolve(res);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
