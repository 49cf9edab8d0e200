/**
 * What the agent needs from the network emulator behind it, shaped after the
 * EVE-NG REST API. The reference agent ships a simulated implementation
 * (simulated/); a real EVE-NG backend implements the same interfaces.
 */
import type { Duplex, Readable } from 'node:stream';
import type { SummariesEndLine } from '../../common/api/contract';

/** EVE-NG's node status, as its API numbers it. */
export const EmuNodeStatus = { stopped: 0, starting: 1, running: 2, stopping: 3 } as const;
export type EmuNodeStatus = (typeof EmuNodeStatus)[keyof typeof EmuNodeStatus];

export type EmuTemplateType = 'qemu' | 'iol' | 'dynamips' | 'vpcs' | 'docker';
export type EmuConsoleType = 'telnet' | 'vnc' | 'rdp';

export interface EmuTemplateImage {
  id: string;
  available: boolean;
}

/** One option a template offers for its nodes (EVE-NG's template options). */
export interface EmuTemplateAttribute {
  name: string;
  label: string;
  kind: 'input' | 'list' | 'checkbox' | 'textarea';
  group: 'basic' | 'hardware' | 'advanced';
  values?: string[];
}

export interface EmuNodeDefaults {
  cpu: number;
  ram: number;
  ethernet: number;
  icon: string;
  console: EmuConsoleType;
}

export interface EmuTemplate {
  id: string;
  description: string;
  type: EmuTemplateType;
  provisioned: boolean;
  configSupported: boolean;
  /** Images in the emulator's order. */
  images: EmuTemplateImage[];
  /** The image a node gets when none is given (EVE-NG: the last available one; '' when none). */
  defaultImage: string;
  attributes: EmuTemplateAttribute[];
  ethFormat: string;
  ethName?: string[];
  defaults: EmuNodeDefaults;
}

export interface EmuNetworkType {
  id: string;
  label: string;
  icon: string;
  supported: boolean;
}

export interface EmuIcon {
  id: string;
  label: string;
}

export interface EmuInterface {
  index: number;
  name: string;
  /** The network the interface is attached to; 0 when unconnected. */
  networkId: number;
}

/** What a node is made of; everything the agent may set when adding or editing one. */
export interface EmuNodeSpec {
  name: string;
  template: string;
  image: string;
  icon: string;
  cpu: number;
  ram: number;
  ethernet: number;
  console: EmuConsoleType;
  /** Startup configuration text; undefined when the node has none. */
  config?: string;
  left: number;
  top: number;
}

/**
 * How a changed startup config reaches a node that runs (decisions §4 "Node configs"):
 * applied to it at once, at its next start, or only once it is wiped.
 */
export type ConfigEffect = 'live' | 'restart' | 'wipe';

export interface EmuNode extends EmuNodeSpec {
  id: number;
  type: EmuTemplateType;
  status: EmuNodeStatus;
  /** The node's console address, e.g. telnet://127.0.0.1:32769. */
  url: string;
  interfaces: EmuInterface[];
  /**
   * The router's own config where the emulator can read it and it differs from what the startup
   * config (`config`) gave: the running config, or what a stopped node saved and boots into.
   * `base` is that config as it was with no change made on the node, in the same form,
   * so the changes can be told apart from the router's formatting.
   */
  runningConfig?: { text: string; base: string };
  /**
   * Why the router's own config could not be read this time (a running router that did not
   * answer): it may differ from the startup config, and a pull must not report that nothing changed.
   */
  runningConfigUnread?: string;
  /** How a change of `config` reaches this node; omitted when the emulator does not say. */
  configEffect?: ConfigEffect;
}

export interface EmuNetworkSpec {
  name: string;
  type: string;
  /** false for the hidden bridge behind a node-to-node link. */
  visibility: boolean;
  left: number;
  top: number;
}

export interface EmuNetwork extends EmuNetworkSpec {
  id: number;
}

