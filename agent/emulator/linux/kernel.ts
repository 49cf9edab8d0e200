/**
 * The kernel objects of a lab, made and read with iproute2: network
 * namespaces, veth pairs between a node's namespace and the lab's fabric
 * namespace, and bridges inside the fabric. Nothing here touches the root
 * namespace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CommandError, mustRun, runProcess, type CommandResult } from './command';

export interface LiveLink {
  ifname: string;
  /** The bridge the interface is enslaved to. */
  master?: string;
  up: boolean;
}

/** A process that is not a zombie (zombies hold no resources and cannot be killed). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/s.test(stat);
  } catch {
    return false;
  }
}

/** The command line of a process, or undefined when it is gone. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Sends a signal to each process still alive (one that is gone already is fine). */
export function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      if (processAlive(pid)) process.kill(pid, signal);
    } catch {
      // gone in between
    }
  }
}

/** SIGTERM, then up to `graceMs` for the processes to end, then SIGKILL for any left; 0 kills at once. */
export async function terminate(pids: readonly number[], graceMs: number): Promise<void> {
  if (graceMs > 0) {
    signalAll(pids, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (pids.some(processAlive) && Date.now() < deadline) await sleep(50);
  }
  signalAll(pids, 'SIGKILL');
}

export async function listNamespaces(): Promise<string[]> {
  const out = await mustRun('ip', ['netns', 'list']);
  return out
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter(Boolean);
}

/** Where iproute2 keeps the named namespaces (`ip netns list` lists this folder). */
const NETNS_DIR = '/run/netns';

/** Whether the named namespace exists: by its name in /run/netns, as `ip netns list` sees it, with no command run. */
export function namespaceExists(ns: string): boolean {
  return existsSync(join(NETNS_DIR, ns));
}

export async function addNamespace(ns: string): Promise<void> {
  await mustRun('ip', ['netns', 'add', ns]);
  await mustRun('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
}

/** Processes whose network namespace is `ns` (all of them were started by this agent in it). */
export async function namespacePids(ns: string): Promise<number[]> {
  const result = await runProcess('ip', ['netns', 'pids', ns], { timeoutMs: 5000 });
  if (result.code !== 0) return [];
  return result.stdout
    .split('\n')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid));
}

/** Kills every process in the namespace, then deletes it (its veth ends go with it). */
export async function deleteNamespace(ns: string): Promise<void> {
  // Most calls make sure no leftover of a name is in the way: nothing to run when there is none.
  if (!namespaceExists(ns)) return;
  signalAll(await namespacePids(ns), 'SIGKILL');
  const result = await runProcess('ip', ['netns', 'del', ns]);
  if (result.code !== 0 && !/No such file|Invalid argument/.test(result.stderr))
    await mustRun('ip', ['netns', 'del', ns]);
}

/**
 * The `ip` command (without `ip`) that makes a bridge: no STP and no forward delay, so a link forwards
 * the moment it is up, as a cable would; made up in the same command.
 */
export function bridgeCommand(name: string): string {
  return `link add ${name} up type bridge stp_state 0 forward_delay 0 mcast_snooping 0`;
}

export async function addBridge(ns: string, name: string): Promise<void> {
  await mustRun('ip', ['-n', ns, ...bridgeCommand(name).split(' ')]);
}

export async function deleteLink(ns: string, name: string): Promise<void> {
  const result = await runProcess('ip', ['-n', ns, 'link', 'del', name]);
  if (result.code !== 0 && !/Cannot find device/.test(result.stderr))
    await mustRun('ip', ['-n', ns, 'link', 'del', name]);
}

/** One veth pair of a node: `port` in the fabric, on `bridge` when given; `ifname` in the node's namespace. */
export interface VethPair {
  port: string;
  ifname: string;
  bridge?: string;
}

/**
 * A node's veth pairs, made by one `ip -batch` in the fabric: each `port` up and on its bridge,
 * each `ifname` in the node's namespace (down until the node starts). One process for all of them:
 * with hundreds of nodes made side by side, every `ip` run spawned costs more than what it asks.
 */
export async function addVeths(fabric: string, nodeNs: string, pairs: readonly VethPair[]): Promise<void> {
  if (!pairs.length) return;
  await mustRun('ip', ['-n', fabric, '-batch', '-'], { input: `${vethCommands(nodeNs, pairs).join('\n')}\n` });
}

/** The `ip -batch` lines of addVeths. */
export function vethCommands(nodeNs: string, pairs: readonly VethPair[]): string[] {
  return pairs.flatMap(({ port, ifname, bridge }) => [
    `link add ${port} up type veth peer name ${ifname} netns ${nodeNs}`,
    ...(bridge ? [masterCommand(port, bridge)] : []),
  ]);
}

