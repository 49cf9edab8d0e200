/**
 * Real labs on the Linux emulator (namespaces + FRRouting): the agent as the
 * user runs it (`dist/agent.js --emulator linux`, its own data directory),
 * driven over HTTPS by the typed client. For rings of 10, 50 and 200 FRR
 * routers (point-to-point OSPF, 1 s hellos): deploy, start every node, wait
 * until every router has both neighbours Full, destroy; then count the
 * namespaces and processes the agent left (must be 0), and again after it
 * stops. The agent's RSS is sampled throughout.
 *
 * Baseline, measured in the same run: the same per-router kernel and FRR work
 * done directly with the emulator's own primitives, without the agent (a
 * namespace, forwarding on, zebra + staticd + ospfd started until vtysh
 * answers, then killed and the namespace deleted).
 *
 * Everything is bounded and cleaned up even on failure: destroy, agent
 * SIGTERM (which removes its namespaces), then a sweep of whatever still
 * carries the bench agent's prefix.
 */
import { freemem } from 'node:os';
import type { AgentClient } from '../../common/api/client';
import { addNamespace, deleteNamespace, signalAll } from '../../agent/emulator/linux/kernel';
import { removeRouter, startRouter } from '../../agent/emulator/linux/frr';
import { NodeCgroups } from '../../agent/emulator/linux/cgroup';
import { probeLinuxHost, type LinuxHost } from '../../agent/emulator/linux/system';
import { namespacesOf, prefixOf, processesOf, requireLinuxLabs } from '../linux/support';
import { startAgentProcess, type AgentProcess } from './support/agent-process';
import { MiB, progress, report, runSection } from './support/report';
import { rssOf, since, sleep } from './support/stats';

/** BENCH_LINUX_LAB_SIZES (e.g. "10,50") runs fewer or other sizes. */
const SIZES = (process.env.BENCH_LINUX_LAB_SIZES ?? '10,50,200').split(',').map(Number);
/** Routers started directly for the baseline. */
const BASELINE_ROUTERS = 10;
/** How long every adjacency may take to show Full after the last router started (polling 200 routers takes minutes on a busy machine). */
const CONVERGE_LIMIT_MS = 240_000;
/** Routers asked per exec-many call while polling (each is one vtysh process on the agent's machine). */
const POLL_BATCH = 10;
/** Memory a router may need (zebra, staticd, ospfd), to refuse a size this machine cannot hold. */
const ROUTER_MEMORY_BUDGET = 40 * MiB;
const BASELINE = 'emulator primitives without the agent';

interface Ring {
  yaml: string;
  files: Record<string, string>;
  routers: string[];
}

/** r1 … rN in a ring: ri eth1 ↔ r(i+1) eth0, each link its own /30, OSPF point-to-point. */
function ringLab(size: number): Ring {
  const routers = Array.from({ length: size }, (_, i) => `r${i + 1}`);
  /** Router i's address on link l (the link from router l to router l+1): .1 on the left, .2 on the right. */
  const address = (link: number, side: 1 | 2) => {
    const base = link * 4;
    return `10.1.${base >> 8}.${(base & 255) + side}/30`;
  };
  const lines = [
    `name: bench-ring-${size}`,
    'defaults:',
    '  template: frr',
    '  ethernet: 2',
    'nodes:',
    ...routers.flatMap((r) => [`  ${r}:`, `    config: configs/${r}.conf`]),
    'links:',
    ...routers.map((r, i) => `  - endpoints: [${r}:eth1, ${routers[(i + 1) % size]}:eth0]`),
    '',
  ];
  const files: Record<string, string> = {};
  routers.forEach((r, i) => {
    const ospf = [' ip ospf network point-to-point', ' ip ospf hello-interval 1', ' ip ospf dead-interval 4'];
    files[`configs/${r}.conf`] = [
      `hostname ${r}`,
      '!',
      'interface eth0',
      ` ip address ${address((i + size - 1) % size, 2)}`,
      ...ospf,
      '!',
      'interface eth1',
      ` ip address ${address(i, 1)}`,
      ...ospf,
      '!',
      'router ospf',
      ` ospf router-id 10.255.${i >> 8}.${i & 255}`,
      ' network 10.1.0.0/16 area 0',
      '!',
      '',
    ].join('\n');
  });
  return { yaml: lines.join('\n'), files, routers };
}

