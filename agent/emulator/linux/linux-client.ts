/**
 * One agent session's calls on the Linux emulator: each checks what it is
 * asked, then changes the lab through the emulator (linux-emulator.ts), which
 * it knows only as LinuxLabs.
 */
import type { Duplex } from 'node:stream';
import { hostname as machineName } from 'node:os';
import {
  EmuError,
  EmuNodeStatus,
  type EmuLab,
  type EmuNetwork,
  type EmuNetworkSpec,
  type EmuNode,
  type EmuNodeSpec,
  type EmulatorClient,
  type EmuIcon,
  type EmuNetworkType,
  type EmuStatus,
  type EmuTemplate,
  type EmulatorCapture,
  type LabRead,
} from '../backend';
import { ICONS, linuxTemplates, NETWORK_TYPES } from './catalogue';
import type { LinuxLab, LinuxNode } from './linux-lab';
import type { Realizer } from './realizer';
import type { LinuxHost } from './system';
import type { Places } from '../../places';
import { addStoredNode } from '../lab-store';

/** Grace for a graceful stop, and for auto's graceful attempt before it powers off. */
export const GRACEFUL_MS = 10_000;
const AUTO_GRACE_MS = 3_000;

/** The emulator as its sessions use it: the labs, their nodes' runtime state and the kernel. */
export interface LinuxLabs {
  readonly host: LinuxHost;
  readonly realizer: Realizer;
  /** Packet capture, when the machine can capture. */
  readonly capture: EmulatorCapture | undefined;
  /** Places for node starts on this agent (--concurrent-starts): a start beyond them waits for one. */
  readonly starts: Places;
  /** Nodes one lab may have on this agent. */
  readonly nodesPerLab: number;
  /** Runs `work` alone on the lab: a change of its structure (lab-turns.ts). */
  structure<T>(path: string, work: () => T | Promise<T>): Promise<T>;
  /** Runs `work` on one node of the lab (undefined: on none in particular), beside calls on other nodes. */
  onNode<T>(path: string, node: number | undefined, work: () => T | Promise<T>): Promise<T>;
  /** The labs changed: save them. */
  changed(): void;
  /** Saves the labs now. */
  flush(): void;
  lab(path: string): LinuxLab;
  maybeLab(path: string): LinuxLab | undefined;
  node(lab: LinuxLab, id: number): LinuxNode;
  addLab(lab: LinuxLab): Promise<void>;
  removeLab(lab: LinuxLab): Promise<void>;
  /** Someone may have changed the node's running config (a command ran on it). */
  touched(lab: LinuxLab, node: LinuxNode): void;
  dropRuntime(lab: LinuxLab, node: LinuxNode): void;
  pruneHiddenNetworks(lab: LinuxLab, candidates: Iterable<number>): Promise<void>;
  isRunning(lab: LinuxLab, node: LinuxNode): Promise<boolean>;
  /** Whether a node marked running still runs, by its processes alone (no command spawned). */
  aliveIn(lab: LinuxLab, node: LinuxNode): boolean;
  pushConfig(lab: LinuxLab, node: LinuxNode, from: string | undefined, hostname: string): Promise<void>;
  observe(lab: LinuxLab, read?: LabRead): Promise<EmuLab>;
  observeNode(lab: LinuxLab, node: LinuxNode): Promise<EmuNode>;
  openConsole(lab: LinuxLab, node: LinuxNode): Duplex;
  template(id: string): EmuTemplate;
}

/** One agent session's view of the Linux emulator (the machine has no emulator sessions to expire). */
export class LinuxClient implements EmulatorClient {
  /**
   * An apply, start or stop runs this many calls side by side: as many as nodes may start at once
   * (their kernel steps take the realizer's fewer places).
   */
  readonly maxConcurrentWrites: number;
  /** Deleting a lab kills its nodes' processes and removes their namespaces, side by side (realizer.ts). */
  readonly deleteLabRemovesNodes = true;

