/**
 * The Linux emulator: real labs on this machine. Each node is a network
 * namespace running FRRouting (router), a shell (host) or a bridge (switch);
 * each interface a veth pair into the lab's fabric namespace; each network a
 * bridge there. Lab definitions persist in the data directory; the kernel
 * objects live while the agent runs (close() removes them, the next start
 * makes them again with every node stopped).
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { hostname as machineName } from 'node:os';
import { join, resolve } from 'node:path';
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
  type EmuIcon,
  type EmuNetworkType,
  type EmuStatus,
  type EmuTemplate,
} from '../backend';
import { sameConfig } from '../config-contexts';
import { UnavailableEmulator } from '../unavailable-emulator';
import { LabStore, pruneHiddenNetworks } from '../lab-store';
import { ICONS, linuxTemplates, NETWORK_TYPES } from './catalogue';
import { NodeCgroups } from './cgroup';
import { routerAlive, runningConfig } from './frr';
import { pushConfig } from './frr-config';
import { links, listNamespaces, namespaceExists } from './kernel';
import { adoptLabs, labNamespaces } from './adoption';
import { cleanLeftovers } from './leftovers';
import { LinuxNames, loadAgentId } from './names';
import { ObjectJournal } from './object-journal';
import { PtyConsole } from './pty-console';
import { INTERFACE_NAMES, kindOf, Realizer, routerHostname, type LinuxLab, type LinuxNode } from './realizer';
import { sandboxInit, type SandboxSetup } from './sandbox';
import { denyListProgram } from './seccomp';
import { probeLinuxHost, type LinuxHost } from './system';
import { Turns } from '../../turns';

const STORE_FILE = 'linux-labs.json';
/** Grace for a graceful stop, and for auto's graceful attempt before it powers off. */
const GRACEFUL_MS = 10_000;
const AUTO_GRACE_MS = 3_000;
const SECCOMP_FILE = 'linux-seccomp.bpf';
/** Folders no node sees (besides /run, which holds /run/netns and FRR's run folders): FRR's own configs, state and logs. */
const MASKED = ['/etc/frr', '/var/lib/frr', '/var/log/frr'];

/** Quotas that keep one user from exhausting the machine (agent/README.md lists them). */
const QUOTAS = {
  /** Nodes in one lab. */
  nodesPerLab: 256,
  /** Labs on this agent. */
  labs: 64,
  /** Node starts under way at once on this agent (each boots processes). */
  concurrentStarts: 8,
};

export interface LinuxEmulatorOptions {
  dataDir: string;
  log: (message: string) => void;
  /** Stop every lab (saving routers' running configs) when the agent stops; default: they keep running. */
  stopLabsOnExit?: boolean;
}

/** What a node's console and running config look like at the moment. */
interface NodeRuntime {
  console?: PtyConsole;
  /** Someone typed on a console or ran a command since the running config was last read. */
  dirty: boolean;
  running?: string;
}

export class LinuxEmulator implements EmulatorBackend {
  readonly names: LinuxNames;
  readonly realizer: Realizer;
  private readonly store: LabStore<LinuxLab>;
  private readonly journal: ObjectJournal;
  private readonly runtimes = new Map<string, NodeRuntime>();
  private readonly turns = new Turns();
  private closed = false;
  /** Node starts under way (QUOTAS.concurrentStarts). */
  starting = 0;
  readonly cgroups: NodeCgroups;

  private constructor(
    readonly host: LinuxHost,
    private readonly options: LinuxEmulatorOptions,
  ) {
    this.names = new LinuxNames(loadAgentId(options.dataDir));
    this.journal = new ObjectJournal(options.dataDir, options.log);
    this.cgroups = new NodeCgroups(host.cgroups);
    const seccompFile = join(resolve(options.dataDir), SECCOMP_FILE);
    writeFileSync(seccompFile, denyListProgram(), { mode: 0o600 });
    const setup: SandboxSetup = {
      cgroups: this.cgroups,
      seccompFile,
      masks: [resolve(options.dataDir), ...MASKED.filter((dir) => existsSync(dir))],
    };
    this.realizer = new Realizer(this.names, this.journal, host, setup);
    this.store = LabStore.open<LinuxLab>(options.dataDir, () => [], options.log, STORE_FILE);
  }

