/**
 * One FRRouting instance per router node: its daemons run inside the node's
 * namespace in their own FRR path space (`-N <namespace>`), with the run
 * directory /var/run/frr/<namespace>/ holding pid files, sockets and the
 * config they booted from. vtysh runs in the same namespace and path space,
 * with the router's hostname (so its prompt and running config name the
 * router, not the machine).
 */
import { chownSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mustRun, runProcess, type CommandResult } from './command';
import type { NodeCgroups } from './cgroup';
import { commandLine, inNamespaceAs, processAlive, terminate } from './kernel';
import {
  cleanEnv,
  maskArgs,
  readOnlyRootArgs,
  RESET_SIGNALS,
  safeHostname,
  withFd3,
  type SandboxSetup,
} from './sandbox';
import { FRR_DAEMON_DIR, FRR_RUN_DIR, type LinuxHost } from './system';

/** `router …` (and other top-level) sections, and the daemon each needs. */
const SECTION_DAEMONS: [RegExp, string][] = [
  [/^router bgp\b/m, 'bgpd'],
  [/^router ospf6\b/m, 'ospf6d'],
  [/^router ospf(?!6)\b/m, 'ospfd'],
  [/^router ripng\b/m, 'ripngd'],
  [/^router rip(?!ng)\b/m, 'ripd'],
  [/^router isis\b/m, 'isisd'],
  [/^router pim\b|^ip pim\b|^\s+ip pim\b/m, 'pimd'],
  [/^mpls ldp\b/m, 'ldpd'],
  [/^bfd\b/m, 'bfdd'],
];
/**
 * How long a router's daemons may take to start, and then vtysh to answer them (each): starts under way share
 * the CPU (on 2 cores, 200 at once take a minute or more each), so this only catches one that hangs.
 */
const READY_TIMEOUT_MS = 180_000;
const VTYSH_TIMEOUT_MS = 10_000;
/**
 * Boots a router inside its namespace: `boot DAEMON_DIR NS RUN_DIR zebra DAEMON…`. A router forwards (a namespace
 * starts with forwarding off). `-d` returns once the daemon has read its config; `-P 0`: no TCP vty (vtysh talks
 * to the daemons over their unix sockets). Any step failing fails the boot with its exit code.
 */
const BOOT_SCRIPT = [
  'bin=$1 ns=$2 dir=$3; shift 3',
  'sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || exit',
  'boot() { "$bin/$1" -d -N "$ns" -P 0 -f "$dir/frr.conf" -i "$dir/$1.pid"; }',
  'boot "$1" || exit; shift',
  'pids=; for d; do boot "$d" & pids="$pids $!"; done',
  'for p in $pids; do wait "$p" || exit; done',
].join('\n');

export function runDirOf(ns: string): string {
  return join(FRR_RUN_DIR, ns);
}

/** zebra and staticd always; each other daemon when the config has its section and it is installed. */
export function daemonsFor(config: string, host: LinuxHost): string[] {
  const wanted = SECTION_DAEMONS.filter(([pattern]) => pattern.test(config)).map(([, daemon]) => daemon);
  return ['zebra', 'staticd', ...host.daemons.filter((d) => wanted.includes(d))];
}

/**
 * The hostname a config sets (its first top-level `hostname`) when it is a
 * plain host name, else `fallback`: it reaches hostname(1) and sethostname(2),
 * where `-F/path` would read a file.
 */
export function hostnameOf(config: string, fallback: string): string {
  return safeHostname(/^hostname\s+(\S+)/m.exec(config)?.[1] ?? fallback, fallback);
}

/** vtysh in a router's path space (no pager: consoles and exec want the whole output). */
function vtyshArgv(ns: string, extra: readonly string[]): string[] {
  return ['env', 'VTYSH_PAGER=cat', 'vtysh', '-N', ns, '--config_dir', FRR_RUN_DIR, ...extra];
}

/**
 * vtysh as a user's console or exec runs it: in the router's cgroup and
 * namespace, in a mount namespace where the file system is read-only but for
 * the router's own run folder (FRR's other folders, the agent's data and
 * /root masked), as the frr user with no capabilities, no_new_privs and the
 * seccomp deny-list, with a history file of the router's own and a clean
 * environment. `copy FILE running-config` and `output file` reach only what
 * the frr user may touch in that view.
 */
export function userVtyshArgv(ns: string, hostname: string, setup: SandboxSetup, extra: readonly string[]): string[] {
  const runDir = realpathSync(runDirOf(ns));
  const bwrap = [
    'ip',
    'netns',
    'exec',
    ns,
    'bwrap',
    '--unshare-uts',
    ...readOnlyRootArgs(hostname),
    ...maskArgs(['/run', '/tmp', '/root', '/home', ...setup.masks]),
    // bwrap would make the folders above the bind 0700 root: frr must pass through them.
    '--perms',
    '0755',
    '--dir',
    dirname(runDir),
    '--bind',
    runDir,
    runDir,
    '--die-with-parent',
    ...cleanEnv(runDir, { VTYSH_PAGER: 'cat' }),
    '--chdir',
    runDir,
    '--seccomp',
    '3',
    '--',
    'setpriv',
    '--reuid=frr',
    '--regid=frr',
    '--init-groups',
    '--nnp',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
    ...RESET_SIGNALS,
    'vtysh',
    '-N',
    ns,
    '--config_dir',
    FRR_RUN_DIR,
    '-H',
    join(runDir, 'vtysh.history'),
    ...extra,
  ];
  return setup.cgroups.joinArgv(ns, withFd3(setup.seccompFile, bwrap));
}

