/**
 * Hosts and switches run in a sandbox: an unprivileged user namespace (root
 * inside is an unprivileged uid range outside, so file permissions and the
 * root namespaces stay out of reach) owning the node's network, pid, mount,
 * uts, ipc and cgroup namespaces. The file system is the machine's, read-only,
 * with private sized tmpfs on /tmp, /run, /root and /home, and the agent's data
 * directory, /run/netns and FRR's folders masked. Every program a user starts
 * in the node (startup script, exec, console shell) runs with no_new_privs
 * and the seccomp deny-list.
 *
 * The sandbox is made with bubblewrap (Debian's `bubblewrap`), which does the
 * mount, namespace and seccomp steps in one well-reviewed program that needs
 * no build step. Root can map a child user namespace itself (no newuidmap,
 * no /etc/subuid entry): `unshare --user` makes an empty one, the agent writes
 * its uid_map and gid_map, and bubblewrap is started inside it.
 *
 * Process model of a node (while it exists, stopped or running):
 *   bwrap (outer, in the agent's pid namespace)
 *     └ bwrap (pid 1 of the node: reaps orphans)  ← `ip netns attach <ns>` names its network namespace
 *         └ sleep infinity
 * A program in the node is started as
 *   cgroup join → nsenter -t <pid 1> (all its namespaces) → bwrap (seccomp, no_new_privs, clean env, cwd /root) → program.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NodeCgroups } from './cgroup';
import { mustRun } from './command';
import { processAlive, signalAll } from './kernel';

/** Outside uids BASE … BASE+65535 stand for 0 … 65535 inside; BASE is one of these slots, picked by the node's name. */
const UID_RANGE = 65_536;
const UID_SLOTS_FROM = 0x4000_0000;
const UID_SLOTS = 16_384;
/** Size of each private tmpfs (/tmp, /run, /root, /home): a node's disk. */
const NODE_TMPFS_MIB = 64;
const READY_TIMEOUT_MS = 10_000;
const NODE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The first outside uid of a node's range. */
function uidBaseOf(ns: string): number {
  const slot = createHash('sha256').update(ns).digest().readUInt32BE(0) % UID_SLOTS;
  return UID_SLOTS_FROM + slot * UID_RANGE;
}

/** A name sethostname(2) and a shell prompt take as it is; anything else becomes `fallback`. */
export function safeHostname(name: string, fallback: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$/.test(name) ? name : fallback;
}

/** bwrap arguments that keep the environment of a node's program to what it needs. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): string[] {
  const env = { PATH: NODE_PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'xterm', ...extra };
  return ['--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v])];
}

/** `bwrap` arguments for the view every sandbox starts from: its own hostname, the machine's file system read-only, a private /dev. */
export function readOnlyRootArgs(hostname: string): string[] {
  return ['--hostname', hostname, '--ro-bind', '/', '/', '--dev', '/dev'];
}

/** `bwrap` arguments that mask each existing folder with an empty tmpfs. */
export function maskArgs(paths: readonly string[]): string[] {
  return paths.flatMap((path) => ['--tmpfs', path]);
}

/**
 * Prefixes argv with a shell that opens `file` as fd 3 (bwrap's `--seccomp 3`)
 * and execs it with Ctrl-C, Ctrl-\\ and Ctrl-Z ignored: on a console they go to
 * the whole process group, and nsenter or bwrap waiting for the program must
 * not die or stop of them (the program gets them back by RESET_SIGNALS).
 */
export function withFd3(file: string, argv: readonly string[]): string[] {
  return ['sh', '-c', 'trap "" INT QUIT TSTP; exec "$@" 3<"$0"', file, ...argv];
}

/** Puts the terminal signals back to their default for the node's program (see withFd3). */
export const RESET_SIGNALS = ['env', '--default-signal=INT,QUIT,TSTP'];

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(wait);
  }
}

export interface SandboxSetup {
  cgroups: NodeCgroups;
  /** The compiled seccomp deny-list (seccomp.ts), readable by root only. */
  seccompFile: string;
  /** Folders hidden from the node beside /run (the agent's data directory, FRR's folders). */
  masks: readonly string[];
}

