/**
 * Makes a lab real in the kernel and runs its nodes: one namespace per node
 * (interfaces eth0, eth1, … as veth pairs whose peers live in the lab's
 * fabric namespace), one bridge in the fabric per network, FRR daemons or a
 * shell per node. Every namespace is written to the object journal before it
 * is created.
 */
import { compileEthFormat } from '../../../common/lab/eth-format';
import { EmuError, EmuNodeStatus } from '../backend';
import type { StoredLab, StoredNode } from '../simulated/lab-store';
import { TEMPLATE_KIND, ETH_FORMAT, type NodeKind } from './catalogue';
import { CommandError, mustRun, runCommand } from './command';
import { hostnameOf, removeRouter, runningConfig, startRouter, stopRouter, vtysh, vtyshArgv } from './frr';
import { pushConfig } from './frr-config';
import {
  addBridge,
  addNamespace,
  addVeth,
  deleteLink,
  deleteNamespace,
  inNamespaceAs,
  namespacePids,
  terminate,
  setLinkUp,
  setMaster,
} from './kernel';
import type { LinuxNames } from './names';
import type { ObjectJournal } from './object-journal';
import type { LinuxHost } from './system';

/** A node as the Linux emulator keeps it. */
export interface LinuxNode extends StoredNode {
  /** The running config a graceful stop saved (EVE-NG: the runtime disk); the next start boots from it. */
  saved?: string;
  /** The startup config `saved` already includes; a later push is applied on top of it at the next start. */
  savedFrom?: string;
  /**
   * The running config as the startup config alone gives it (right after booting from it, then
   * carried along each live push): what "nothing changed on the node" looks like.
   */
  baseline?: string;
}

export interface LinuxLab extends StoredLab {
  nodes: LinuxNode[];
}

const HOST_SCRIPT_TIMEOUT_MS = 30_000;
export const INTERFACE_NAMES = compileEthFormat(ETH_FORMAT);

export function kindOf(node: StoredNode): NodeKind {
  return TEMPLATE_KIND[node.template] ?? 'host';
}

/** The hostname a router runs with: from the config it boots from, else the node name. */
export function routerHostname(node: LinuxNode): string {
  return hostnameOf(node.saved ?? node.config ?? '', node.name);
}

/** The config a router boots from: what a graceful stop saved, else the startup config. */
function bootConfig(node: LinuxNode): string {
  return node.saved ?? node.config ?? `hostname ${node.name}\n`;
}

function refused(e: unknown, what: string): EmuError {
  if (e instanceof EmuError) return e;
  const reason = e instanceof CommandError || e instanceof Error ? e.message : String(e);
  return new EmuError('refused', `${what}: ${reason}`);
}

export class Realizer {
  constructor(
    private readonly names: LinuxNames,
    private readonly journal: ObjectJournal,
    private readonly host: LinuxHost,
  ) {}

  nodeNs(lab: StoredLab, node: StoredNode): string {
    return this.names.nodeNamespace(lab.path, node.id);
  }

  fabricNs(lab: StoredLab): string {
    return this.names.fabricNamespace(lab.path);
  }

  private async createNamespace(ns: string): Promise<void> {
    this.journal.record(ns);
    await deleteNamespace(ns); // a leftover of the same name would make `ip netns add` fail
    await addNamespace(ns);
  }

  private async removeNamespace(ns: string): Promise<void> {
    await removeRouter(ns);
    await deleteNamespace(ns);
    this.journal.forget(ns);
  }

  async realizeLab(lab: LinuxLab): Promise<void> {
    await this.createNamespace(this.fabricNs(lab));
    for (const network of lab.networks) await this.addNetwork(lab, network.id);
    for (const node of lab.nodes) await this.realizeNode(lab, node);
  }

  async unrealizeLab(lab: LinuxLab): Promise<void> {
    for (const node of lab.nodes) await this.removeNamespace(this.nodeNs(lab, node));
    await this.removeNamespace(this.fabricNs(lab));
  }

  async addNetwork(lab: StoredLab, networkId: number): Promise<void> {
    await addBridge(this.fabricNs(lab), this.names.bridge(networkId));
  }

  async deleteNetwork(lab: StoredLab, networkId: number): Promise<void> {
    await deleteLink(this.fabricNs(lab), this.names.bridge(networkId));
  }

  /** The node's namespace with its interfaces (down) wired to their networks. */
  async realizeNode(lab: StoredLab, node: StoredNode): Promise<void> {
    await this.createNamespace(this.nodeNs(lab, node));
    await this.addInterfaces(lab, node, 0, node.links.length);
  }

  async unrealizeNode(lab: StoredLab, node: StoredNode): Promise<void> {
    await this.removeNamespace(this.nodeNs(lab, node));
  }

