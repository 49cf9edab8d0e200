/**
 * One cgroup per node, written directly in cgroupfs (no systemd: PID 1 may
 * not be systemd, and the agent must not depend on a session bus). It bounds
 * the node's processes, memory and CPU, and it is how a node is stopped:
 * every process the agent starts for a node joins the cgroup before its first
 * instruction, and cgroup membership survives leaving a namespace, so killing
 * the cgroup's members finds a process that did `unshare -n` or `nsenter`.
 *
 * Two layouts: cgroup v1 (a hierarchy per controller under
 * /sys/fs/cgroup/{pids,memory,cpu}, as on hybrid machines without systemd)
 * and cgroup v2 (one tree, /sys/fs/cgroup/cgroup.controllers present, as on
 * stock Debian 12). The cgroup is named like the node's namespace, so it
 * carries the agent's id and leftovers are found by prefix. The root is a
 * parameter so that both layouts can be checked against a tree of plain files
 * (test/unit/cgroup-layouts.test.ts): a hybrid machine such as this project's
 * cannot have pids, memory and cpu on v2, where they are bound to v1.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signalAll } from './kernel';

const ROOT = '/sys/fs/cgroup';
const V1_CONTROLLERS = ['pids', 'memory', 'cpu'] as const;
const CPU_PERIOD_US = 100_000;
/** Rounds of "kill every member" before giving up (each round SIGKILLs every member; forks are bounded by pids.max). */
const KILL_ROUNDS = 100;
const MiB = 1024 * 1024;

export interface NodeLimits {
  /** Processes and threads at most (pids.max). */
  pids: number;
  /** Memory at most, MiB (swap not allowed beyond it); 0 for no limit. */
  memoryMiB: number;
  /** CPUs' worth of time per period; 0 for no limit. */
  cpus: number;
}

export type CgroupVersion = 1 | 2;

/** The layout this machine uses, or a sentence saying what is missing. */
export function detectCgroups(root = ROOT): CgroupVersion | string {
  if (existsSync(join(root, 'cgroup.controllers'))) {
    const available = readFileSync(join(root, 'cgroup.controllers'), 'utf8').split(/\s+/);
    const missing = V1_CONTROLLERS.filter((c) => !available.includes(c));
    return missing.length ? `cgroup v2 lacks the ${missing.join(', ')} controller(s)` : 2;
  }
  const missing = V1_CONTROLLERS.filter((c) => !existsSync(join(root, c, 'cgroup.procs')));
  return missing.length
    ? `no cgroup v2 tree and no cgroup v1 hierarchy for ${missing.join(', ')} under ${root}: mount cgroupfs`
    : 1;
}

export class NodeCgroups {
  constructor(
    readonly version: CgroupVersion,
    /** Where cgroupfs is mounted. */
    private readonly root = ROOT,
  ) {}

  /** The cgroup's directories: one per controller on v1, one on v2. */
  private dirs(name: string): string[] {
    return this.version === 2 ? [join(this.root, name)] : V1_CONTROLLERS.map((c) => join(this.root, c, name));
  }

  /** Makes the cgroup (a leftover of the same name is emptied first) and sets its limits. */
  async create(name: string, limits: NodeLimits): Promise<void> {
    if (this.exists(name)) await this.kill(name);
    if (this.version === 2) this.enableControllers();
    for (const dir of this.dirs(name)) mkdirSync(dir, { recursive: true });
    this.setLimits(name, limits);
  }

