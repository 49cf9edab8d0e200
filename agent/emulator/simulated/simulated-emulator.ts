/**
 * An in-process EVE-NG stand-in: labs, nodes that boot and stop over time,
 * networks, telnet consoles running a small CLI, and emulator sessions that
 * expire after an hour idle. Writes take a few milliseconds, as a real server's
 * would, so concurrent operations can be observed.
 */
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { compileEthFormat } from '../../../common/lab/rules/eth-format';
import {
  EmuError,
  EmuNodeStatus,
  type EmuLab,
  type EmuNetwork,
  type EmuNetworkSpec,
  type EmuNode,
  type EmuNodeSpec,
  type EmulatorBackend,
  type EmulatorClient,
  type EmuStatus,
  type EmuTemplate,
} from '../backend';
import { findTemplate, ICONS, NAT_ONLY, NETWORK_TYPES, TEMPLATES } from './catalogue';
import { ConsoleHub } from './console-hub';
import type { DeviceView } from './device-cli';
import { exampleLabs } from './example-labs';
import { addStoredNode, findById, LabStore, pruneHiddenNetworks, type StoredLab, type StoredNode } from '../lab-store';

export const EMU_SESSION_IDLE_MS = 60 * 60 * 1000;
const EMU_VERSION = '5.0.1-24';
const EMU_BASE_URL = 'http://127.0.0.1';
/** Community edition console ports: 32768 + 128 × tenant + node id (tenant 0 here). */
const CONSOLE_PORT_BASE = 32768;

export interface SimulatedEmulatorOptions {
  dataDir: string;
  clock: () => number;
  /** How long a node takes to boot. */
  bootMs: number;
  /** How long each write takes. */
  writeDelayMs: number;
  log: (message: string) => void;
}

export class SimulatedEmulator implements EmulatorBackend {
  private readonly store: LabStore;
  private readonly hubs = new Map<string, ConsoleHub>();
  private closed = false;

  constructor(readonly options: SimulatedEmulatorOptions) {
    this.store = LabStore.open(options.dataDir, exampleLabs, options.log);
    // A restart finishes transitions that were under way (the emulator kept running meanwhile).
    for (const lab of this.store.labs.values()) for (const node of lab.nodes) this.settle(node, Infinity);
  }

