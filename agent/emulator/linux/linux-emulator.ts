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
import { join, resolve } from 'node:path';
import {
  EmuError,
  EmuNodeStatus,
  type EmuLab,
  type EmuNode,
  type EmulatorBackend,
  type EmulatorClient,
  type EmuTemplate,
  type EmulatorCapture,
  type LabRead,
} from '../backend';
import { sameConfig } from '../config-contexts';
import { UnavailableEmulator } from '../unavailable-emulator';
import { LabStore, pruneHiddenNetworks } from '../lab-store';
import { linuxTemplates } from './catalogue';
import { captureClient, LinuxCaptures, probeDumpcap } from './capture';
import { LinuxSummarizers, probeTshark } from './tshark-summaries';
import { NodeCgroups } from './cgroup';
import { links, linksNamed, listNamespaces, namespaceExists } from './kernel';
import { LabTurns } from './lab-turns';
import { mapBounded } from '../../bounded';
import { adoptLabs, labNamespaces } from './adoption';
import { cleanLeftovers } from './leftovers';
import { GRACEFUL_MS, LinuxClient, type LinuxLabs } from './linux-client';
import { INTERFACE_NAMES, type LinuxLab, type LinuxNode } from './linux-lab';
import { LinuxNames, loadAgentId } from './names';
import { ObjectJournal } from './object-journal';
import { PtyConsole } from './pty-console';
import { defaultConcurrentStarts, QUOTAS } from './quotas';
import { Places } from '../../places';
import { Realizer } from './realizer';
import { type SandboxSetup } from './sandbox';
import { denyListProgram } from './seccomp';
import { probeLinuxHost, type LinuxHost } from './system';

const STORE_FILE = 'linux-labs.json';
const SECCOMP_FILE = 'linux-seccomp.bpf';
/** Running configs read at once (a vtysh each, CPU work): as many as exec-many runs commands. */
const CONFIG_READS_AT_ONCE = 16;
/** Folders no node sees (besides /run, which holds /run/netns and FRR's run folders): FRR's own configs, state and logs. */
const MASKED = ['/etc/frr', '/var/lib/frr', '/var/log/frr'];

export interface LinuxEmulatorOptions {
  dataDir: string;
  log: (message: string) => void;
  /** Stop every lab (saving routers' running configs) when the agent stops; default: they keep running. */
  stopLabsOnExit?: boolean;
  /** Nodes one lab may have (default QUOTAS.nodesPerLab). */
  nodesPerLab?: number;
  /** Node starts under way at once (default defaultConcurrentStarts(), quotas.ts). */
  concurrentStarts?: number;
}

/** What a node's console and running config look like at the moment. */
interface NodeRuntime {
  console?: PtyConsole;
  /** A console showed activity or a command ran since the last read of the running config began. */
  dirty: boolean;
  /**
   * The newest read of the running config, in flight or done. Readers share it rather than a
   * value: one that arrives while a read begun after the last change is under way waits for it,
   * instead of taking the value from before the change (a pull right after a console change did).
   */
  running?: Promise<string | undefined>;
}

export class LinuxEmulator implements EmulatorBackend, LinuxLabs {
  readonly names: LinuxNames;
  readonly realizer: Realizer;
  private readonly store: LabStore<LinuxLab>;
  private readonly journal: ObjectJournal;
  private readonly runtimes = new Map<string, NodeRuntime>();
  private readonly turns = new LabTurns();
  /** Reads of a whole lab, of one node and of a router's running config (test/linux/linux-scale.test.ts counts them). */
  readonly reads = { labs: 0, nodes: 0, runningConfigs: 0 };
  private closed = false;
  /** Places for node starts (--concurrent-starts): more wait their turn. */
  readonly starts: Places;
  readonly nodesPerLab: number;
  readonly cgroups: NodeCgroups;
  readonly captures: LinuxCaptures;
  readonly summarizers: LinuxSummarizers;
  /** Packet capture (capture.ts), when dumpcap is installed; with summaries when tshark is too. */
  capture: EmulatorCapture | undefined;