function fullNeighbours(output: string): number {
  return output.split('\n').filter((l) => /\bFull\//.test(l)).length;
}

/** Polls `show ip ospf neighbor` on the routers not yet done until each has `expected` Full neighbours. */
async function untilConverged(client: AgentClient, ring: Ring, state: unknown, expected: number): Promise<void> {
  const waiting = new Set(ring.routers);
  const deadline = Date.now() + CONVERGE_LIMIT_MS;
  while (waiting.size > 0) {
    if (Date.now() > deadline)
      throw new Error(
        `${waiting.size} of ${ring.routers.length} routers still lack a Full neighbour after ${CONVERGE_LIMIT_MS / 1000} s: ${[...waiting].slice(0, 10).join(', ')}`,
      );
    const batch = [...waiting].slice(0, POLL_BATCH);
    const { results } = await client.execConsoleMany(
      {
        yaml: ring.yaml,
        files: ring.files,
        state,
        timeout_ms: 20_000,
        targets: batch.map((node) => ({ node, command: 'show ip ospf neighbor' })),
      },
      { timeoutMs: 60_000 },
    );
    for (const r of results ?? [])
      if (r.ok && r.node && fullNeighbours(r.output ?? '') >= expected) waiting.delete(r.node);
    if (batch.every((node) => waiting.has(node))) await sleep(500);
  }
}

/** The namespaces and processes still carrying the prefix. */
async function leftovers(prefix: string): Promise<{ namespaces: number; processes: number }> {
  return { namespaces: (await namespacesOf(prefix)).length, processes: processesOf(prefix).length };
}

/** Removes whatever still carries the prefix (after a failure); returns what it found. */
async function sweep(prefix: string, cgroups: NodeCgroups): Promise<number> {
  const namespaces = await namespacesOf(prefix);
  for (const ns of namespaces) {
    await removeRouter(ns);
    await deleteNamespace(ns);
  }
  for (const cgroup of cgroups.list(prefix)) await cgroups.remove(cgroup);
  const processes = processesOf(prefix);
  signalAll(processes, 'SIGKILL');
  return namespaces.length + processes.length;
}

/** Seconds per router of the baseline: namespace + FRR start until vtysh answers, then removal. */
async function baselinePerRouter(host: LinuxHost): Promise<{ start: number; remove: number; prefix: string }> {
  const prefix = `lbb${process.pid}-`;
  const ring = ringLab(BASELINE_ROUTERS);
  const cgroups = new NodeCgroups(host.cgroups);
  let start = 0;
  let remove = 0;
  try {
    for (const [i, router] of ring.routers.entries()) {
      const ns = `${prefix}${router}`;
      const t0 = performance.now();
      await cgroups.create(ns, { pids: 256, memoryMiB: 64, cpus: 1 });
      await addNamespace(ns);
      await startRouter(ns, router, ring.files[`configs/${router}.conf`], host, cgroups);
      start += since(t0);
      const t1 = performance.now();
      await removeRouter(ns);
      await deleteNamespace(ns);
      await cgroups.remove(ns);
      remove += since(t1);
      if (i === 0) progress(`baseline: one router up and removed in ${(since(t0) / 1000).toFixed(2)} s`);
    }
  } finally {
    await sweep(prefix, cgroups);
  }
  return { start: start / 1000 / BASELINE_ROUTERS, remove: remove / 1000 / BASELINE_ROUTERS, prefix };
}

async function benchSize(
  agent: AgentProcess,
  client: AgentClient,
  prefix: string,
  size: number,
  baseline: { start: number; remove: number },
): Promise<void> {
  const ring = ringLab(size);
  let peak = agent.rss() ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, agent.rss() ?? 0)), 200);
  let state: unknown;
  let destroyed = false;
  try {
    progress(`${size} routers: deploy`);
    let t = performance.now();
    const deployed = await client.deployProject({ yaml: ring.yaml, files: ring.files }, { timeoutMs: 300_000 });
    state = deployed.state;
    const deploy = since(t) / 1000;

    progress(`${size} routers: start`);
    t = performance.now();
    const started = await client.execProject(
      { yaml: ring.yaml, files: ring.files, state, action: 'start' },
      { timeoutMs: 400_000 },
    );
    const start = since(t) / 1000;
    if (started.started !== size) throw new Error(`started ${started.started} of ${size}: ${JSON.stringify(started)}`);

    progress(`${size} routers: wait for every adjacency to be Full`);
    t = performance.now();
    await untilConverged(client, ring, state, 2);
    const converge = since(t) / 1000;
    const daemons = processesOf(prefix);
    const daemonRss = daemons.reduce((sum, pid) => sum + (rssOf(pid) ?? 0), 0);

    progress(`${size} routers: destroy`);
    t = performance.now();
    await client.destroyProject({ yaml: ring.yaml, files: ring.files, state }, { timeoutMs: 300_000 });
    destroyed = true;
    const destroy = since(t) / 1000;
    const left = await leftovers(prefix);

    const name = (what: string) => `linux lab ${what} (${size} routers, ring)`;
    report({ name: name('deploy'), value: deploy, unit: 's' });
    report({
      name: name('start per router'),
      value: start / size,
      unit: 's',
      baseline: { name: BASELINE, value: baseline.start },
      targets: [{ on: 'ratio', op: '<=', limit: 3 }],
      note: `start of all ${size}: ${start.toFixed(1)} s`,
    });
    report({ name: name('start → every adjacency Full'), value: converge, unit: 's' });
    report({
      name: name('destroy per router'),
      value: destroy / size,
      unit: 's',
      baseline: { name: BASELINE, value: baseline.remove },
      note: `destroy of all ${size}: ${destroy.toFixed(1)} s (stops each router gracefully first, then wipes and deletes)`,
    });
    report({
      name: name('deploy + start + Full + destroy'),
      value: deploy + start + converge + destroy,
      unit: 's',
    });
    report({ name: name('agent RSS peak'), value: peak / MiB, unit: 'MiB' });
    report({
      name: name('FRR daemons RSS when Full'),
      value: daemonRss / MiB,
      unit: 'MiB',
      note: `${daemons.length} processes`,
    });
    report({
      name: name('kernel objects + processes left after destroy'),
      value: left.namespaces + left.processes,
      unit: '',
      targets: [{ on: 'value', op: '<=', limit: 0 }],
      note: `${left.namespaces} namespaces, ${left.processes} processes with the agent's prefix`,
    });
  } finally {
    clearInterval(sampler);
    if (!destroyed && state !== undefined)
      await client
        .destroyProject({ yaml: ring.yaml, files: ring.files, state }, { timeoutMs: 300_000 })
        .catch((e: unknown) => progress(`destroy after a failure failed: ${(e as Error).message}`));
  }
}