  /**
   * Probes the machine; when the emulator can run here, removes what an
   * earlier run of this agent left in the kernel and makes every saved lab
   * real again with its nodes stopped.
   */
  static async open(options: LinuxEmulatorOptions): Promise<LinuxEmulator | UnavailableEmulator> {
    const host = await probeLinuxHost();
    if (host.problems.length) return new UnavailableEmulator('linux', host.problems);
    const emu = new LinuxEmulator(host, options);
    const labs = [...emu.store.labs.values()];
    const removed = await cleanLeftovers(emu.names, emu.journal, emu.cgroups, labNamespaces(labs, emu.realizer));
    if (removed.length)
      options.log(
        `Linux emulator: removed ${removed.length} namespace(s) an earlier run left behind: ${removed.join(', ')}`,
      );
    for (const lab of labs) {
      try {
        const adoption = await adoptLabs([lab], emu.realizer, (l, n) => emu.aliveIn(l, n));
        for (const [path, nodes] of adoption.running)
          options.log(
            `Linux emulator: ${path}: ${nodes.length} node(s) still running, taken back: ${nodes.join(', ')}`,
          );
        for (const [path, nodes] of adoption.stoppedWhileAway)
          options.log(
            `Linux emulator: ${path}: ${nodes.length} node(s) stopped while the agent was away: ${nodes.join(', ')}`,
          );
      } catch (e) {
        // One lab that cannot be taken back must not keep the agent (and the other labs) down.
        options.log(`Linux emulator: could not take back lab ${lab.path}: ${(e as Error).message}`);
      }
    }
    emu.store.changed();
    return emu;
  }

  get description(): string {
    return `linux (network namespaces, FRRouting ${this.host.frrVersion}, agent id ${this.names.agentId})`;
  }

  connect(): Promise<EmulatorClient> {
    return Promise.resolve(new LinuxClient(this));
  }