  private constructor(
    readonly host: LinuxHost,
    private readonly options: LinuxEmulatorOptions,
  ) {
    this.names = new LinuxNames(loadAgentId(options.dataDir));
    this.nodesPerLab = options.nodesPerLab ?? QUOTAS.nodesPerLab;
    this.starts = new Places(options.concurrentStarts ?? defaultConcurrentStarts());
    this.journal = new ObjectJournal(options.dataDir, options.log);
    this.cgroups = new NodeCgroups(host.cgroups);
    this.captures = new LinuxCaptures(this.names, this.cgroups, options.log);
    this.summarizers = new LinuxSummarizers(this.names, this.cgroups, options.log);
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
    if (await probeDumpcap()) emu.capture = captureClient(emu, (await probeTshark()) ? emu.summarizers : undefined);
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
    await Promise.all([this.captures.closeAll(), this.summarizers.closeAll()]);
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

  async structure<T>(path: string, work: () => T | Promise<T>): Promise<T> {
    this.mustBeOpen();
    return this.turns.structure(path, work);
  }

  async onNode<T>(path: string, node: number | undefined, work: () => T | Promise<T>): Promise<T> {
    this.mustBeOpen();
    return this.turns.node(path, node, work);
  }

  private mustBeOpen(): void {
    if (this.closed) throw new EmuError('unreachable', 'The Linux emulator has shut down.');
  }

  changed(): void {
    this.store.changed();
  }

  /** Saves the labs now (the store otherwise saves a moment after a change). */
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
    if (lab.nodes.length > this.nodesPerLab)
      throw new EmuError(
        'refused',
        `Lab ${lab.path} has ${lab.nodes.length} nodes; a lab may have ${this.nodesPerLab} on this agent (--max-nodes-per-lab).`,
      );
    const tag = this.names.labTag(lab.path);
    const clash = [...this.store.labs.values()].find((l) => this.names.labTag(l.path) === tag);
    if (clash)
      throw new EmuError(
        'refused',
        `Lab ${lab.path} would share kernel names with ${clash.path}; choose another path.`,
      );
    this.store.labs.set(lab.path, lab);
    // Saved before any of its kernel objects exist: after a crash while they are made, the next start knows the
    // lab (and reports it interrupted) and not only the objects it left.
    this.changed();
    this.flush();
    await this.realizer.realizeLab(lab);
  }

  async removeLab(lab: LinuxLab): Promise<void> {
    for (const node of lab.nodes) this.dropRuntime(lab, node);
    await this.realizer.unrealizeLab(lab);
    this.store.labs.delete(lab.path);
    this.changed();
  }

  touched(lab: LinuxLab, node: LinuxNode): void {
    this.runtime(lab, node).dirty = true;
  }

  private runtime(lab: LinuxLab, node: LinuxNode): NodeRuntime {
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
    this.captures.endNode(lab.path, node.id);
    this.runtimes.get(key)?.console?.close();
    this.runtimes.delete(key);
  }

  /** Deletes hidden link networks among `candidates` that lost a member, with their bridges. */
  async pruneHiddenNetworks(lab: LinuxLab, candidates: Iterable<number>): Promise<void> {
    for (const id of pruneHiddenNetworks(lab, candidates)) await this.realizer.deleteNetwork(lab, id);
  }

  /** Whether a node the store says is running still runs (its daemons, or at least its namespace). */
  aliveIn(lab: LinuxLab, node: LinuxNode, namespaces?: ReadonlySet<string>): boolean {
    if (node.status !== EmuNodeStatus.running) return false;
    return this.realizer.kindOf(node).alive(this.realizer.nodeNs(lab, node), namespaces);
  }

  async isRunning(lab: LinuxLab, node: LinuxNode): Promise<boolean> {
    const ns = this.realizer.nodeNs(lab, node);
    return this.aliveIn(lab, node, new Set(namespaceExists(ns) ? [ns] : []));
  }

  /**
   * A router's own config when it differs from what its startup config gave
   * (decisions §4 "Node configs"): the running config of a running router, or
   * what a stopped one saved and boots into; with its baseline to tell the
   * changes from FRR's formatting.
   */
  private async runningConfigOf(
    lab: LinuxLab,
    node: LinuxNode,
    running: boolean,
  ): Promise<Pick<EmuNode, 'runningConfig' | 'runningConfigUnread'>> {
    const kind = this.realizer.kindOf(node);
    if (!kind.runningConfig) return {};
    let current = node.saved;
    if (running) {
      const runtime = this.runtime(lab, node);
      if (runtime.dirty || runtime.running === undefined) {
        runtime.dirty = false;
        this.reads.runningConfigs++;
        const read = kind.runningConfig(this.realizer.nodeNs(lab, node), node);
        runtime.running = read;
        // A read that failed is not kept: the next observation tries again.
        const forget = () => {
          if (runtime.running === read) runtime.running = undefined;
        };
        read.then((text) => text === undefined && forget(), forget);
      }
      current = await runtime.running;
      if (current === undefined)
        return {
          runningConfigUnread: `${node.name} did not answer vtysh's show running-config; try again in a moment`,
        };
    }
    if (current === undefined || node.baseline === undefined || sameConfig(current, node.baseline)) return {};
    return { runningConfig: { text: current, base: node.baseline } };
  }

