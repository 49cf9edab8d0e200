/**
 * The processes the Linux emulator runs beside its labs for captures (dumpcap, capture.ts) and
 * their summaries (tshark, tshark-summaries.ts): each in a cgroup of its own named with the
 * agent's prefix and its kind (lab-<agent>-cap<id>, lab-<agent>-sum<id>), kept while it runs,
 * its cgroup removed once it has exited, and every one stopped when the agent stops.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { NodeCgroups, NodeLimits } from './cgroup';
import type { LinuxNames } from './names';

const KIND_NAMES = { cap: 'capture', sum: 'capture summaries' } as const;

/** A started process's handle: `exited` settles once the process has exited. */
interface RunningProcess {
  readonly exited: Promise<void>;
}

/** What to start: the cgroup's kind and limits, the command, and the handle made of the child. */
interface ProcessStart<T> {
  kind: 'cap' | 'sum';
  limits: NodeLimits;
  argv: string[];
  options: SpawnOptions;
  /** The handle of the child; it calls `exited` once the process has exited. */
  handle(child: ChildProcess, exited: () => void): T;
}

export class CgroupProcesses<T extends RunningProcess> {
  protected readonly running = new Set<T>();

  constructor(
    private readonly names: LinuxNames,
    private readonly cgroups: NodeCgroups,
    protected readonly log: (message: string) => void,
  ) {}

  /** Starts the process in a new cgroup of its own; the handle is kept until the process exits. */
  protected async spawnInCgroup(start: ProcessStart<T>): Promise<T> {
    const cgroup = `${this.names.prefix}${start.kind}${randomBytes(4).toString('hex')}`;
    await this.cgroups.create(cgroup, start.limits);
    const argv = this.cgroups.joinArgv(cgroup, start.argv);
    const child = spawn(argv[0], argv.slice(1), start.options);
    const handle = start.handle(child, () => {
      this.running.delete(handle);
      void this.cgroups
        .remove(cgroup)
        .catch((e: Error) => this.log(`${KIND_NAMES[start.kind]}: could not remove ${cgroup}: ${e.message}`));
    });
    this.running.add(handle);
    return handle;
  }

  /** Stops every running process with `stop`; resolves when they have all exited. */
  protected async stopAll(stop: (handle: T) => void): Promise<void> {
    const all = [...this.running];
    for (const handle of all) stop(handle);
    await Promise.all(all.map((handle) => handle.exited));
  }
}

/**
 * What a process prints, for its reader to pull: the handle pushes into it (pausing `stdout` when
 * `held` items wait), a read resumes `stdout`, and a reader that destroys it stops the process.
 */
export function pulledOutput(stdout: Readable, held: number, stop: () => void): Readable {
  return new Readable({
    objectMode: true,
    highWaterMark: held,
    read: () => stdout.resume(),
    destroy: (error, done) => {
      stop();
      done(error);
    },
  });
}