/** The `ip` command (without `ip`) that puts a fabric port on a bridge, or takes it off any (bridge undefined). */
export function masterCommand(port: string, bridge: string | undefined): string {
  return `link set ${port} ${bridge ? `master ${bridge}` : 'nomaster'}`;
}

/** Sets the interfaces up, by one `ip -batch` (a process for each costs more than what it asks). */
export async function setLinksUp(ns: string, ifnames: readonly string[]): Promise<void> {
  if (!ifnames.length) return;
  await mustRun('ip', ['-n', ns, '-batch', '-'], { input: `${ifnames.map((n) => `link set ${n} up`).join('\n')}\n` });
}

/** The interfaces of a namespace; none when it does not exist. */
export async function links(ns: string): Promise<LiveLink[]> {
  const result = await runProcess('ip', ['-j', '-n', ns, 'link', 'show'], {
    timeoutMs: 5000,
  });
  if (result.code !== 0) return [];
  const parsed = JSON.parse(result.stdout || '[]') as { ifname: string; master?: string; flags?: string[] }[];
  return parsed.map((l) => ({ ifname: l.ifname, master: l.master, up: Boolean(l.flags?.includes('UP')) }));
}

/** The interfaces named `devs` of a namespace, read by one `ip -batch`; those that do not exist are left out. */
export async function linksNamed(ns: string, devs: readonly string[]): Promise<LiveLink[]> {
  if (!devs.length) return [];
  const input = `${devs.map((dev) => `link show dev ${dev}`).join('\n')}\n`;
  // -force: a missing interface does not stop the others being read (one JSON array per line answered).
  const result = await runProcess('ip', ['-j', '-n', ns, '-force', '-batch', '-'], { timeoutMs: 5000, input });
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('['))
    .flatMap((line) => JSON.parse(line) as { ifname: string; master?: string; flags?: string[] }[])
    .map((l) => ({ ifname: l.ifname, master: l.master, up: Boolean(l.flags?.includes('UP')) }));
}

/**
 * `ip` arguments that run `argv` inside a namespace and a UTS namespace of its
 * own named `hostname`, so prompts and FRR's running config name the node, not the machine.
 */
export function inNamespaceAs(ns: string, hostname: string, argv: readonly string[]): string[] {
  return [
    'netns',
    'exec',
    ns,
    'unshare',
    '--uts',
    'sh',
    '-c',
    'hostname "$1" && shift && exec "$@"',
    'sh',
    hostname,
    ...argv,
  ];
}

/** Lines one `ip -batch` of an IpBatch takes at most (the rest wait for the next). */
const BATCH_LINES = 512;
const BATCH_TIMEOUT_MS = 60_000;

interface BatchEntry {
  lines: string[];
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * `ip` commands for one namespace from many callers at once, run by as few `ip -batch` processes
 * as possible: while one runs, what arrives waits and goes in the next. An apply wires hundreds of
 * ports on a lab's fabric side by side, and every `ip` run costs a process (about 50 ms under load)
 * and queues on the kernel's lock, where a line of a batch costs a fraction of that. A failing line
 * stops the batch (no -force): its caller gets the error, those before it are done, those after it
 * run in the next batch. `place` runs each batch (the realizer's kernel places).
 */
export class IpBatch {
  private readonly queue: BatchEntry[] = [];
  private running = false;

  constructor(
    private readonly ns: string,
    private readonly place: (work: () => Promise<CommandResult>) => Promise<CommandResult>,
  ) {}

  run(lines: readonly string[]): Promise<void> {
    if (!lines.length) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ lines: [...lines], resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const batch: BatchEntry[] = [];
        let count = 0;
        while (this.queue.length && (batch.length === 0 || count + this.queue[0].lines.length <= BATCH_LINES)) {
          const entry = this.queue.shift() as BatchEntry;
          batch.push(entry);
          count += entry.lines.length;
        }
        const args = ['-n', this.ns, '-batch', '-'];
        const input = `${batch.flatMap((e) => e.lines).join('\n')}\n`;
        const result = await this.place(() => runProcess('ip', args, { input, timeoutMs: BATCH_TIMEOUT_MS }));
        if (result.code === 0) {
          for (const entry of batch) entry.resolve();
          continue;
        }
        const failed = Number(/Command failed -:(\d+)/.exec(result.stderr)?.[1]);
        let line = 0;
        for (const [index, entry] of batch.entries()) {
          line += entry.lines.length;
          // Without a line number (killed at its time limit) no entry is known to be done.
          if (failed > 0 && line < failed) {
            entry.resolve();
            continue;
          }
          entry.reject(new CommandError(`ip ${args.join(' ')} (${entry.lines.join('; ')})`, result));
          if (failed > 0) {
            this.queue.unshift(...batch.slice(index + 1));
            break;
          }
        }
      }
    } finally {
      this.running = false;
    }
  }
}
