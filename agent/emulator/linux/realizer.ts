/**
 * Makes a lab real in the kernel and runs its nodes: one namespace per node
 * (interfaces eth0, eth1, … as veth pairs whose peers live in the lab's
 * fabric namespace), one bridge in the fabric per network, FRR daemons or a
 * shell per node. Every namespace is written to the object journal before it
 * is created.
 */
import { compileEthFormat } from '../../../common/lab/eth-format';
import { EmuError, EmuNodeStatus } from '../backend';
import type { StoredLab, StoredNode } from '../lab-store';
import { TEMPLATE_KIND, ETH_FORMAT, type NodeKind } from './catalogue';
import type { NodeLimits } from './cgroup';
import { CommandError, mustRun, runUntilExit } from './command';
import { hostnameOf, removeRouter, runningConfig, startRouter, stopRouter, userVtyshArgv } from './frr';
import { pushConfig } from './frr-config';
import { addBridge, addNamespace, addVeth, deleteLink, deleteNamespace, links, setLinkUp, setMaster } from './kernel';
import type { LinuxNames } from './names';
import type { ObjectJournal } from './object-journal';
import { safeHostname, sandboxExecArgv, sandboxInit, startSandbox, type SandboxSetup } from './sandbox';
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
/** Processes (and threads) a node may have at once: a fork bomb stops here. */
const NODE_PIDS_MAX = 256;
export const INTERFACE_NAMES = compileEthFormat(ETH_FORMAT);

export function kindOf(node: StoredNode): NodeKind {
  return TEMPLATE_KIND[node.template] ?? 'host';
}

/** The hostname a router runs with: from the config it boots from, else the node name. */
export function routerHostname(node: LinuxNode): string {
  return hostnameOf(node.saved ?? node.config ?? '', node.name);
}

/** The hostname a host or switch runs with: its name when it is a plain host name. */
function nodeHostname(node: StoredNode): string {
  return safeHostname(node.name, `node${node.id}`);
}

/** A node's cgroup limits: processes, memory from `ram` (MiB) and CPU from `cpu`. */
function limitsOf(node: StoredNode): NodeLimits {
  return { pids: NODE_PIDS_MAX, memoryMiB: Math.max(0, node.ram), cpus: Math.max(0, node.cpu) };
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
    private readonly setup: SandboxSetup,
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

  /**
   * A node's cgroup and namespace: a router's namespace belongs to the
   * machine (FRR's daemons need it), a host's or switch's to its sandbox.
   */
  private async createNodeNamespace(ns: string, node: StoredNode): Promise<void> {
    this.journal.record(ns);
    await this.setup.cgroups.remove(ns);
    await deleteNamespace(ns);
    await this.setup.cgroups.create(ns, limitsOf(node));
    if (kindOf(node) === 'router') await addNamespace(ns);
    else await startSandbox(ns, nodeHostname(node), this.setup);
  }

  /** Kills every process of the namespace's cgroup (wherever they went) and in it, then removes both. */
  private async removeNamespace(ns: string): Promise<void> {
    await removeRouter(ns);
    await this.setup.cgroups.kill(ns);
    await deleteNamespace(ns);
    await this.setup.cgroups.remove(ns);
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
    await this.createNodeNamespace(this.nodeNs(lab, node), node);
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

  /**
   * Makes the fabric match the saved lab where a crash left it behind: bridges saved but never
   * made are made, ports on another bridge than saved are moved. Returns the nodes with a port
   * missing (made half-way): only a fresh namespace (reset) mends them.
   */
  async repairFabric(lab: StoredLab): Promise<StoredNode[]> {
    const wired = new Map((await links(this.fabricNs(lab))).map((l) => [l.ifname, l.master]));
    for (const network of lab.networks)
      if (!wired.has(this.names.bridge(network.id))) await this.addNetwork(lab, network.id);
    const broken: StoredNode[] = [];
    for (const node of lab.nodes) {
      for (const [index, networkId] of node.links.entries()) {
        const port = this.names.fabricPort(node.id, index);
        const bridge = networkId ? this.names.bridge(networkId) : undefined;
        if (!wired.has(port)) {
          broken.push(node);
          break;
        }
        if (wired.get(port) !== bridge) await this.connect(lab, node, index, networkId);
      }
    }
    return broken;
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
      this.setup.cgroups.setLimits(ns, limitsOf(node));
      for (let index = 0; index < node.links.length; index++) await setLinkUp(ns, INTERFACE_NAMES.nameAt(index), true);
      switch (kindOf(node)) {
        case 'router': {
          const hostname = routerHostname(node);
          await startRouter(ns, hostname, bootConfig(node), this.host, this.setup.cgroups);
          if (node.saved === undefined) node.baseline = await runningConfig(ns, hostname);
          // A config pushed while the node was stopped goes on top of what it saved.
          else if (node.savedFrom !== undefined && node.savedFrom !== (node.config ?? ''))
            await pushConfig(ns, hostname, node, node.savedFrom, node.config ?? '');
          break;
        }
        case 'host':
          if (node.config?.trim()) {
            const [file, ...args] = this.inNode(ns, ['sh', '-e', '-c', node.config]);
            const result = await runUntilExit(file, args, { timeoutMs: HOST_SCRIPT_TIMEOUT_MS });
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
        await this.setup.cgroups.terminate(ns, graceMs);
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
    const [file, ...args] =
      kindOf(node) === 'router'
        ? userVtyshArgv(ns, routerHostname(node), this.setup, ['-c', command])
        : this.inNode(ns, ['sh', '-c', command]);
    // A background job left running must not hold the answer up.
    const result = await runUntilExit(file, args, { timeoutMs });
    return {
      output: `${result.stdout}${result.stderr}`.replace(/\r\n?/g, '\n'),
      durationMs: Date.now() - started,
      timedOut: result.timedOut,
    };
  }

  /** What a console runs: interactive vtysh as frr, or a login-less shell as the node's root in its sandbox. */
  consoleCommand(lab: LinuxLab, node: LinuxNode): string[] {
    const ns = this.nodeNs(lab, node);
    return kindOf(node) === 'router'
      ? userVtyshArgv(ns, routerHostname(node), this.setup, [])
      : this.inNode(ns, ['bash', '--norc', '--noprofile', '-i'], { PS1: '\\u@\\h:\\w\\$ ' });
  }

  /** argv that runs `program` in a host's or switch's sandbox. */
  private inNode(ns: string, program: readonly string[], env: Record<string, string> = {}): string[] {
    const init = sandboxInit(ns, this.setup.cgroups);
    if (init === undefined) throw new EmuError('refused', `the sandbox of ${ns} is not running.`);
    return sandboxExecArgv(ns, init, this.setup, program, env);
  }
}
