/**
 * Makes a lab real in the kernel and runs its nodes: one namespace per node
 * (interfaces eth0, eth1, … as veth pairs whose peers live in the lab's
 * fabric namespace), one bridge in the fabric per network, FRR daemons or a
 * shell per node. Every namespace is written to the object journal before it
 * is created.
 */
import { EmuError, EmuNodeStatus } from '../backend';
import type { StoredLab, StoredNode } from '../lab-store';
import { mapBounded } from '../../bounded';
import { Places } from '../../places';
import type { NodeLimits } from './cgroup';
import { CommandError, runUntilExit } from './command';
import { removeRouter } from './frr';
import {
  addNamespace,
  bridgeCommand,
  deleteLink,
  deleteNamespace,
  IpBatch,
  links,
  masterCommand,
  setLinksUp,
  vethCommands,
} from './kernel';
import { INTERFACE_NAMES, type LinuxLab, type LinuxNode } from './linux-lab';
import type { LinuxNames } from './names';
import type { NodeKind } from './node-kind';
import { NodeKinds } from './node-kinds';
import type { ObjectJournal } from './object-journal';
import type { SandboxSetup } from './sandbox';
import type { LinuxHost } from './system';

/**
 * Kernel steps (making or removing a namespace, its ports, links up, bridges) under way at once, whatever
 * the number of node starts: each takes the kernel's rtnl lock, so more only queue there, and an `ip`
 * queued there spends its own time limit waiting (the bench's baseline, with all 200 at once, saw one
 * `ip -batch` wait 15 s at load 23).
 */
const KERNEL_STEPS_AT_ONCE = 16;

/** Processes (and threads) a node may have at once: a fork bomb stops here. */
const NODE_PIDS_MAX = 256;

/** A node's cgroup limits: processes, memory from `ram` (MiB) and CPU from `cpu`. */
function limitsOf(node: StoredNode): NodeLimits {
  return { pids: NODE_PIDS_MAX, memoryMiB: Math.max(0, node.ram), cpus: Math.max(0, node.cpu) };
}

function refused(e: unknown, what: string): EmuError {
  if (e instanceof EmuError) return e;
  const reason = e instanceof CommandError || e instanceof Error ? e.message : String(e);
  return new EmuError('refused', `${what}: ${reason}`);
}

export class Realizer {
  private readonly kinds: NodeKinds;
  /** Places for kernel steps (KERNEL_STEPS_AT_ONCE): node starts and an apply's calls run side by side, their kernel steps 16 at a time. */
  private readonly kernel = new Places(KERNEL_STEPS_AT_ONCE);
  /** Each realized lab's fabric commands (its namespace's name: the key). */
  private readonly fabrics = new Map<string, IpBatch>();

  constructor(
    private readonly names: LinuxNames,
    private readonly journal: ObjectJournal,
    host: LinuxHost,
    private readonly setup: SandboxSetup,
  ) {
    this.kinds = new NodeKinds(host, setup);
  }

  /** What the node does, by its kind (router, host or switch). */
  kindOf(node: StoredNode): NodeKind {
    return this.kinds.of(node);
  }

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

  /** A node's cgroup and namespace (its kind says whose the namespace is). */
  private async createNodeNamespace(ns: string, node: LinuxNode): Promise<void> {
    this.journal.record(ns);
    await this.setup.cgroups.remove(ns);
    await this.kernel.run(async () => {
      await deleteNamespace(ns);
      await this.setup.cgroups.create(ns, limitsOf(node));
      await this.kindOf(node).createNamespace(ns, node);
    });
  }

  /** Kills every process of the namespace's cgroup (wherever they went) and in it, then removes both. */
  private async removeNamespace(ns: string): Promise<void> {
    await this.killProcesses(ns);
    await this.dropNamespace(ns);
  }

  /** Stops the namespace's router, if any, and kills every process of its cgroup. */
  private async killProcesses(ns: string): Promise<void> {
    await removeRouter(ns);
    await this.setup.cgroups.kill(ns);
  }

  /** Removes the namespace (a kernel step) and its cgroup once its processes are gone. */
  private async dropNamespace(ns: string): Promise<void> {
    await this.kernel.run(() => deleteNamespace(ns));
    await this.setup.cgroups.remove(ns);
    this.journal.forget(ns);
  }

  async realizeLab(lab: LinuxLab): Promise<void> {
    await this.createNamespace(this.fabricNs(lab));
    for (const network of lab.networks) await this.addNetwork(lab, network.id);
    for (const node of lab.nodes) await this.realizeNode(lab, node);
  }

  /**
   * Removes the nodes, then the fabric. Killing a node's processes is signals and file writes:
   * every node at once. Removing its namespace takes the kernel's rtnl lock, so those go
   * KERNEL_STEPS_AT_ONCE at a time (more only queue there). At 200 routers, removing whole
   * nodes 8 at a time took 149 s against 47.6 s for the bench's baseline built this way.
   */
  async unrealizeLab(lab: LinuxLab): Promise<void> {
    const namespaces = lab.nodes.map((node) => this.nodeNs(lab, node));
    await mapBounded(namespaces, namespaces.length, (ns) => this.killProcesses(ns));
    await mapBounded(namespaces, namespaces.length, (ns) => this.dropNamespace(ns));
    await this.removeNamespace(this.fabricNs(lab));
    this.fabrics.delete(this.fabricNs(lab));
  }