  async addInterfaces(lab: StoredLab, node: StoredNode, from: number, to: number): Promise<void> {
    const ns = this.nodeNs(lab, node);
    for (let index = from; index < to; index++) {
      const port = this.names.fabricPort(node.id, index);
      await addVeth(this.fabricNs(lab), port, ns, INTERFACE_NAMES.nameAt(index));
      const networkId = node.links[index] ?? 0;
      if (networkId) await setMaster(this.fabricNs(lab), port, this.names.bridge(networkId));
      if (node.status === EmuNodeStatus.running) await setLinkUp(ns, INTERFACE_NAMES.nameAt(index), true);
    }
  }

  async removeInterfaces(lab: StoredLab, node: StoredNode, from: number, to: number): Promise<void> {
    for (let index = from; index < to; index++)
      await deleteLink(this.fabricNs(lab), this.names.fabricPort(node.id, index));
  }

  async connect(lab: StoredLab, node: StoredNode, index: number, networkId: number): Promise<void> {
    await setMaster(
      this.fabricNs(lab),
      this.names.fabricPort(node.id, index),
      networkId ? this.names.bridge(networkId) : undefined,
    );
  }

  /** Boots a node; throws EmuError('refused') with the reason when it cannot, leaving it stopped. */
  async start(lab: LinuxLab, node: LinuxNode): Promise<void> {
    const ns = this.nodeNs(lab, node);
    try {
      for (let index = 0; index < node.links.length; index++) await setLinkUp(ns, INTERFACE_NAMES.nameAt(index), true);
      switch (kindOf(node)) {
        case 'router': {
          const hostname = routerHostname(node);
          await startRouter(ns, hostname, bootConfig(node), this.host);
          if (node.saved === undefined) node.baseline = await runningConfig(ns, hostname);
          // A config pushed while the node was stopped goes on top of what it saved.
          else if (node.savedFrom !== undefined && node.savedFrom !== (node.config ?? ''))
            await pushConfig(ns, hostname, node, node.savedFrom, node.config ?? '');
          break;
        }
        case 'host':
          if (node.config?.trim()) {
            const result = await runCommand('ip', ['netns', 'exec', ns, 'sh', '-e', '-c', node.config], {
              timeoutMs: HOST_SCRIPT_TIMEOUT_MS,
            });
            if (result.code !== 0) throw new CommandError(`the startup script of ${node.name}`, result);
          }
          break;
        case 'switch':
          await addBridge(ns, 'br0');
          for (let index = 0; index < node.links.length; index++)
            await mustRun('ip', ['-n', ns, 'link', 'set', INTERFACE_NAMES.nameAt(index), 'master', 'br0']);
          break;
      }
    } catch (e) {
      await this.reset(lab, node);
      throw refused(e, `${node.name} did not start`);
    }
  }

  /**
   * Stops a node: `graceMs` > 0 saves a router's running config and lets its
   * processes end cleanly for that long; then whatever is left is killed and
   * the namespace is made afresh (interfaces down, no addresses or routes).
   */
  async stop(lab: LinuxLab, node: LinuxNode, graceMs: number): Promise<void> {
    const ns = this.nodeNs(lab, node);
    if (graceMs > 0) {
      if (kindOf(node) === 'router') {
        const saved = await runningConfig(ns, routerHostname(node));
        if (saved !== undefined) {
          node.saved = saved;
          node.savedFrom = node.config ?? '';
        }
        await stopRouter(ns, graceMs);
      } else {
        await terminate(await namespacePids(ns), graceMs);
      }
    }
    await this.reset(lab, node);
  }

  /** Kills the node's processes and gives it a fresh namespace with its interfaces wired (and down). */
  async reset(lab: LinuxLab, node: LinuxNode): Promise<void> {
    await this.removeNamespace(this.nodeNs(lab, node));
    const status = node.status;
    node.status = EmuNodeStatus.stopped;
    try {
      await this.realizeNode(lab, node);
    } finally {
      node.status = status;
    }
  }

  /** Runs one command on a running node: vtysh for a router, sh for a host or switch. */
  async exec(lab: LinuxLab, node: LinuxNode, command: string, timeoutMs: number) {
    const ns = this.nodeNs(lab, node);
    const started = Date.now();
    const result =
      kindOf(node) === 'router'
        ? await vtysh(ns, routerHostname(node), [command], timeoutMs)
        : await runCommand('ip', ['netns', 'exec', ns, 'sh', '-c', command], { timeoutMs });
    return {
      output: `${result.stdout}${result.stderr}`.replace(/\r\n?/g, '\n'),
      durationMs: Date.now() - started,
      timedOut: result.timedOut,
    };
  }

  /** What a console runs in the node's namespace: interactive vtysh, or a login-less shell. */
  consoleCommand(lab: LinuxLab, node: LinuxNode): string[] {
    const ns = this.nodeNs(lab, node);
    const hostname = kindOf(node) === 'router' ? routerHostname(node) : node.name;
    const program =
      kindOf(node) === 'router'
        ? vtyshArgv(ns, [])
        : ['env', 'PS1=\\u@\\h:\\w\\$ ', 'bash', '--norc', '--noprofile', '-i'];
    return ['ip', ...inNamespaceAs(ns, hostname, program)];
  }
}