export interface EmuLab {
  path: string;
  name: string;
  description: string;
  /** The emulator's lab lock: a locked lab refuses changes. */
  locked: boolean;
  nodes: EmuNode[];
  networks: EmuNetwork[];
}

export interface EmuStatus {
  version: string;
  edition: string;
  /** The emulator's web UI, for links shown to users. */
  baseUrl: string;
}

export type EmuErrorKind =
  /** The lab, node or network does not exist. */
  | 'not_found'
  /** The path is taken. */
  | 'exists'
  /** The lab is locked. */
  | 'locked'
  /** Another lab holds what the call needs (EVE-NG: a node id of the account's one pod). */
  | 'busy'
  /** The emulator refused the request (e.g. a node whose image is missing). */
  | 'refused'
  /** The emulator session expired. */
  | 'session_expired'
  /** The emulator does not answer. */
  | 'unreachable';

export class EmuError extends Error {
  constructor(
    readonly kind: EmuErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'EmuError';
  }
}

/**
 * One emulator session (EVE-NG: a login cookie). Every call extends the
 * session; a session idle for too long fails every call with
 * EmuError('session_expired').
 */
/** What a read of a lab may leave out. */
export interface LabRead {
  /**
   * Whether to read the running config of each running node (`EmuNode.runningConfig`), which
   * costs the emulator a command per router (default true). A caller that needs only the nodes'
   * states and wiring (a console command, a destroy) says false.
   */
  runningConfigs?: boolean;
}

export interface EmulatorClient {
  /**
   * How many writes the emulator takes at once from this session; an apply runs independent
   * changes side by side up to this many. Omitted: 1, one write after another.
   */
  readonly maxConcurrentWrites?: number;
  status(): Promise<EmuStatus>;
  listTemplates(): Promise<EmuTemplate[]>;
  getTemplate(id: string): Promise<EmuTemplate | undefined>;
  listNetworkTypes(): Promise<{ types: EmuNetworkType[]; natOnly: boolean }>;
  listIcons(): Promise<EmuIcon[]>;

  /** The lab as the emulator has it now; `read` may leave out what the caller does not need. */
  getLab(path: string, read?: LabRead): Promise<EmuLab | undefined>;
  createLab(path: string, meta: { name: string; description: string }): Promise<void>;
  editLab(path: string, meta: { name?: string; description?: string }): Promise<void>;
  /** Copies a lab to a new path (EVE-NG: POST /api/labs with a source). */
  cloneLab(source: string, destination: string): Promise<void>;
  deleteLab(path: string): Promise<void>;
  /**
   * deleteLab itself powers off and removes every node of the lab, running or not, side by
   * side (Linux: kills its processes and removes its namespace), with nothing of a node left to
   * wipe: destroy deletes the lab at once instead of stopping and wiping each node first.
   */
  readonly deleteLabRemovesNodes?: boolean;

  addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode>;
  editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void>;
  deleteNode(path: string, id: number): Promise<void>;
  addNetwork(path: string, spec: EmuNetworkSpec): Promise<EmuNetwork>;
  editNetwork(path: string, id: number, changes: Partial<EmuNetworkSpec>): Promise<void>;
  deleteNetwork(path: string, id: number): Promise<void>;
  /** Attaches interface `index` of a node to a network; networkId 0 detaches it. */
  connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void>;

  startNode(path: string, id: number): Promise<void>;
  /** stopmode: 0 graceful, 1 poweroff, 2 hibernate, 3 auto. */
  stopNode(path: string, id: number, stopmode: number): Promise<void>;
  wipeNode(path: string, id: number): Promise<void>;

