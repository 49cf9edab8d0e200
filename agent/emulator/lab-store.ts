/**
 * An emulator's labs as the simulated and Linux backends keep them: in memory and saved to one JSON file in
 * the data directory (written atomically, a moment after each change), so labs
 * and node states survive an agent restart as they would on a real server.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { EmuError, EmuNodeStatus, type EmuNodeSpec } from './backend';
import { writeFileAtomic } from '../storage/atomic-file';

/** A node as the emulator keeps it: what it was made of, plus its runtime state. */
export interface StoredNode extends EmuNodeSpec {
  id: number;
  status: EmuNodeStatus;
  /** When a starting or stopping node finishes its transition (emulator clock, ms). */
  transitionEndsAt?: number;
  /** When the node last started (emulator clock, ms), for uptime. */
  startedAt?: number;
  /** Network id per interface index; 0 when unconnected. */
  links: number[];
}

export interface StoredNetwork {
  id: number;
  name: string;
  type: string;
  visibility: boolean;
  left: number;
  top: number;
}

export interface StoredLab {
  path: string;
  name: string;
  description: string;
  locked: boolean;
  nodes: StoredNode[];
  networks: StoredNetwork[];
  nextNodeId: number;
  nextNetworkId: number;
}

interface StoredState<L> {
  version: 1;
  labs: L[];
}

const STATE_FILE = 'emulator-state.json';
const SAVE_DELAY_MS = 25;
/** Under a stream of changes, saving takes at most about a fifth of the time (a big lab takes a while to write). */
const SAVE_SPACING = 4;

/** A node made from its spec and added to `lab`: the lab's next id, stopped, no interface connected. */
export function addStoredNode<N extends StoredNode>(lab: { nodes: N[]; nextNodeId: number }, spec: EmuNodeSpec): N {
  const node = {
    ...spec,
    id: lab.nextNodeId++,
    status: EmuNodeStatus.stopped,
    links: new Array<number>(Math.max(0, spec.ethernet)).fill(0),
  } as N;
  if (spec.config === undefined) delete node.config;
  lab.nodes.push(node);
  return node;
}

/**
 * The node or network with `id`. Ids are handed out in increasing order and lists keep that
 * order, so a binary search finds it; a list out of order (an edited state file) is searched
 * one by one.
 */
export function findById<T extends { id: number }>(items: readonly T[], id: number): T | undefined {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = items[mid].id;
    if (at === id) return items[mid];
    if (at < id) low = mid + 1;
    else high = mid - 1;
  }
  return items.find((item) => item.id === id);
}

/** Labs of one emulator; `L` lets another emulator keep more per lab and node (the Linux one does). */
export class LabStore<L extends StoredLab = StoredLab> {
  readonly labs = new Map<string, L>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** How long the last save took, in ms. */
  private lastSaveMs = 0;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Loads the saved labs, or starts from `seed` on first run (or when the file is unreadable). */
  static open<L extends StoredLab = StoredLab>(
    dataDir: string,
    seed: () => L[],
    log: (message: string) => void,
    fileName = STATE_FILE,
  ): LabStore<L> {
    const store = new LabStore<L>(join(dataDir, fileName), log);
    const loaded = store.load();
    for (const lab of loaded ?? seed()) store.labs.set(lab.path, lab);
    if (!loaded) store.saveNow();
    return store;
  }

  private load(): L[] | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      const state = JSON.parse(readFileSync(this.file, 'utf8')) as StoredState<L>;
      if (state?.version !== 1 || !Array.isArray(state.labs)) throw new Error('unknown format');
      return state.labs;
    } catch (e) {
      const aside = `${this.file}.unreadable-${Date.now()}`;
      renameSync(this.file, aside);
      this.log(
        `The emulator's saved labs could not be read (${(e as Error).message}); moved them to ${aside} and started afresh.`,
      );
      return undefined;
    }
  }

  /** The lab at `path`; EmuError('not_found') when there is none. */
  get(path: string): L {
    const lab = this.labs.get(path);
    if (!lab) throw new EmuError('not_found', `Lab ${path} does not exist.`);
    return lab;
  }

  /** Schedules a save; several changes in a row are written once. */
  changed(): void {
    if (!this.closed)
      this.saveTimer ??= setTimeout(() => this.saveNow(), Math.max(SAVE_DELAY_MS, this.lastSaveMs * SAVE_SPACING));
  }

  /** Saves now if a change is waiting to be saved: what was changed so far survives a crash. */
  flush(): void {
    if (this.saveTimer && !this.closed) this.saveNow();
  }

  /** Saves for the last time; later changes (a write that was under way) are not saved. */
  close(): void {
    this.saveNow();
    this.closed = true;
  }

  private saveNow(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const started = performance.now();
    const state: StoredState<L> = { version: 1, labs: [...this.labs.values()] };
    writeFileAtomic(this.file, JSON.stringify(state));
    this.lastSaveMs = performance.now() - started;
  }
}

/**
 * Deletes the hidden link networks among `candidates` that lost a member (a
 * node-to-node link dies with either end) and returns their ids.
 */
export function pruneHiddenNetworks(lab: StoredLab, candidates: Iterable<number>): number[] {
  const pruned: number[] = [];
  for (const id of new Set(candidates)) {
    // 0 is "unconnected", never a network.
    const network = id === 0 ? undefined : findById(lab.networks, id);
    if (!network || network.visibility) continue;
    const members = lab.nodes.filter((n) => n.links.includes(id));
    if (members.length >= 2) continue;
    for (const member of members) member.links = member.links.map((l) => (l === id ? 0 : l));
    lab.networks = lab.networks.filter((n) => n.id !== id);
    pruned.push(id);
  }
  return pruned;
}