  readonly capture: EmulatorCapture | undefined;

  constructor(private readonly emu: LinuxLabs) {
    this.capture = emu.capture;
    this.maxConcurrentWrites = emu.starts.size;
  }

  private writable(path: string): LinuxLab {
    const lab = this.emu.lab(path);
    if (lab.locked) throw new EmuError('locked', `Lab ${path} is locked.`);
    return lab;
  }

  status(): Promise<EmuStatus> {
    return Promise.resolve({
      version: `(FRRouting ${this.emu.host.frrVersion}, iproute2 ${this.emu.host.iproute2Version}, Linux ${this.emu.host.kernel})`,
      edition: 'Linux network namespaces',
      baseUrl: `linux://${machineName()}`,
    });
  }

  listTemplates(): Promise<EmuTemplate[]> {
    return Promise.resolve(linuxTemplates(this.emu.host));
  }

  getTemplate(id: string): Promise<EmuTemplate | undefined> {
    return Promise.resolve(linuxTemplates(this.emu.host).find((t) => t.id === id));
  }

  listNetworkTypes(): Promise<{ types: EmuNetworkType[]; natOnly: boolean }> {
    return Promise.resolve({ types: NETWORK_TYPES.map((t) => ({ ...t })), natOnly: false });
  }

  listIcons(): Promise<EmuIcon[]> {
    return Promise.resolve(ICONS.map((i) => ({ ...i })));
  }

  async getLab(path: string, read?: LabRead): Promise<EmuLab | undefined> {
    return this.emu.onNode(path, undefined, async () => {
      const lab = this.emu.maybeLab(path);
      return lab && this.emu.observe(lab, read);
    });
  }

  async createLab(path: string, meta: { name: string; description: string }): Promise<void> {
    await this.emu.structure(path, () =>
      this.emu.addLab({ path, ...meta, locked: false, nodes: [], networks: [], nextNodeId: 1, nextNetworkId: 1 }),
    );
  }

  async editLab(path: string, meta: { name?: string; description?: string }): Promise<void> {
    await this.emu.structure(path, () => {
      const lab = this.writable(path);
      if (meta.name !== undefined) lab.name = meta.name;
      if (meta.description !== undefined) lab.description = meta.description;
      this.emu.changed();
    });
  }