  /**
   * Closes consoles and saves the labs. Their nodes keep running for the next
   * start to take back (adoption.ts), unless `stopLabs` (or the option
   * stopLabsOnExit) says to stop them: then every running router saves its
   * running config (a graceful stop) and every kernel object and process goes.
   */
  async close(how: { stopLabs?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let changes under way finish, so nothing is half-made while it is removed.
    await this.turns.settled();
    for (const runtime of this.runtimes.values()) runtime.console?.close();
    this.runtimes.clear();
    if (how.stopLabs ?? this.options.stopLabsOnExit ?? false) {
      for (const lab of this.store.labs.values()) {
        try {
          for (const node of lab.nodes)
            if (node.status === EmuNodeStatus.running) await this.realizer.stop(lab, node, GRACEFUL_MS);
          await this.realizer.unrealizeLab(lab);
        } catch (e) {
          this.options.log(`Linux emulator: could not remove lab ${lab.path}: ${(e as Error).message}`);
        }
        for (const node of lab.nodes) node.status = EmuNodeStatus.stopped;
      }
    }
    this.store.close();
  }

  // ---------------------------------------------------------------- internals used by the client

  /** Runs `work` after every earlier call on the same lab: calls on one lab take turns. */
  async serial<T>(path: string, work: () => T | Promise<T>): Promise<T> {
    if (this.closed) throw new EmuError('unreachable', 'The Linux emulator has shut down.');
    return this.turns.run(path, work);
  }

  changed(): void {
    this.store.changed();
  }

  flush(): void {
    this.store.flush();
  }

  lab(path: string): LinuxLab {
    return this.store.get(path);
  }

  maybeLab(path: string): LinuxLab | undefined {
    return this.store.labs.get(path);
  }

  node(lab: LinuxLab, id: number): LinuxNode {
    const node = lab.nodes.find((n) => n.id === id);
    if (!node) throw new EmuError('not_found', `Node ${id} does not exist in lab ${lab.path}.`);
    return node;
  }

  async addLab(lab: LinuxLab): Promise<void> {
    if (this.store.labs.has(lab.path)) throw new EmuError('exists', `Lab ${lab.path} already exists.`);
    if (this.store.labs.size >= QUOTAS.labs)
      throw new EmuError(
        'refused',
        `This agent holds ${this.store.labs.size} labs, its limit; delete one before creating ${lab.path}.`,
      );
    if (lab.nodes.length > QUOTAS.nodesPerLab)
      throw new EmuError(
        'refused',
        `Lab ${lab.path} has ${lab.nodes.length} nodes; a lab may have ${QUOTAS.nodesPerLab}.`,
      );
    const tag = this.names.labTag(lab.path);
    const clash = [...this.store.labs.values()].find((l) => this.names.labTag(l.path) === tag);
    if (clash)
      throw new EmuError(
        'refused',
        `Lab ${lab.path} would share kernel names with ${clash.path}; choose another path.`,
      );
    this.store.labs.set(lab.path, lab);
    this.changed();
    await this.realizer.realizeLab(lab);
  }

  async removeLab(lab: LinuxLab): Promise<void> {
    for (const node of lab.nodes) this.dropRuntime(lab, node);
    await this.realizer.unrealizeLab(lab);
    this.store.labs.delete(lab.path);
    this.changed();
  }

  runtime(lab: LinuxLab, node: LinuxNode): NodeRuntime {
    const key = `${lab.path}#${node.id}`;
    let runtime = this.runtimes.get(key);
    if (!runtime) {
      runtime = { dirty: true };
      this.runtimes.set(key, runtime);
    }
    return runtime;
  }

  /** The node stopped or went away: its console closes and its running config is forgotten. */
  dropRuntime(lab: LinuxLab, node: LinuxNode): void {
    const key = `${lab.path}#${node.id}`;
    this.runtimes.get(key)?.console?.close();
    this.runtimes.delete(key);
  }

  /** Deletes hidden link networks among `candidates` that lost a member, with their bridges. */
  async pruneHiddenNetworks(lab: LinuxLab, candidates: Iterable<number>): Promise<void> {
    for (const id of pruneHiddenNetworks(lab, candidates)) await this.realizer.deleteNetwork(lab, id);
  }

  /** Whether a node the store says is running still runs (its daemons, or at least its namespace). */
  aliveIn(lab: LinuxLab, node: LinuxNode, namespaces?: Set<string>): boolean {
    const ns = this.realizer.nodeNs(lab, node);
    if (node.status !== EmuNodeStatus.running) return false;
    if (kindOf(node) === 'router') return routerAlive(ns);
    // Without a list at hand (taking nodes back after a restart), a host or switch lives while its sandbox does.
    return namespaces ? namespaces.has(ns) : sandboxInit(ns, this.cgroups) !== undefined;
  }

  async isRunning(lab: LinuxLab, node: LinuxNode): Promise<boolean> {
    const ns = this.realizer.nodeNs(lab, node);
    return this.aliveIn(lab, node, new Set((await namespaceExists(ns)) ? [ns] : []));
  }

  /**
   * A router's own config when it differs from what its startup config gave
   * (decisions §4 "Node configs"): the running config of a running router, or
   * what a stopped one saved and boots into; with its baseline to tell the
   * changes from FRR's formatting.
   */
  private async runningConfigOf(lab: LinuxLab, node: LinuxNode, running: boolean): Promise<EmuNode['runningConfig']> {
    if (kindOf(node) !== 'router') return undefined;
    let current = node.saved;
    if (running) {
      const runtime = this.runtime(lab, node);
      if (runtime.dirty || runtime.running === undefined) {
        runtime.dirty = false;
        runtime.running = await runningConfig(this.realizer.nodeNs(lab, node), routerHostname(node));
      }
      current = runtime.running;
    }
    if (current === undefined || node.baseline === undefined || sameConfig(current, node.baseline)) return undefined;
    return { text: current, base: node.baseline };
  }

  /** Pushes a changed startup config to a running router (live, with FRR's reload tool). */
  async pushConfig(lab: LinuxLab, node: LinuxNode, from: string | undefined, hostname: string): Promise<void> {
    try {
      await pushConfig(this.realizer.nodeNs(lab, node), hostname, node, from ?? '', node.config ?? '');
    } finally {
      this.runtime(lab, node).dirty = true;
    }
  }

  /** The lab as the kernel shows it: node liveness, interface wiring and running configs read now. */
  async observe(lab: LinuxLab): Promise<EmuLab> {
    const namespaces = new Set(await listNamespaces());
    const ports = new Map<string, number>();
    for (const link of await links(this.realizer.fabricNs(lab))) {
      const network = link.master === undefined ? undefined : this.names.parseBridge(link.master);
      ports.set(link.ifname, network ?? 0);
    }
    const nodes: EmuNode[] = [];
    for (const node of lab.nodes) {
      const running = this.aliveIn(lab, node, namespaces);
      // A node whose processes died (crashed, or killed by hand) is stopped.
      if (node.status === EmuNodeStatus.running && !running) this.dropRuntime(lab, node);
      const {
        links: wiring,
        saved: _saved,
        savedFrom: _savedFrom,
        baseline: _baseline,
        transitionEndsAt: _t,
        startedAt: _s,
        config: _c,
        ...spec
      } = node;
      const runningConfig = await this.runningConfigOf(lab, node, running);
      const kind = kindOf(node);
      nodes.push({
        ...spec,
        ...(node.config !== undefined ? { config: node.config } : {}),
        ...(runningConfig ? { runningConfig } : {}),
        ...(kind === 'switch' ? {} : { configEffect: kind === 'router' ? 'live' : 'restart' }),
        status: running
          ? EmuNodeStatus.running
          : node.status === EmuNodeStatus.running
            ? EmuNodeStatus.stopped
            : node.status,
        type: 'docker',
        url: `telnet://127.0.0.1/${this.realizer.nodeNs(lab, node)}`,
        interfaces: wiring.map((_, index) => ({
          index,
          name: INTERFACE_NAMES.nameAt(index),
          networkId: ports.get(this.names.fabricPort(node.id, index)) ?? 0,
        })),
      });
    }
    return {
      path: lab.path,
      name: lab.name,
      description: lab.description,
      locked: lab.locked,
      nodes,
      networks: lab.networks.map((n) => ({ ...n })),
    };
  }

  openConsole(lab: LinuxLab, node: LinuxNode): Duplex {
    const runtime = this.runtime(lab, node);
    if (!runtime.console?.alive) {
      const made = new PtyConsole(
        `${lab.name}/${node.name}`,
        this.realizer.consoleCommand(lab, node),
        () => {
          if (runtime.console === made) runtime.console = undefined;
        },
        () => {
          runtime.dirty = true;
        },
      );
      runtime.console = made;
    }
    return runtime.console.attach();
  }

  template(id: string): EmuTemplate {
    const template = linuxTemplates(this.host).find((t) => t.id === id);
    if (!template)
      throw new EmuError(
        'refused',
        `Template ${id} does not exist on this emulator (it offers frr, linux and switch).`,
      );
    return template;
  }
}

/** One agent session's view of the Linux emulator (the machine has no emulator sessions to expire). */
class LinuxClient implements EmulatorClient {
  constructor(private readonly emu: LinuxEmulator) {}

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

