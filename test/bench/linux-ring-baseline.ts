/**
 * The baseline of `npm run bench linux-lab`: the same OSPF ring the agent
 * builds, built without the agent from the Linux emulator's own primitives
 * (kernel.ts, cgroup.ts, frr.ts), every router at once: a fabric namespace
 * with one bridge per link, per router a cgroup, a namespace, two veth pairs
 * wired to the bridges (one `ip -batch`, as the agent makes them) and up, FRR started until
 * vtysh answers. The routers' builds all run at once, but their kernel steps (namespace, veths,
 * links up; the bridges and the namespaces' removal too) take KERNEL_STEPS_AT_ONCE places: each
 * takes the kernel's rtnl lock, so 200 at once finish no sooner than 16 at once, and a queued
 * `ip` spends its own 15 s limit waiting (at 200 routers, load 23, one did). Then polled
 * until every router has both neighbours Full, one `show ip ospf neighbor`
 * on every router at once (as exec does: vtysh as frr in its sandbox), and
 * everything removed at once as destroy removes it (FRR, cgroup, namespace).
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeCgroups } from '../../agent/emulator/linux/cgroup';
import { Places } from '../../agent/places';
import { runUntilExit } from '../../agent/emulator/linux/command';
import { removeRouter, startRouter, userVtyshArgv } from '../../agent/emulator/linux/frr';
import {
  addBridge,
  addNamespace,
  addVeths,
  deleteNamespace,
  setLinksUp,
  signalAll,
} from '../../agent/emulator/linux/kernel';
import type { SandboxSetup } from '../../agent/emulator/linux/sandbox';
import { denyListProgram } from '../../agent/emulator/linux/seccomp';
import type { LinuxHost } from '../../agent/emulator/linux/system';
import { namespacesOf, processesOf } from '../linux/support';
import { rssOf, since, sleep } from './support/stats';

/** Kernel steps (one router's namespace, veths or links up) under way at once; see the header. */
const KERNEL_STEPS_AT_ONCE = 16;
/** How long every adjacency may take to show Full (after the last router started). */
export const CONVERGE_LIMIT_MS = 240_000;
/** Between two polls of the routers not Full yet. */
export const POLL_PAUSE_MS = 250;

export interface Ring {
  yaml: string;
  files: Record<string, string>;
  routers: string[];
}

/** r1 … rN in a ring: ri eth1 ↔ r(i+1) eth0, each link its own /30, OSPF point-to-point with 1 s hellos. */
export function ringLab(size: number): Ring {
  const routers = Array.from({ length: size }, (_, i) => `r${i + 1}`);
  /** The address on link l (from router l to router l+1): .1 on the left, .2 on the right. */
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

export function fullNeighbours(output: string): number {
  return output.split('\n').filter((l) => /\bFull\//.test(l)).length;
}

/** What the baseline measured, in seconds (RSS in bytes). */
export interface BaselineFigures {
  /** From nothing to every router running (vtysh answers). */
  build: number;
  /** From nothing to every adjacency Full. */
  full: number;
  /** One `show ip ospf neighbor` on every router, all at once. */
  exec: number;
  /** Every router and the fabric removed, all at once. */
  destroy: number;
  /** RSS of the FRR daemons per router when Full. */
  frrRssPerRouter: number;
}

/** Builds, converges, queries and removes the ring; `prefix` names everything it makes (and sweeps it after). */
export async function ringBaseline(host: LinuxHost, size: number, prefix: string): Promise<BaselineFigures> {
  const ring = ringLab(size);
  const cgroups = new NodeCgroups(host.cgroups);
  const seccompFile = join('/tmp', `${prefix}seccomp.bpf`);
  writeFileSync(seccompFile, denyListProgram(), { mode: 0o600 });
  // The folders the agent hides from vtysh besides its data directory (linux-emulator.ts).
  const masks = ['/etc/frr', '/var/lib/frr', '/var/log/frr'].filter((dir) => existsSync(dir));
  const setup: SandboxSetup = { cgroups, seccompFile, masks };
  const kernel = new Places(KERNEL_STEPS_AT_ONCE);
  const fabric = `${prefix}fab`;
  const nsOf = (router: string) => `${prefix}${router}`;
  const show = async (router: string) => {
    const [file, ...args] = userVtyshArgv(nsOf(router), router, setup, ['-c', 'show ip ospf neighbor']);
    return (await runUntilExit(file, args, { timeoutMs: 20_000 })).stdout;
  };
  try {
    const t0 = performance.now();
    await addNamespace(fabric);
    await Promise.all(ring.routers.map((_, link) => kernel.run(() => addBridge(fabric, `b${link}`))));
    await Promise.all(
      ring.routers.map(async (router, i) => {
        const ns = nsOf(router);
        await cgroups.create(ns, { pids: 256, memoryMiB: 64, cpus: 1 });
        // eth0 on the link from the router before, eth1 on the link to the next.
        const links = [(i + size - 1) % size, i];
        await kernel.run(async () => {
          await addNamespace(ns);
          await addVeths(
            fabric,
            ns,
            links.map((link, index) => ({ port: `${router}e${index}`, ifname: `eth${index}`, bridge: `b${link}` })),
          );
          await setLinksUp(
            ns,
            links.map((_, index) => `eth${index}`),
          );
        });
        await startRouter(ns, router, ring.files[`configs/${router}.conf`], host, cgroups);
      }),
    );
    const build = since(t0) / 1000;

    const waiting = new Set(ring.routers);
    const deadline = Date.now() + CONVERGE_LIMIT_MS;
    while (waiting.size > 0) {
      if (Date.now() > deadline) throw new Error(`baseline: ${waiting.size} routers not Full in time`);
      await Promise.all(
        [...waiting].map(async (router) => {
          if (fullNeighbours(await show(router)) >= 2) waiting.delete(router);
        }),
      );
      if (waiting.size > 0) await sleep(POLL_PAUSE_MS);
    }
    const full = since(t0) / 1000;
    const daemons = processesOf(prefix);
    const frrRssPerRouter = daemons.reduce((sum, pid) => sum + (rssOf(pid) ?? 0), 0) / size;

    let t = performance.now();
    await Promise.all(ring.routers.map(show));
    const exec = since(t) / 1000;

    t = performance.now();
    await Promise.all(
      ring.routers.map(async (router) => {
        const ns = nsOf(router);
        await removeRouter(ns);
        await cgroups.kill(ns);
        await kernel.run(() => deleteNamespace(ns));
        await cgroups.remove(ns);
      }),
    );
    await deleteNamespace(fabric);
    const destroy = since(t) / 1000;
    return { build, full, exec, destroy, frrRssPerRouter };
  } finally {
    await sweepBaseline(prefix, cgroups);
    rmSync(seccompFile, { force: true });
  }
}

/** Removes whatever still carries the prefix (after a failure); returns what it found. */
export async function sweepBaseline(prefix: string, cgroups: NodeCgroups): Promise<number> {
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