async function main(): Promise<void> {
  await requireLinuxLabs();
  const host = await probeLinuxHost();
  progress(`baseline: ${BASELINE_ROUTERS} routers started directly`);
  const baseline = await baselinePerRouter(host);

  const agent = await startAgentProcess({ emulator: 'linux' });
  const prefix = prefixOf(agent.dataDir);
  let client: AgentClient | undefined;
  try {
    client = await agent.loggedIn();
    for (const size of SIZES) {
      const needed = size * ROUTER_MEMORY_BUDGET;
      if (needed > freemem() / 2) {
        report({
          name: `linux lab (${size} routers, ring)`,
          value: NaN,
          unit: 's',
          note: `not run: ${size} routers may need ${Math.round(needed / MiB)} MiB, more than half the free memory (${Math.round(freemem() / MiB)} MiB)`,
        });
        continue;
      }
      await benchSize(agent, client, prefix, size, baseline);
    }
  } finally {
    await client?.close();
    const t = performance.now();
    await agent.stop();
    progress(`agent stopped in ${(since(t) / 1000).toFixed(1)} s`);
    const left = await leftovers(prefix);
    report({
      name: 'linux lab kernel objects + processes left after agent stop',
      value: left.namespaces + left.processes,
      unit: '',
      targets: [{ on: 'value', op: '<=', limit: 0 }],
      note: `${left.namespaces} namespaces, ${left.processes} processes`,
    });
    const swept = await sweep(prefix, new NodeCgroups(host.cgroups));
    if (swept) progress(`swept ${swept} leftovers of the bench agent`);
  }
}

runSection(main);
