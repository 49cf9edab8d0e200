/**
 * What this machine offers the Linux emulator, asked from the system itself:
 * the rights to make network namespaces, iproute2, FRRouting's daemons and
 * vtysh, and util-linux's `script` for console pseudo-terminals. A missing
 * piece becomes a sentence that says what to install or change.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { release } from 'node:os';
import { detectCgroups, type CgroupVersion } from './cgroup';
import { runProcess } from './command';
import { seccompSupported } from './seccomp';

export const FRR_DAEMON_DIR = '/usr/lib/frr';
export const FRR_RUN_DIR = '/var/run/frr';
/** FRR's own reload tool: it computes the commands that turn one config into another. */
export const FRR_RELOAD = `${FRR_DAEMON_DIR}/frr-reload.py`;
export const INSTALL_HINT = 'apt-get install -y frr frr-pythontools iputils-ping bubblewrap';

/** Routing daemons a node may run, in FRR's order, beside zebra (always) and staticd (always). */
export const ROUTING_DAEMONS = ['bgpd', 'ospfd', 'ospf6d', 'ripd', 'ripngd', 'isisd', 'pimd', 'ldpd', 'bfdd'] as const;

export interface LinuxHost {
  /** Empty when the emulator can run; otherwise one sentence per missing piece. */
  problems: string[];
  frrVersion: string;
  iproute2Version: string;
  kernel: string;
  /** Routing daemons installed here (of ROUTING_DAEMONS). */
  daemons: string[];
  /** The user FRR's daemons drop to (owns their run directories). */
  frrUser?: { uid: number; gid: number };
  /** The cgroup layout nodes are limited and stopped through. */
  cgroups: CgroupVersion;
}

/** CAP_NET_ADMIN and CAP_SYS_ADMIN (namespaces) from the effective capability set. */
function capabilities(): { netAdmin: boolean; sysAdmin: boolean } {
  try {
    const line = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    const caps = BigInt(`0x${line?.[1] ?? '0'}`);
    return { netAdmin: Boolean(caps & (1n << 12n)), sysAdmin: Boolean(caps & (1n << 21n)) };
  } catch {
    return { netAdmin: false, sysAdmin: false };
  }
}

function passwdEntry(user: string): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${user}:`));
    const fields = line?.split(':');
    return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
  } catch {
    return undefined;
  }
}

export async function probeLinuxHost(): Promise<LinuxHost> {
  const problems: string[] = [];
  if (process.platform !== 'linux')
    problems.push(`this is ${process.platform}, not Linux: network namespaces need Linux`);
  const caps = capabilities();
  if (!caps.netAdmin || !caps.sysAdmin)
    problems.push(
      `the agent lacks ${[!caps.netAdmin && 'CAP_NET_ADMIN', !caps.sysAdmin && 'CAP_SYS_ADMIN'].filter(Boolean).join(' and ')}: run it as root (sudo) to create network namespaces`,
    );

  const ip = await runProcess('ip', ['-V']);
  const iproute2Version = /iproute2-([\w.]+)/.exec(ip.stdout)?.[1] ?? '';
  if (ip.code !== 0) problems.push('the `ip` command (iproute2) is missing: apt-get install -y iproute2');
  else if (!problems.length) {
    const netns = await runProcess('ip', ['netns', 'list']);
    if (netns.code !== 0) problems.push(`\`ip netns\` does not work here: ${netns.stderr.trim()}`);
  }

  const zebra = await runProcess(`${FRR_DAEMON_DIR}/zebra`, ['--version']);
  const frrVersion = /version\s+(\S+)/.exec(zebra.stdout)?.[1] ?? '';
  if (zebra.code !== 0 || !frrVersion)
    problems.push(`FRRouting is not installed (no ${FRR_DAEMON_DIR}/zebra): ${INSTALL_HINT}`);
  else if (!existsSync('/usr/bin/vtysh')) problems.push(`FRRouting's vtysh is missing: ${INSTALL_HINT}`);
  const frrUser = passwdEntry('frr');
  if (frrVersion && !frrUser)
    problems.push(`the user "frr" that FRRouting's daemons run as is missing: ${INSTALL_HINT}`);
  const installed = existsSync(FRR_DAEMON_DIR) ? new Set(readdirSync(FRR_DAEMON_DIR)) : new Set<string>();
  if (frrVersion && !installed.has('staticd')) problems.push(`FRRouting's staticd is missing: ${INSTALL_HINT}`);

  if (frrVersion && (!existsSync(FRR_RELOAD) || (await runProcess('python3', ['--version'])).code !== 0))
    problems.push(
      `FRRouting's reload tool (${FRR_RELOAD}, run by python3) is missing; configs reach running routers with it: apt-get install -y frr python3`,
    );
  const bwrap = await runProcess('bwrap', ['--version']);
  if (bwrap.code !== 0)
    problems.push('bubblewrap (`bwrap`, which sandboxes hosts and consoles) is missing: apt-get install -y bubblewrap');
  if (!seccompSupported()) problems.push(`nodes' seccomp deny-list has no table for the ${process.arch} architecture`);
  const cgroups = detectCgroups();
  if (typeof cgroups === 'string') problems.push(cgroups);

  const script = await runProcess('script', ['--version']);
  if (script.code !== 0)
    problems.push('util-linux `script` (console pseudo-terminals) is missing: apt-get install -y util-linux');

  return {
    problems,
    frrVersion,
    iproute2Version,
    kernel: release(),
    daemons: ROUTING_DAEMONS.filter((d) => installed.has(d)),
    ...(frrUser ? { frrUser } : {}),
    cgroups: typeof cgroups === 'string' ? 1 : cgroups,
  };
}