  async cloneLab(source: string, destination: string): Promise<void> {
    const copy = await this.emu.onNode(source, undefined, () => structuredClone(this.emu.lab(source)));
    await this.emu.structure(destination, async () => {
      copy.path = destination;
      copy.name = destination.replace(/^.*\//, '').replace(/\.unl$/, '');
      copy.locked = false;
      for (const node of copy.nodes) {
        node.status = EmuNodeStatus.stopped;
        delete node.saved;
        delete node.savedFrom;
        delete node.baseline;
      }
      await this.emu.addLab(copy);
    });
  }

  async deleteLab(path: string): Promise<void> {
    await this.emu.structure(path, async () => this.emu.removeLab(this.writable(path)));
  }

  async addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode> {
    return this.emu.onNode(path, undefined, async () => {
      const lab = this.writable(path);
      this.emu.template(spec.template);
      if (lab.nodes.length >= this.emu.nodesPerLab)
        throw new EmuError(
          'refused',
          `Lab ${path} has ${lab.nodes.length} nodes, the most a lab may have on this agent (--max-nodes-per-lab); ${spec.name} was not added.`,
        );
      const node = addStoredNode(lab, spec);
      this.emu.changed();
      await this.emu.realizer.realizeNode(lab, node);
      return this.emu.observeNode(lab, node);
    });
  }

  async editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void> {
    await this.emu.structure(path, async () => {
      const lab = this.writable(path);
      const node = this.emu.node(lab, id);
      if (changes.template !== undefined && changes.template !== node.template)
        throw new EmuError('refused', 'A node cannot change its template; delete it and add a new one.');
      const kind = this.emu.realizer.kindOf(node);
      const before = node.links.length;
      const previous = { config: node.config, hostname: kind.hostname(node) };
      Object.assign(node, changes);
      if (changes.config === undefined && 'config' in changes) delete node.config;
      if ('config' in changes && kind.pushConfig && (await this.emu.isRunning(lab, node))) {
        try {
          await this.emu.pushConfig(lab, node, previous.config, previous.hostname);
        } catch (e) {
          // The router did not take it: the startup config stays what the router runs.
          node.config = previous.config;
          if (node.config === undefined) delete node.config;
          throw new EmuError('refused', `${node.name} did not take its new config: ${(e as Error).message}`);
        }
      }
      if (changes.ethernet !== undefined) {
        const count = Math.max(0, changes.ethernet);
        const dropped = node.links.slice(count);
        node.links = Array.from({ length: count }, (_, i) => node.links[i] ?? 0);
        if (count > before) await this.emu.realizer.addInterfaces(lab, node, before, count);
        else await this.emu.realizer.removeInterfaces(lab, node, count, before);
        await this.emu.pruneHiddenNetworks(lab, dropped);
      }
      this.emu.changed();
    });
  }

  async deleteNode(path: string, id: number): Promise<void> {
    await this.emu.structure(path, async () => {
      const lab = this.writable(path);
      const node = this.emu.node(lab, id);
      this.emu.dropRuntime(lab, node);
      await this.emu.realizer.unrealizeNode(lab, node);
      lab.nodes = lab.nodes.filter((n) => n.id !== id);
      await this.emu.pruneHiddenNetworks(lab, node.links);
      this.emu.changed();
    });
  }

  async addNetwork(path: string, spec: EmuNetworkSpec): Promise<EmuNetwork> {
    return this.emu.onNode(path, undefined, async () => {
      const lab = this.writable(path);
      if (!NETWORK_TYPES.some((t) => t.id === spec.type && t.supported))
        throw new EmuError(
          'refused',
          `Network type ${spec.type} is not available on the Linux emulator (it offers bridge).`,
        );
      const network: EmuNetwork = { ...spec, id: lab.nextNetworkId++ };
      lab.networks.push(network);
      this.emu.changed();
      await this.emu.realizer.addNetwork(lab, network.id);
      return { ...network };
    });
  }

  async editNetwork(path: string, id: number, changes: Partial<EmuNetworkSpec>): Promise<void> {
    await this.emu.structure(path, () => {
      const lab = this.writable(path);
      const network = lab.networks.find((n) => n.id === id);
      if (!network) throw new EmuError('not_found', `Network ${id} does not exist in lab ${path}.`);
      if (changes.type !== undefined && !NETWORK_TYPES.some((t) => t.id === changes.type && t.supported))
        throw new EmuError(
          'refused',
          `Network type ${changes.type} is not available on the Linux emulator (it offers bridge).`,
        );
      Object.assign(network, changes);
      this.emu.changed();
    });
  }

  async deleteNetwork(path: string, id: number): Promise<void> {
    await this.emu.structure(path, async () => {
      const lab = this.writable(path);
      if (!lab.networks.some((n) => n.id === id))
        throw new EmuError('not_found', `Network ${id} does not exist in lab ${path}.`);
      lab.networks = lab.networks.filter((n) => n.id !== id);
      for (const node of lab.nodes) node.links = node.links.map((n) => (n === id ? 0 : n));
      this.emu.changed();
      await this.emu.realizer.deleteNetwork(lab, id);
    });
  }

  /**
   * On the node's turn, beside calls on other nodes (an apply wires hundreds of links): the port
   * is the node's own and the network cannot go meanwhile (deleting one is a structure change).
   * Pruning the network it leaves touches other nodes: that part is a structure change after it.
   */
  async connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    const previous = await this.emu.onNode(path, nodeId, async () => {
      const lab = this.writable(path);
      const node = this.emu.node(lab, nodeId);
      if (!Number.isInteger(index) || index < 0 || index >= node.links.length)
        throw new EmuError('refused', `Node ${node.name} has no interface ${index}.`);
      if (networkId !== 0 && !lab.networks.some((n) => n.id === networkId))
        throw new EmuError('not_found', `Network ${networkId} does not exist in lab ${path}.`);
      const previous = node.links[index];
      node.links[index] = networkId;
      this.emu.changed();
      await this.emu.realizer.connect(lab, node, index, networkId);
      return previous;
    });
    if (previous !== 0 && previous !== networkId)
      await this.emu.structure(path, async () => {
        const lab = this.emu.maybeLab(path);
        if (lab) await this.emu.pruneHiddenNetworks(lab, [previous]);
      });
  }