  /** Sets the limits of an existing cgroup (a node's `ram` or `cpu` may change while it exists). */
  setLimits(name: string, limits: NodeLimits): void {
    const [first, memory = first, cpu = first] = this.dirs(name);
    writeFileSync(join(first, 'pids.max'), String(limits.pids));
    if (limits.memoryMiB > 0) {
      const bytes = String(limits.memoryMiB * MiB);
      if (this.version === 2) {
        writeFileSync(join(memory, 'memory.max'), bytes);
        if (existsSync(join(memory, 'memory.swap.max'))) writeFileSync(join(memory, 'memory.swap.max'), '0');
      } else {
        writeFileSync(join(memory, 'memory.limit_in_bytes'), bytes);
        // memory+swap no larger than memory: a node does not page out to the machine's swap.
        if (existsSync(join(memory, 'memory.memsw.limit_in_bytes')))
          writeFileSync(join(memory, 'memory.memsw.limit_in_bytes'), bytes);
      }
    }
    if (limits.cpus > 0) {
      const quota = String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US)));
      if (this.version === 2) writeFileSync(join(cpu, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      else {
        writeFileSync(join(cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
        writeFileSync(join(cpu, 'cpu.cfs_quota_us'), quota);
      }
    }
  }

  exists(name: string): boolean {
    return this.dirs(name).some((dir) => existsSync(dir));
  }

  /**
   * `argv` prefixed with a shell that moves itself into the cgroup, then
   * executes argv: the program and all it starts are members from the start.
   */
  joinArgv(name: string, argv: readonly string[]): string[] {
    const files = this.dirs(name).map((dir) => join(dir, 'cgroup.procs'));
    return [
      'sh',
      '-c',
      'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"',
      'sh',
      String(files.length),
      ...files,
      ...argv,
    ];
  }

  /** The cgroup's member processes (empty when it does not exist). */
  members(name: string): number[] {
    const pids = new Set<number>();
    for (const dir of this.dirs(name)) {
      try {
        for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
          if (line.trim()) pids.add(Number(line));
      } catch {
        // not there
      }
    }
    pids.delete(process.pid);
    return [...pids];
  }

  /** SIGTERM to every member, up to `graceMs` for them to end, then kill. */
  async terminate(name: string, graceMs: number): Promise<void> {
    if (graceMs > 0) {
      signalAll(this.members(name), 'SIGTERM');
      const deadline = Date.now() + graceMs;
      while (this.members(name).length && Date.now() < deadline) await sleep(50);
    }
    await this.kill(name);
  }

  /** Kills every member (cgroup.kill on v2, SIGKILL rounds on v1) and waits until none is left. */
  async kill(name: string): Promise<void> {
    const killFile = join(this.dirs(name)[0], 'cgroup.kill');
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const members = this.members(name);
      if (!members.length) return;
      if (this.version === 2 && existsSync(killFile)) writeFileSync(killFile, '1');
      else signalAll(members, 'SIGKILL');
      await sleep(round < 10 ? 5 : 50);
    }
    throw new Error(`the processes of cgroup ${name} did not end: ${this.members(name).join(', ')}`);
  }

  /** Kills the members and removes the cgroup; a cgroup that is not there is fine. */
  async remove(name: string): Promise<void> {
    if (!this.exists(name)) return;
    await this.kill(name);
    for (const dir of this.dirs(name)) {
      for (let attempt = 0; existsSync(dir); attempt++) {
        try {
          rmdirSync(dir);
        } catch (e) {
          // Members that just died may still be leaving it.
          if (attempt >= 40) throw e;
          await sleep(25);
        }
      }
    }
  }

  /** The cgroups whose name starts with `prefix` (leftovers of this agent). */
  list(prefix: string): string[] {
    const parents = this.version === 2 ? [this.root] : V1_CONTROLLERS.map((c) => join(this.root, c));
    const found = new Set<string>();
    for (const parent of parents) {
      try {
        for (const entry of readdirSync(parent)) if (entry.startsWith(prefix)) found.add(entry);
      } catch {
        // controller not mounted
      }
    }
    return [...found];
  }

  /** On v2 a cgroup's limits need its parent to hand it the controllers. */
  private enableControllers(): void {
    const control = join(this.root, 'cgroup.subtree_control');
    const enabled = readFileSync(control, 'utf8').split(/\s+/);
    const missing = V1_CONTROLLERS.filter((c) => !enabled.includes(c));
    if (!missing.length) return;
    try {
      writeFileSync(control, missing.map((c) => `+${c}`).join(' '));
    } catch (e) {
      // A cgroup that holds processes itself cannot hand controllers down (v2's "no internal
      // processes" rule): so it is inside a container whose cgroup namespace starts at /sys/fs/cgroup.
      throw new Error(
        `cannot enable the ${missing.join(', ')} controller(s) in ${control} (${(e as Error).message}): ` +
          "on cgroup v2 the agent makes node cgroups at the root of the tree, which must be the host's root " +
          'cgroup (in a container, move its processes into a child cgroup first).',
        { cause: e },
      );
    }
  }
}
