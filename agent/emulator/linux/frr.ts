/**
 * One FRRouting instance per router node: its daemons run inside the node's
 * namespace in their own FRR path space (`-N <namespace>`), with the run
 * directory /var/run/frr/<namespace>/ holding pid files, sockets and the
 * config they booted from. vtysh runs in the same namespace and path space,
 * with the router's hostname (so its prompt and running config name the
 * router, not the machine).
 */
import { chownSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mustRun, runCommand, type CommandResult } from './command';
import { commandLine, inNamespaceAs, processAlive, terminate } from './kernel';
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
const READY_TIMEOUT_MS = 15_000;
const VTYSH_TIMEOUT_MS = 10_000;

export function runDirOf(ns: string): string {
  return join(FRR_RUN_DIR, ns);
}

/** zebra and staticd always; each other daemon when the config has its section and it is installed. */
export function daemonsFor(config: string, host: LinuxHost): string[] {
  const wanted = SECTION_DAEMONS.filter(([pattern]) => pattern.test(config)).map(([, daemon]) => daemon);
  return ['zebra', 'staticd', ...host.daemons.filter((d) => wanted.includes(d))];
}

/** The hostname a config sets (its first top-level `hostname`), or `fallback`. */
export function hostnameOf(config: string, fallback: string): string {
  return /^hostname\s+(\S+)/m.exec(config)?.[1] ?? fallback;
}

/** vtysh in a router's path space (no pager: consoles and exec want the whole output). */
export function vtyshArgv(ns: string, extra: readonly string[]): string[] {
  return ['env', 'VTYSH_PAGER=cat', 'vtysh', '-N', ns, '--config_dir', FRR_RUN_DIR, ...extra];
}

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
  return runCommand('ip', inNamespaceAs(ns, hostname, argv), { timeoutMs });
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

/** Writes the config and starts the daemons; resolves once vtysh answers. */
export async function startRouter(ns: string, hostname: string, config: string, host: LinuxHost): Promise<void> {
  const dir = runDirOf(ns);
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  const conf = join(dir, 'frr.conf');
  writeFileSync(conf, config.endsWith('\n') ? config : `${config}\n`, { mode: 0o640 });
  writeFileSync(join(dir, 'vtysh.conf'), '', { mode: 0o640 });
  if (host.frrUser) {
    for (const path of [dir, conf, join(dir, 'vtysh.conf')]) chownSync(path, host.frrUser.uid, host.frrUser.gid);
  }
  // A router forwards: the namespace starts with forwarding off.
  await mustRun('ip', [
    'netns',
    'exec',
    ns,
    'sysctl',
    '-q',
    '-w',
    'net.ipv4.ip_forward=1',
    'net.ipv6.conf.all.forwarding=1',
  ]);
  for (const daemon of daemonsFor(config, host)) {
    const argv = [`${FRR_DAEMON_DIR}/${daemon}`, '-d', '-N', ns, '-f', conf, '-i', join(dir, `${daemon}.pid`)];
    await mustRun('ip', inNamespaceAs(ns, hostname, argv));
  }
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answer = await vtysh(ns, hostname, ['show version'], 5000);
    if (answer.code === 0) return;
    if (Date.now() > deadline)
      throw new Error(`FRR in ${ns} did not answer vtysh within ${READY_TIMEOUT_MS / 1000} s: ${answer.stderr.trim()}`);
    await sleep(100);
  }
}

/** `show running-config` without vtysh's banner and with one hostname (vtysh repeats its own). */
export async function runningConfig(ns: string, hostname: string): Promise<string | undefined> {
  const result = await vtysh(ns, hostname, ['show running-config']);
  if (result.code !== 0) return undefined;
  const lines = result.stdout.replace(/\r/g, '').split('\n');
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