  /** Connects to a node's telnet console; the stream speaks telnet as EVE-NG's console server does. */
  openConsole(path: string, id: number): Promise<Duplex>;
  /** The emulator's web page for a lab. */
  labUrl(path: string): string;
  /**
   * Runs one command on a running node directly (not by typing on its
   * console) and returns its real output and duration. Optional: without it,
   * console exec drives the telnet console and waits for the prompt. Of the
   * output, at most `maxChars` characters are kept (the command still runs to
   * its end): many commands at once must not fill the agent's memory.
   */
  runCommand?(path: string, id: number, command: string, timeoutMs: number, maxChars: number): Promise<CommandOutput>;
  /** Packet capture (decisions §14); absent where the emulator cannot capture. */
  readonly capture?: EmulatorCapture;
  /**
   * Resolves once every change made so far would survive a crash of the agent. Backends that save
   * their labs a moment after a change (simulated, Linux) save now; omitted where each write is
   * durable when it answers (EVE-NG writes the lab file). The agent acknowledges an apply only after it.
   */
  durable?(): Promise<void>;
}

/** One interface to capture on: a node's interface by its index, named `node:interface` in the capture. */
export interface CaptureTarget {
  nodeId: number;
  index: number;
  /** `r1:eth1`: the interface's name in the capture. */
  label: string;
}

export interface CaptureSpec {
  targets: CaptureTarget[];
  /** A pcap-filter(7) expression; '' for every packet. */
  filter: string;
  snaplen: number;
}

/** Why a capture ended on the emulator's side. */
export type CaptureStop = 'node_stopped' | 'agent_stopping' | 'failed' | 'stopped';

/**
 * A running capture. `output` is a stream of arrays of whole pcapng blocks:
 * the section header and one interface description per target first, then the
 * packets of all targets in time order, then statistics when the capture ends.
 * It is read only as fast as the caller takes it.
 */
export interface PacketCapture {
  readonly output: Readable;
  /** Ends the capture; `output` ends soon after (with statistics where the tool gives them). */
  stop(): void;
  /** Why the capture ended, once `output` has ended. */
  readonly endedBy: CaptureStop | undefined;
}

export interface EmulatorCapture {
  /** Throws CaptureFilterError when `filter` does not compile for the lab's interfaces. */
  checkFilter(path: string, spec: CaptureSpec): Promise<void>;
  start(path: string, spec: CaptureSpec): Promise<PacketCapture>;
  /** Starts a dissector of a capture's pcapng on the agent's machine; absent where there is none (no tshark). */
  summarize?(): Promise<PacketSummarizer>;
}

/**
 * A dissector reading one capture's pcapng stream as it is sent (decisions §14,
 * summaries). It never slows the stream: `write` only queues, and a dissector
 * that falls too far behind (or whose reader does) gives up, ending `summaries`
 * with `lagging`. `summaries` is an object stream of PacketSummary, read as
 * fast as its reader takes it.
 */
export interface PacketSummarizer {
  readonly summaries: Readable;
  /** Bytes of the pcapng stream, in the order sent. */
  write(bytes: Buffer): void;
  /** The stream has ended: the dissector finishes what it has, then `summaries` ends. */
  end(): void;
  /** Nobody will read: the dissector stops now. */
  stop(): void;
  /** Why `summaries` ended, once it has. */
  readonly outcome: SummariesEndLine | undefined;
}

/** A capture filter the capture tool could not compile; the message is the tool's. */
export class CaptureFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaptureFilterError';
  }
}

export interface CommandOutput {
  output: string;
  durationMs: number;
  /** The command did not finish in time; `output` is what arrived until then. */
  timedOut: boolean;
  /** The command printed more than was kept: `output` is its beginning. */
  truncated?: boolean;
}

export interface EmulatorBackend {
  /** Logs in to the emulator for one agent session. */
  connect(username: string): Promise<EmulatorClient>;
  /**
   * Finishes pending writes and drops connections; the backend is unusable afterwards.
   * Labs keep running where the emulator can (Linux) unless `stopLabs` says to stop them.
   */
  close(how?: { stopLabs?: boolean }): Promise<void>;
}