/**
 * Makes a host's or switch's sandbox in the node's cgroup and names its
 * network namespace `ns`; resolves with the pid of the node's pid 1.
 */
export async function startSandbox(ns: string, hostname: string, setup: SandboxSetup): Promise<number> {
  const { cgroups } = setup;
  const spawnDetached = (argv: string[]) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    child.on('error', (e) => {
      stderr += e.message;
    });
    child.unref();
    return { child, said: () => stderr.trim() };
  };
  const userns = spawnDetached(cgroups.joinArgv(ns, ['unshare', '--user', '--', 'sleep', 'infinity']));
  const holder = userns.child.pid;
  if (holder === undefined) throw new Error(`could not start unshare: ${userns.said()}`);
  try {
    const own = readlinkSync('/proc/self/ns/user');
    await until(() => {
      try {
        return readlinkSync(`/proc/${holder}/ns/user`) !== own ? true : undefined;
      } catch {
        throw new Error(`unshare --user ended: ${userns.said()}`);
      }
    }, 'the user namespace was not made');
    const base = uidBaseOf(ns);
    writeFileSync(`/proc/${holder}/uid_map`, `0 ${base} ${UID_RANGE}\n`);
    writeFileSync(`/proc/${holder}/gid_map`, `0 ${base} ${UID_RANGE}\n`);
    const bwrap = [
      'nsenter',
      `--user=/proc/${holder}/ns/user`,
      '--',
      'bwrap',
      '--unshare-net',
      '--unshare-pid',
      '--unshare-uts',
      '--unshare-ipc',
      '--unshare-cgroup',
      ...readOnlyRootArgs(hostname),
      '--proc',
      '/proc',
      ...['/tmp', '/run', '/root', '/home'].flatMap((dir) => ['--size', String(NODE_TMPFS_MIB << 20), '--tmpfs', dir]),
      ...maskArgs(setup.masks),
      '--seccomp',
      '3',
      '--',
      'sleep',
      'infinity',
    ];
    const sandbox = spawnDetached(cgroups.joinArgv(ns, withFd3(setup.seccompFile, bwrap)));
    const outer = sandbox.child.pid;
    if (outer === undefined) throw new Error(`could not start bwrap: ${sandbox.said()}`);
    const init = await until(() => {
      if (!processAlive(outer)) throw new Error(`bwrap ended: ${sandbox.said()}`);
      const [pid1] = children(outer);
      return pid1 !== undefined && children(pid1).some((pid) => comm(pid) === 'sleep') ? pid1 : undefined;
    }, 'the sandbox was not ready');
    sandbox.child.stderr?.destroy();
    await mustRun('ip', ['netns', 'attach', ns, String(init)]);
    await mustRun('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    return init;
  } finally {
    // The sandbox holds the user namespace from here; the empty holder is not needed.
    signalAll([holder], 'SIGKILL');
    userns.child.stderr?.destroy();
  }
}

/** The node's pid 1 (bwrap's init) among the processes of its cgroup, if it runs. */
export function sandboxInit(ns: string, cgroups: NodeCgroups): number | undefined {
  return cgroups.members(ns).find((pid) => {
    try {
      const nspid = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1].split(/\s+/);
      return nspid?.length === 2 && nspid[1] === '1';
    } catch {
      return false;
    }
  });
}

/**
 * argv that runs `program` inside a running sandbox as root of the node,
 * with no_new_privs, the seccomp deny-list, a clean environment and /root as
 * its working folder; it ends when its parent (the agent's child) dies.
 */
export function sandboxExecArgv(
  ns: string,
  init: number,
  setup: SandboxSetup,
  program: readonly string[],
  env: Record<string, string> = {},
): string[] {
  const argv = [
    'nsenter',
    '-t',
    String(init),
    '--user',
    '--mount',
    '--net',
    '--pid',
    '--uts',
    '--ipc',
    '--cgroup',
    '--',
    'bwrap',
    '--dev-bind',
    '/',
    '/',
    '--die-with-parent',
    ...cleanEnv('/root', env),
    '--chdir',
    '/root',
    '--seccomp',
    '3',
    '--',
    ...RESET_SIGNALS,
    ...program,
  ];
  return setup.cgroups.joinArgv(ns, withFd3(setup.seccompFile, argv));
}