  /** The lab's fabric commands, batched across the calls under way (kernel.ts IpBatch). */
  private fabric(lab: StoredLab): IpBatch {
    const ns = this.fabricNs(lab);
    let batch = this.fabrics.get(ns);
    if (!batch) {
      batch = new IpBatch(ns, (work) => this.kernel.run(work));
      this.fabrics.set(ns, batch);
    }
    return batch;
  }

  async addNetwork(lab: StoredLab, networkId: number): Promise<void> {
    await this.fabric(lab).run([bridgeCommand(this.names.bridge(networkId))]);
  }

  async deleteNetwork(lab: StoredLab, networkId: number): Promise<void> {
    await this.kernel.run(() => deleteLink(this.fabricNs(lab), this.names.bridge(networkId)));
  }

  /** The node's namespace with its interfaces (down) wired to their networks. */
  async realizeNode(lab: StoredLab, node: LinuxNode): Promise<void> {
    await this.createNodeNamespace(this.nodeNs(lab, node), node);
    await this.addInterfaces(lab, node, 0, node.links.length);
  }

  async unrealizeNode(lab: StoredLab, node: StoredNode): Promise<void> {
    await this.removeNamespace(this.nodeNs(lab, node));
  }

  async addInterfaces(lab: StoredLab, node: StoredNode, from: number, to: number): Promise<void> {
    const ns = this.nodeNs(lab, node);
    const indexes = Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
    await this.fabric(lab).run(
      vethCommands(
        ns,
        indexes.map((index) => {
          const networkId = node.links[index] ?? 0;
          return {
            port: this.names.fabricPort(node.id, index),
            ifname: INTERFACE_NAMES.nameAt(index),
            ...(networkId ? { bridge: this.names.bridge(networkId) } : {}),
          };
        }),
      ),
    );
    if (node.status === EmuNodeStatus.running)
      await this.kernel.run(() =>
        setLinksUp(
          ns,
          indexes.map((index) => INTERFACE_NAMES.nameAt(index)),
        ),
      );
  }

  async removeInterfaces(lab: StoredLab, node: StoredNode, from: number, to: number): Promise<void> {
    for (let index = from; index < to; index++)
      await this.kernel.run(() => deleteLink(this.fabricNs(lab), this.names.fabricPort(node.id, index)));
  }

  /**
   * Makes the fabric match the saved lab where a crash left it behind: bridges saved but never
   * made are made, ports on another bridge than saved are moved. Returns the nodes with a port
   * missing (made half-way): only a fresh namespace (reset) mends them.
   */
  async repairFabric(lab: LinuxLab): Promise<LinuxNode[]> {
    const wired = new Map((await links(this.fabricNs(lab))).map((l) => [l.ifname, l.master]));
    for (const network of lab.networks)
      if (!wired.has(this.names.bridge(network.id))) await this.addNetwork(lab, network.id);
    const broken: LinuxNode[] = [];
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
    await this.fabric(lab).run([
      masterCommand(this.names.fabricPort(node.id, index), networkId ? this.names.bridge(networkId) : undefined),
    ]);
  }

  /** Boots a node; throws EmuError('refused') with the reason when it cannot, leaving it stopped. */
  async start(lab: LinuxLab, node: LinuxNode): Promise<void> {
    const ns = this.nodeNs(lab, node);
    try {
      this.setup.cgroups.setLimits(ns, limitsOf(node));
      await this.kernel.run(() =>
        setLinksUp(
          ns,
          node.links.map((_, index) => INTERFACE_NAMES.nameAt(index)),
        ),
      );
      await this.kindOf(node).start(ns, node);
    } catch (e) {
      await this.reset(lab, node);
      throw refused(e, `${node.name} did not start`);
    }
  }

  /**
   * Stops a node: `graceMs` > 0 lets it end cleanly for that long (a router
   * saves its running config first); then whatever is left is killed and
   * the namespace is made afresh (interfaces down, no addresses or routes).
   */
  async stop(lab: LinuxLab, node: LinuxNode, graceMs: number): Promise<void> {
    if (graceMs > 0) await this.kindOf(node).stop(this.nodeNs(lab, node), node, graceMs);
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

  /** Runs one command on a running node (vtysh for a router, sh for a host or switch); keeps `maxChars` of its output. */
  async exec(lab: LinuxLab, node: LinuxNode, command: string, timeoutMs: number, maxChars: number) {
    const started = Date.now();
    const [file, ...args] = this.kindOf(node).execArgv(this.nodeNs(lab, node), node, command);
    // A background job left running must not hold the answer up.
    // As many bytes as characters: never more characters than that (UTF-8 takes 1 to 4 bytes a character).
    const result = await runUntilExit(file, args, { timeoutMs, maxOutputBytes: maxChars });
    return {
      output: `${result.stdout}${result.stderr}`.replace(/\r\n?/g, '\n'),
      durationMs: Date.now() - started,
      timedOut: result.timedOut,
      ...(result.truncated ? { truncated: true } : {}),
    };
  }

  /** What a console runs: interactive vtysh as frr, or a login-less shell as the node's root in its sandbox. */
  consoleCommand(lab: LinuxLab, node: LinuxNode): string[] {
    return this.kindOf(node).consoleArgv(this.nodeNs(lab, node), node);
  }
}