  async getLab(path: string): Promise<EmuLab | undefined> {
    return this.emu.serial(path, async () => {
      const lab = this.emu.maybeLab(path);
      return lab && this.emu.observe(lab);
    });
  }

  async createLab(path: string, meta: { name: string; description: string }): Promise<void> {
    await this.emu.serial(path, () =>
      this.emu.addLab({ path, ...meta, locked: false, nodes: [], networks: [], nextNodeId: 1, nextNetworkId: 1 }),
    );
  }

  async editLab(path: string, meta: { name?: string; description?: string }): Promise<void> {
    await this.emu.serial(path, () => {
      const lab = this.writable(path);
      if (meta.name !== undefined) lab.name = meta.name;
      if (meta.description !== undefined) lab.description = meta.description;
      this.emu.changed();
    });
  }

  async cloneLab(source: string, destination: string): Promise<void> {
    const copy = await this.emu.serial(source, () => structuredClone(this.emu.lab(source)));
    await this.emu.serial(destination, async () => {
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
    await this.emu.serial(path, async () => this.emu.removeLab(this.writable(path)));
  }

  async addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode> {
    return this.emu.serial(path, async () => {
      const lab = this.writable(path);
      this.emu.template(spec.template);
      if (lab.nodes.length >= QUOTAS.nodesPerLab)
        throw new EmuError(
          'refused',
          `Lab ${path} has ${lab.nodes.length} nodes, the most a lab may have on this agent; ${spec.name} was not added.`,
        );
      const node: LinuxNode = {
        ...spec,
        id: lab.nextNodeId++,
        status: EmuNodeStatus.stopped,
        links: new Array<number>(Math.max(0, spec.ethernet)).fill(0),
      };
      if (spec.config === undefined) delete node.config;
      lab.nodes.push(node);
      this.emu.changed();
      await this.emu.realizer.realizeNode(lab, node);
      const observed = await this.emu.observe(lab);
      return observed.nodes.find((n) => n.id === node.id) as EmuNode;
    });
  }

  async editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void> {
    await this.emu.serial(path, async () => {
      const lab = this.writable(path);
      const node = this.emu.node(lab, id);
      if (changes.template !== undefined && changes.template !== node.template)
        throw new EmuError('refused', 'A node cannot change its template; delete it and add a new one.');
      const before = node.links.length;
      const previous = { config: node.config, hostname: routerHostname(node) };
      Object.assign(node, changes);
      if (changes.config === undefined && 'config' in changes) delete node.config;
      if ('config' in changes && kindOf(node) === 'router' && (await this.emu.isRunning(lab, node))) {
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
    await this.emu.serial(path, async () => {
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
    return this.emu.serial(path, async () => {
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
    await this.emu.serial(path, () => {
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
    await this.emu.serial(path, async () => {
      const lab = this.writable(path);
      if (!lab.networks.some((n) => n.id === id))
        throw new EmuError('not_found', `Network ${id} does not exist in lab ${path}.`);
      lab.networks = lab.networks.filter((n) => n.id !== id);
      for (const node of lab.nodes) node.links = node.links.map((n) => (n === id ? 0 : n));
      this.emu.changed();
      await this.emu.realizer.deleteNetwork(lab, id);
    });
  }

  async connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    await this.emu.serial(path, async () => {
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
      await this.emu.pruneHiddenNetworks(lab, [previous]);
    });
  }

  async startNode(path: string, id: number): Promise<void> {
    await this.emu.serial(path, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (await this.emu.isRunning(lab, node)) return;
      this.emu.template(node.template);
      if (this.emu.starting >= QUOTAS.concurrentStarts)
        throw new EmuError(
          'refused',
          `${node.name} did not start: ${this.emu.starting} nodes are starting on this agent already (at most ${QUOTAS.concurrentStarts} at once); start it again in a moment.`,
        );
      this.emu.starting++;
      node.status = EmuNodeStatus.starting;
      try {
        await this.emu.realizer.start(lab, node);
        node.status = EmuNodeStatus.running;
        node.startedAt = Date.now();
      } catch (e) {
        node.status = EmuNodeStatus.stopped;
        throw e;
      } finally {
        this.emu.starting--;
        this.emu.changed();
      }
    });
  }

  async stopNode(path: string, id: number, stopmode: number): Promise<void> {
    await this.emu.serial(path, async () => {
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
    await this.emu.serial(path, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      this.emu.dropRuntime(lab, node);
      // Wiping drops the running state: the node is powered off and boots from its startup config next time.
      if (node.status !== EmuNodeStatus.stopped) await this.emu.realizer.stop(lab, node, 0);
      Object.assign(node, { status: EmuNodeStatus.stopped, startedAt: undefined });
      delete node.saved;
      delete node.savedFrom;
      delete node.baseline;
      this.emu.changed();
    });
  }

  async openConsole(path: string, id: number): Promise<Duplex> {
    return this.emu.serial(path, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (!(await this.emu.isRunning(lab, node)))
        throw new EmuError('refused', `${node.name} is not running, so its console does not answer.`);
      return this.emu.openConsole(lab, node);
    });
  }

  async runCommand(path: string, id: number, command: string, timeoutMs: number) {
    const { lab, node } = await this.emu.serial(path, async () => {
      const lab = this.emu.lab(path);
      const node = this.emu.node(lab, id);
      if (!(await this.emu.isRunning(lab, node))) throw new EmuError('refused', `${node.name} is not running.`);
      return { lab, node };
    });
    const result = await this.emu.realizer.exec(lab, node, command, timeoutMs);
    this.emu.runtime(lab, node).dirty = true;
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