  async startNode(path: string, id: number): Promise<void> {
    await this.emu.onNode(path, id, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (await this.emu.isRunning(lab, node)) return;
      this.emu.template(node.template);
      await this.emu.starts.run(async () => {
        node.status = EmuNodeStatus.starting;
        try {
          await this.emu.realizer.start(lab, node);
          node.status = EmuNodeStatus.running;
          node.startedAt = Date.now();
        } catch (e) {
          node.status = EmuNodeStatus.stopped;
          throw e;
        } finally {
          this.emu.changed();
        }
      });
    });
  }

  async stopNode(path: string, id: number, stopmode: number): Promise<void> {
    await this.emu.onNode(path, id, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (stopmode === 2)
        throw new EmuError(
          'refused',
          `${node.name} cannot hibernate: the Linux emulator does not freeze nodes. Stop it gracefully (0), power it off (1) or use auto (3).`,
        );
      if (node.status === EmuNodeStatus.stopped) return;
      this.emu.dropRuntime(lab, node);
      node.status = EmuNodeStatus.stopping;
      try {
        await this.emu.realizer.stop(lab, node, stopmode === 1 ? 0 : stopmode === 3 ? AUTO_GRACE_MS : GRACEFUL_MS);
      } finally {
        node.status = EmuNodeStatus.stopped;
        node.startedAt = undefined;
        this.emu.changed();
      }
    });
  }

  async wipeNode(path: string, id: number): Promise<void> {
    await this.emu.onNode(path, id, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      this.emu.dropRuntime(lab, node);
      // Wiping drops the running state: the node is powered off and boots from its startup config next time.
      if (node.status !== EmuNodeStatus.stopped) {
        node.status = EmuNodeStatus.stopping;
        try {
          await this.emu.realizer.stop(lab, node, 0);
        } finally {
          Object.assign(node, { status: EmuNodeStatus.stopped, startedAt: undefined });
        }
      }
      delete node.saved;
      delete node.savedFrom;
      delete node.baseline;
      this.emu.changed();
    });
  }

  async openConsole(path: string, id: number): Promise<Duplex> {
    return this.emu.onNode(path, id, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (!(await this.emu.isRunning(lab, node)))
        throw new EmuError('refused', `${node.name} is not running, so its console does not answer.`);
      return this.emu.openConsole(lab, node);
    });
  }

  async runCommand(path: string, id: number, command: string, timeoutMs: number, maxChars: number) {
    const { lab, node } = await this.emu.onNode(path, id, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      // By its processes: a command run for the check would cost as much as the command itself.
      if (!this.emu.aliveIn(lab, node)) throw new EmuError('refused', `${node.name} is not running.`);
      return { lab, node };
    });
    const result = await this.emu.realizer.exec(lab, node, command, timeoutMs, maxChars);
    this.emu.touched(lab, node);
    return result;
  }

  durable(): Promise<void> {
    this.emu.flush();
    return Promise.resolve();
  }

  labUrl(path: string): string {
    return `linux://${machineName()}${path}`;
  }
}
