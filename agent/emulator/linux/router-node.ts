/**
 * A router: FRRouting in a namespace of the machine's own (FRR's daemons
 * need it), booted from what a graceful stop saved or else its startup
 * config, reached through vtysh run as frr in a sandbox (frr.ts).
 */
import { addNamespace } from './kernel';
import {
  hostnameOf,
  routerAlive,
  runningConfig,
  runningConfigOf,
  SHOW_RUNNING_CONFIG,
  startRouter,
  stopRouter,
  userVtyshArgv,
} from './frr';
import { pushConfig } from './frr-config';
import type { LinuxNode } from './linux-lab';
import type { NodeKind } from './node-kind';
import type { SandboxSetup } from './sandbox';
import type { LinuxHost } from './system';

/** The config a router boots from: what a graceful stop saved, else the startup config. */
function bootConfig(node: LinuxNode): string {
  return node.saved ?? node.config ?? `hostname ${node.name}\n`;
}

export class RouterNode implements NodeKind {
  readonly configEffect = 'live';

  constructor(
    private readonly host: LinuxHost,
    private readonly setup: SandboxSetup,
  ) {}

  /** From the config it boots from, else the node name. */
  hostname(node: LinuxNode): string {
    return hostnameOf(node.saved ?? node.config ?? '', node.name);
  }

  async createNamespace(ns: string): Promise<void> {
    await addNamespace(ns);
  }

  async start(ns: string, node: LinuxNode): Promise<void> {
    const hostname = this.hostname(node);
    if (node.saved === undefined) {
      // Booted from its startup config: what it runs now is the baseline, read as the start's probe.
      const answer = await startRouter(
        ns,
        hostname,
        bootConfig(node),
        this.host,
        this.setup.cgroups,
        SHOW_RUNNING_CONFIG,
      );
      node.baseline = runningConfigOf(answer);
      return;
    }
    await startRouter(ns, hostname, bootConfig(node), this.host, this.setup.cgroups);
    // A config pushed while the node was stopped goes on top of what it saved.
    if (node.savedFrom !== undefined && node.savedFrom !== (node.config ?? ''))
      await pushConfig(ns, hostname, node, node.savedFrom, node.config ?? '');
  }

  async stop(ns: string, node: LinuxNode, graceMs: number): Promise<void> {
    const saved = await runningConfig(ns, this.hostname(node));
    if (saved !== undefined) {
      node.saved = saved;
      node.savedFrom = node.config ?? '';
    }
    await stopRouter(ns, graceMs);
  }

  alive(ns: string): boolean {
    return routerAlive(ns);
  }

  execArgv(ns: string, node: LinuxNode, command: string): string[] {
    return userVtyshArgv(ns, this.hostname(node), this.setup, ['-c', command]);
  }

  consoleArgv(ns: string, node: LinuxNode): string[] {
    return userVtyshArgv(ns, this.hostname(node), this.setup, []);
  }

  runningConfig(ns: string, node: LinuxNode): Promise<string | undefined> {
    return runningConfig(ns, this.hostname(node));
  }

  /** Live, with FRR's reload tool (frr-config.ts). */
  async pushConfig(ns: string, node: LinuxNode, from: string | undefined, hostname: string): Promise<void> {
    await pushConfig(ns, hostname, node, from ?? '', node.config ?? '');
  }
}