  async connect(): Promise<EmulatorClient> {
    return new SimulatedClient(this);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const hub of this.hubs.values()) hub.close();
    this.hubs.clear();
    this.store.close();
  }

  // ---------------------------------------------------------------- internals used by the client

  now(): number {
    return this.options.clock();
  }

  async writeDelay(): Promise<void> {
    if (this.options.writeDelayMs > 0) await sleep(this.options.writeDelayMs);
    if (this.closed) throw new EmuError('unreachable', 'The emulator has shut down.');
  }

  changed(): void {
    this.store.changed();
  }

  flush(): void {
    this.store.flush();
  }

  lab(path: string): StoredLab {
    return this.store.get(path);
  }

  maybeLab(path: string): StoredLab | undefined {
    return this.store.labs.get(path);
  }

  writableLab(path: string): StoredLab {
    const lab = this.lab(path);
    if (lab.locked) throw new EmuError('locked', `Lab ${path} is locked.`);
    return lab;
  }

  addLab(lab: StoredLab): void {
    if (this.store.labs.has(lab.path)) throw new EmuError('exists', `Lab ${lab.path} already exists.`);
    this.store.labs.set(lab.path, lab);
    this.changed();
  }

  removeLab(path: string): void {
    const lab = this.lab(path);
    for (const node of lab.nodes) this.closeConsole(path, node.id);
    this.store.labs.delete(path);
    this.changed();
  }

  node(lab: StoredLab, id: number): StoredNode {
    const node = findById(lab.nodes, id);
    if (!node) throw new EmuError('not_found', `Node ${id} does not exist in lab ${lab.path}.`);
    return this.settle(node, this.now());
  }

  /** Finishes a start or stop whose time has come. */
  settle(node: StoredNode, now: number): StoredNode {
    if (
      (node.status === EmuNodeStatus.starting || node.status === EmuNodeStatus.stopping) &&
      now >= (node.transitionEndsAt ?? 0)
    ) {
      node.status = node.status === EmuNodeStatus.starting ? EmuNodeStatus.running : EmuNodeStatus.stopped;
      node.transitionEndsAt = undefined;
      this.changed();
    }
    return node;
  }

  template(id: string): EmuTemplate {
    const template = findTemplate(id);
    if (!template) throw new EmuError('refused', `Template ${id} does not exist on this emulator.`);
    return template;
  }

  interfaceNames(node: StoredNode): string[] {
    const template = findTemplate(node.template);
    return compileEthFormat(template?.ethFormat, template?.ethName).names(node.ethernet);
  }

  toEmuNode(node: StoredNode): EmuNode {
    this.settle(node, this.now());
    const names = this.interfaceNames(node);
    const { transitionEndsAt: _t, startedAt: _s, links, ...spec } = node;
    return {
      ...spec,
      type: findTemplate(node.template)?.type ?? 'qemu',
      url: `telnet://127.0.0.1:${CONSOLE_PORT_BASE + node.id}`,
      interfaces: links.map((networkId, index) => ({ index, name: names[index], networkId })),
    };
  }

  toEmuLab(lab: StoredLab): EmuLab {
    return {
      path: lab.path,
      name: lab.name,
      description: lab.description,
      locked: lab.locked,
      nodes: lab.nodes.map((n) => this.toEmuNode(n)),
      networks: lab.networks.map((n) => ({ ...n })),
    };
  }

  hub(lab: StoredLab, node: StoredNode): ConsoleHub {
    const key = `${lab.path}#${node.id}`;
    let hub = this.hubs.get(key);
    if (!hub) {
      hub = new ConsoleHub(`${lab.name}/${node.name}`, () => this.deviceView(lab.path, node.id));
      this.hubs.set(key, hub);
    }
    return hub;
  }

  closeConsole(path: string, id: number): void {
    const key = `${path}#${id}`;
    this.hubs.get(key)?.close();
    this.hubs.delete(key);
  }

  /** What the node's CLI sees: read live, so `show interfaces` follows links and peers. */
  private deviceView(path: string, id: number): DeviceView {
    const lab = this.lab(path);
    const node = this.node(lab, id);
    const template = findTemplate(node.template);
    const names = this.interfaceNames(node);
    return {
      hostname: node.name,
      style: template?.style ?? 'ios',
      platform: template?.platform ?? node.template,
      template: node.template,
      image: node.image,
      ram: node.ram,
      config: node.config,
      uptimeMs: Math.max(0, this.now() - (node.startedAt ?? this.now())),
      interfaces: node.links.map((networkId, index) => {
        const network = networkId === 0 ? undefined : findById(lab.networks, networkId);
        const peers = network ? lab.nodes.filter((n) => n !== node && n.links.includes(networkId)) : [];
        const peerUp = network?.visibility
          ? true
          : peers.some((p) => this.settle(p, this.now()).status === EmuNodeStatus.running);
        return { name: names[index], connected: Boolean(network), peerUp };
      }),
    };
  }
}

/** How many writes one session may have under way; each write changes the lab at once after its delay, so writes never interleave. */
const CONCURRENT_WRITES = 8;

/** One emulator session. */
class SimulatedClient implements EmulatorClient {
  readonly maxConcurrentWrites = CONCURRENT_WRITES;
  private lastCallAt: number;
  private expired = false;

  constructor(private readonly emu: SimulatedEmulator) {
    this.lastCallAt = emu.now();
  }

  /** Every call extends the session; a session idle for an hour is gone for good. */
  private touch(): void {
    const now = this.emu.now();
    if (this.expired || now - this.lastCallAt > EMU_SESSION_IDLE_MS) {
      this.expired = true;
      throw new EmuError('session_expired', 'The emulator session expired after an hour without use.');
    }
    this.lastCallAt = now;
  }

  private async write(): Promise<void> {
    this.touch();
    await this.emu.writeDelay();
  }

  async status(): Promise<EmuStatus> {
    this.touch();
    return { version: EMU_VERSION, edition: 'Simulated EVE-NG Community', baseUrl: EMU_BASE_URL };
  }