/** vtysh with commands the agent itself writes (readiness, running config), as root in the router's namespace. */
export async function vtysh(
  ns: string,
  hostname: string,
  commands: readonly string[],
  timeoutMs = VTYSH_TIMEOUT_MS,
): Promise<CommandResult> {
  const argv = vtyshArgv(
    ns,
    commands.flatMap((c) => ['-c', c]),
  );
  return runProcess('ip', inNamespaceAs(ns, hostname, argv), { timeoutMs });
}

/** The daemons' pids from their pid files, each checked to be FRR running in this path space. */
function daemonPids(ns: string): Map<string, number> {
  const found = new Map<string, number>();
  let files: string[];
  try {
    files = readdirSync(runDirOf(ns)).filter((f) => f.endsWith('.pid'));
  } catch {
    return found;
  }
  for (const file of files) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(runDirOf(ns), file), 'utf8').trim());
    } catch {
      continue;
    }
    if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) continue;
    const argv = commandLine(pid);
    // Only a process that names this exact path space is ours to signal.
    if (argv?.[0]?.startsWith(`${FRR_DAEMON_DIR}/`) && argv[argv.indexOf('-N') + 1] === ns)
      found.set(file.replace(/\.pid$/, ''), pid);
  }
  return found;
}

export function routerAlive(ns: string): boolean {
  return daemonPids(ns).has('zebra');
}

/**
 * Writes the config and starts the daemons; resolves once vtysh answers `probe`, with its answer.
 * A caller that needs the running config right after the start asks for it as the probe: one vtysh
 * the less per router (vtysh builds FRR's whole command tree each run: under load it costs seconds).
 */
export async function startRouter(
  ns: string,
  hostname: string,
  config: string,
  host: LinuxHost,
  cgroups: NodeCgroups,
  probe = 'show version',
): Promise<string> {
  const dir = runDirOf(ns);
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  const conf = join(dir, 'frr.conf');
  writeFileSync(conf, config.endsWith('\n') ? config : `${config}\n`, { mode: 0o640 });
  // vtysh as frr would ask PAM, which needs /etc/shadow (out of reach under no_new_privs): frr may use it without a password.
  writeFileSync(join(dir, 'vtysh.conf'), 'username frr nopassword\n', { mode: 0o640 });
  if (host.frrUser) {
    for (const path of [dir, conf, join(dir, 'vtysh.conf')]) chownSync(path, host.frrUser.uid, host.frrUser.gid);
  }
  // One process chain boots the router (a chain each for sysctl and every daemon cost 4 chains of 5 programs, run one
  // after another): it joins the cgroup, enters the namespace and a UTS namespace named for the router, turns forwarding
  // on, starts zebra, then the other daemons side by side (they connect to zebra, which listens once its `-d` returns).
  const [file, ...args] = cgroups.joinArgv(ns, [
    'ip',
    ...inNamespaceAs(ns, hostname, [
      'sh',
      '-c',
      BOOT_SCRIPT,
      'boot',
      FRR_DAEMON_DIR,
      ns,
      dir,
      ...daemonsFor(config, host),
    ]),
  ]);
  await mustRun(file, args, { timeoutMs: READY_TIMEOUT_MS });
  // Each daemon's `-d` returned once it had read its config: vtysh answers at the first try but for a rare race.
  // A try may take the time left (killing a slow vtysh under load only wastes what it has done).
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answer = await vtysh(ns, hostname, [probe], Math.max(1000, deadline - Date.now()));
    if (answer.code === 0) return answer.stdout;
    if (Date.now() > deadline)
      throw new Error(`FRR in ${ns} did not answer vtysh within ${READY_TIMEOUT_MS / 1000} s: ${answer.stderr.trim()}`);
    await sleep(100);
  }
}

/** `show running-config` without vtysh's banner and with one hostname (vtysh repeats its own). */
export async function runningConfig(ns: string, hostname: string): Promise<string | undefined> {
  const result = await vtysh(ns, hostname, [SHOW_RUNNING_CONFIG]);
  return result.code === 0 ? runningConfigOf(result.stdout) : undefined;
}

export const SHOW_RUNNING_CONFIG = 'show running-config';

/** The config in what vtysh printed for `show running-config`. */
export function runningConfigOf(stdout: string): string {
  const lines = stdout.replace(/\r/g, '').split('\n');
  const start = lines.findIndex((l) => l.startsWith('Current configuration:'));
  let seenHostname = false;
  return lines
    .slice(start + 1)
    .filter((line, i) => !(i === 0 && line === '!'))
    .filter((line) => {
      if (!line.startsWith('hostname ')) return true;
      if (seenHostname) return false;
      seenHostname = true;
      return true;
    })
    .join('\n')
    .trim();
}

/**
 * Stops the daemons: SIGTERM and wait up to `graceMs` (FRR shuts down
 * cleanly), then SIGKILL whatever is left. graceMs 0 kills at once.
 */
export async function stopRouter(ns: string, graceMs: number): Promise<void> {
  await terminate([...daemonPids(ns).values()], graceMs);
}

/** Kills the daemons at once and removes the run directory. */
export async function removeRouter(ns: string): Promise<void> {
  await stopRouter(ns, 0);
  rmSync(runDirOf(ns), { recursive: true, force: true });
}