  /** Pushes a changed startup config to a running node whose kind takes one live (a router). */
  async pushConfig(lab: LinuxLab, node: LinuxNode, from: string | undefined, hostname: string): Promise<void> {
    try {
      await this.realizer.kindOf(node).pushConfig?.(this.realizer.nodeNs(lab, node), node, from, hostname);
    } finally {
      this.runtime(lab, node).dirty = true;
    }
  }

  /** The lab as the kernel shows it: node liveness, interface wiring and (unless `read` says not) running configs read now. */
  async observe(lab: LinuxLab, read: LabRead = {}): Promise<EmuLab> {
    this.reads.labs++;
    const namespaces = new Set(await listNamespaces());
    const ports = new Map<string, number>();
    for (const port of await links(this.realizer.fabricNs(lab))) ports.set(port.ifname, this.networkOf(port.master));
    // Running configs are read side by side (one vtysh each), as many at once as exec-many runs commands.
    const configs = read.runningConfigs ?? true;
    const nodes = await mapBounded(lab.nodes, CONFIG_READS_AT_ONCE, (node) =>
      this.nodeAsSeen(lab, node, namespaces, ports, configs),
    );
    return {
      path: lab.path,
      name: lab.name,
      description: lab.description,
      locked: lab.locked,
      nodes,
      networks: lab.networks.map((n) => ({ ...n })),
    };
  }

  /** One node as the kernel shows it, reading nothing of the rest of the lab. */
  async observeNode(lab: LinuxLab, node: LinuxNode): Promise<EmuNode> {
    this.reads.nodes++;
    const ns = this.realizer.nodeNs(lab, node);
    const namespaces = new Set(namespaceExists(ns) ? [ns] : []);
    const ports = new Map<string, number>();
    const names = node.links.map((_, index) => this.names.fabricPort(node.id, index));
    for (const port of await linksNamed(this.realizer.fabricNs(lab), names))
      ports.set(port.ifname, this.networkOf(port.master));
    return this.nodeAsSeen(lab, node, namespaces, ports);
  }

  /** The network a fabric port's bridge stands for (0: on no bridge of ours). */
  private networkOf(bridge: string | undefined): number {
    return (bridge === undefined ? undefined : this.names.parseBridge(bridge)) ?? 0;
  }

  /** A node given the namespaces that exist and the network of each fabric port; reads its running config if `configs`. */
  private async nodeAsSeen(
    lab: LinuxLab,
    node: LinuxNode,
    namespaces: ReadonlySet<string>,
    ports: ReadonlyMap<string, number>,
    configs = true,
  ): Promise<EmuNode> {
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
    const own = configs ? await this.runningConfigOf(lab, node, running) : {};
    const { configEffect } = this.realizer.kindOf(node);
    const transition = node.status === EmuNodeStatus.starting || node.status === EmuNodeStatus.stopping;
    return {
      ...spec,
      ...(node.config !== undefined ? { config: node.config } : {}),
      ...own,
      ...(configEffect ? { configEffect } : {}),
      status: running
        ? EmuNodeStatus.running
        : node.status === EmuNodeStatus.running
          ? EmuNodeStatus.stopped
          : node.status,
      type: 'docker',
      url: `telnet://127.0.0.1/${this.realizer.nodeNs(lab, node)}`,
      interfaces: wiring.map((networkId, index) => ({
        index,
        name: INTERFACE_NAMES.nameAt(index),
        // A node starting or stopping (beside this read) may be getting a fresh namespace: its ports are being remade as stored.
        networkId: transition ? networkId : (ports.get(this.names.fabricPort(node.id, index)) ?? 0),
      })),
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