  async listTemplates(): Promise<EmuTemplate[]> {
    this.touch();
    return TEMPLATES.map(({ style: _style, platform: _platform, ...t }) => t);
  }

  async getTemplate(id: string): Promise<EmuTemplate | undefined> {
    this.touch();
    const found = findTemplate(id);
    if (!found) return undefined;
    const { style: _style, platform: _platform, ...template } = found;
    return template;
  }

  async listNetworkTypes() {
    this.touch();
    return { types: NETWORK_TYPES.map((t) => ({ ...t })), natOnly: NAT_ONLY };
  }

  async listIcons() {
    this.touch();
    return ICONS.map((i) => ({ ...i }));
  }

  async getLab(path: string): Promise<EmuLab | undefined> {
    this.touch();
    const lab = this.emu.maybeLab(path);
    return lab && this.emu.toEmuLab(lab);
  }

  async createLab(path: string, meta: { name: string; description: string }): Promise<void> {
    await this.write();
    this.emu.addLab({
      path,
      name: meta.name,
      description: meta.description,
      locked: false,
      nodes: [],
      networks: [],
      nextNodeId: 1,
      nextNetworkId: 1,
    });
  }

  async editLab(path: string, meta: { name?: string; description?: string }): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    if (meta.name !== undefined) lab.name = meta.name;
    if (meta.description !== undefined) lab.description = meta.description;
    this.emu.changed();
  }

  async cloneLab(source: string, destination: string): Promise<void> {
    await this.write();
    const copy = structuredClone(this.emu.lab(source));
    copy.path = destination;
    copy.name = destination.replace(/^.*\//, '').replace(/\.unl$/, '');
    copy.locked = false;
    // A copy starts with its nodes stopped and wiped, like a freshly cloned EVE-NG lab.
    for (const node of copy.nodes)
      Object.assign(node, { status: EmuNodeStatus.stopped, transitionEndsAt: undefined, startedAt: undefined });
    this.emu.addLab(copy);
  }

  async deleteLab(path: string): Promise<void> {
    await this.write();
    this.emu.writableLab(path);
    this.emu.removeLab(path);
  }

  async addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode> {
    await this.write();
    const lab = this.emu.writableLab(path);
    this.emu.template(spec.template);
    const node = addStoredNode(lab, spec);
    this.emu.changed();
    return this.emu.toEmuNode(node);
  }

  async editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    const node = this.emu.node(lab, id);
    if (changes.template !== undefined && changes.template !== node.template) {
      throw new EmuError('refused', 'A node cannot change its template; delete it and add a new one.');
    }
    Object.assign(node, changes);
    if (changes.config === undefined && 'config' in changes) delete node.config;
    if (changes.ethernet !== undefined) {
      const dropped = node.links.slice(Math.max(0, changes.ethernet));
      node.links = Array.from({ length: Math.max(0, changes.ethernet) }, (_, i) => node.links[i] ?? 0);
      pruneHiddenNetworks(lab, dropped);
    }
    this.emu.changed();
  }

  async deleteNode(path: string, id: number): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    const node = this.emu.node(lab, id);
    this.emu.closeConsole(path, id);
    lab.nodes = lab.nodes.filter((n) => n.id !== id);
    pruneHiddenNetworks(lab, node.links);
    this.emu.changed();
  }

  async addNetwork(path: string, spec: EmuNetworkSpec): Promise<EmuNetwork> {
    await this.write();
    const lab = this.emu.writableLab(path);
    const type = NETWORK_TYPES.find((t) => t.id === spec.type);
    if (!type?.supported) throw new EmuError('refused', `Network type ${spec.type} is not available on this emulator.`);
    const network: EmuNetwork = { ...spec, id: lab.nextNetworkId++ };
    lab.networks.push(network);
    this.emu.changed();
    return { ...network };
  }

  async editNetwork(path: string, id: number, changes: Partial<EmuNetworkSpec>): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    const network = findById(lab.networks, id);
    if (!network) throw new EmuError('not_found', `Network ${id} does not exist in lab ${path}.`);
    if (changes.type !== undefined && !NETWORK_TYPES.find((t) => t.id === changes.type)?.supported) {
      throw new EmuError('refused', `Network type ${changes.type} is not available on this emulator.`);
    }
    Object.assign(network, changes);
    this.emu.changed();
  }

  async deleteNetwork(path: string, id: number): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    if (!findById(lab.networks, id)) throw new EmuError('not_found', `Network ${id} does not exist in lab ${path}.`);
    lab.networks = lab.networks.filter((n) => n.id !== id);
    for (const node of lab.nodes) node.links = node.links.map((n) => (n === id ? 0 : n));
    this.emu.changed();
  }

  async connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    await this.write();
    const lab = this.emu.writableLab(path);
    const node = this.emu.node(lab, nodeId);
    if (!Number.isInteger(index) || index < 0 || index >= node.links.length) {
      throw new EmuError('refused', `Node ${node.name} has no interface ${index}.`);
    }
    if (networkId !== 0 && !findById(lab.networks, networkId)) {
      throw new EmuError('not_found', `Network ${networkId} does not exist in lab ${path}.`);
    }
    const previous = node.links[index];
    node.links[index] = networkId;
    pruneHiddenNetworks(lab, [previous]);
    this.emu.changed();
  }

  async startNode(path: string, id: number): Promise<void> {
    await this.write();
    const lab = this.emu.lab(path);
    const node = this.emu.node(lab, id);
    if (node.status === EmuNodeStatus.starting || node.status === EmuNodeStatus.running) return;
    const template = this.emu.template(node.template);
    if (!template.provisioned)
      throw new EmuError('refused', `Template ${template.id} is not provisioned on this emulator.`);
    if (template.images.length && !template.images.some((i) => i.id === node.image && i.available)) {
      throw new EmuError(
        'refused',
        `Image ${node.image || '(none)'} of template ${template.id} is not available on this emulator.`,
      );
    }
    const now = this.emu.now();
    Object.assign(node, {
      status: EmuNodeStatus.starting,
      startedAt: now,
      transitionEndsAt: now + this.emu.options.bootMs,
    });
    this.emu.changed();
  }

  async stopNode(path: string, id: number, stopmode: number): Promise<void> {
    await this.write();
    const lab = this.emu.lab(path);
    const node = this.emu.node(lab, id);
    if (node.status === EmuNodeStatus.stopped || node.status === EmuNodeStatus.stopping) return;
    this.emu.closeConsole(path, id);
    // Power-off is immediate; the other modes shut down gracefully for a moment.
    const graceMs = stopmode === 1 ? 0 : Math.round(this.emu.options.bootMs / 5);
    Object.assign(node, {
      status: graceMs ? EmuNodeStatus.stopping : EmuNodeStatus.stopped,
      transitionEndsAt: graceMs ? this.emu.now() + graceMs : undefined,
      startedAt: undefined,
    });
    this.emu.changed();
  }

  async wipeNode(path: string, id: number): Promise<void> {
    await this.write();
    const lab = this.emu.lab(path);
    const node = this.emu.node(lab, id);
    this.emu.closeConsole(path, id);
    // Wiping deletes the runtime disk; a running node is stopped first.
    Object.assign(node, { status: EmuNodeStatus.stopped, transitionEndsAt: undefined, startedAt: undefined });
    this.emu.changed();
  }

  async openConsole(path: string, id: number): Promise<Duplex> {
    this.touch();
    const lab = this.emu.lab(path);
    const node = this.emu.node(lab, id);
    if (node.console !== 'telnet')
      throw new EmuError('refused', `The console of ${node.name} is ${node.console}, not telnet.`);
    if (node.status !== EmuNodeStatus.starting && node.status !== EmuNodeStatus.running)
      throw new EmuError('refused', `${node.name} is not running, so its console does not answer.`);
    return this.emu.hub(lab, node).attach();
  }

  async durable(): Promise<void> {
    this.emu.flush();
  }

  labUrl(path: string): string {
    return `${EMU_BASE_URL}/legacy${path.split('/').map(encodeURIComponent).join('/')}/topology`;
  }
}
