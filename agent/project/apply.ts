/**
 * Carries out a to_emu diff against the emulator: stage by stage, with the
 * independent changes of a stage side by side as far as the emulator allows
 * (EmulatorClient.maxConcurrentWrites). Stops between calls when the agent
 * shuts down (the apply journal then marks the lab as interrupted).
 */
import { EmuError, type EmulatorClient, type EmuNodeSpec } from '../emulator/backend';
import { runBounded } from './bounded';
import type { Change } from './diff';
import type { ObservedTopology } from './observed';
import { sharedNodeFields, type Endpoint, type TopoNode, type Topology } from './topology';

/** Where nodes without a position go: a grid, in creation order. */
function gridPosition(ordinal: number): { left: number; top: number } {
  return { left: 100 + (ordinal % 8) * 150, top: 100 + Math.floor(ordinal / 8) * 150 };
}

export function nodeSpec(node: TopoNode, ordinal: number): EmuNodeSpec {
  const position = node.position ? { left: node.position.x, top: node.position.y } : gridPosition(ordinal);
  return {
    name: node.name,
    ...sharedNodeFields(node),
    console: node.console as EmuNodeSpec['console'],
    ...(node.config !== undefined ? { config: node.config } : {}),
    ...position,
  };
}

/** Ignores "already gone": deleting what a previous step removed with it is fine. */
async function unlessGone(call: Promise<void>): Promise<void> {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
  }
}

/**
 * Which changes may run side by side: each stage starts when the one before has
 * finished. Deletes come first (links, then nodes, then networks, so a name
 * freed by a delete is free before a create takes it), then the lab, then
 * networks and nodes together, and links last, once both their ends exist.
 */
function stageOf(change: Change): number {
  if (change.op === 'delete') return { link: 0, node: 1, network: 2, lab: 2 }[change.kind];
  return { lab: 3, network: 4, node: 4, link: 5 }[change.kind];
}

type Task = () => Promise<void>;

/** What the tasks of one apply share: the emulator, the ids known so far, and the grid places handed out. */
class ApplyRun {
  private readonly nodeIds = new Map<string, number>();
  private readonly networkIds: Map<string, number>;
  private createdNodes: number;
  private createdNetworks = 0;

  constructor(
    private readonly client: EmulatorClient,
    private readonly lab: string,
    private readonly desired: Topology,
    private readonly observed: ObservedTopology | undefined,
    private readonly signal: AbortSignal,
  ) {
    for (const [name, node] of observed?.liveNodes ?? []) this.nodeIds.set(name, node.id);
    this.networkIds = new Map(observed?.networkIds ?? []);
    this.createdNodes = observed?.liveNodes.size ?? 0;
  }

  /** One change as a task; grid places are handed out in the diff's order, so they do not depend on timing. */
  taskOf(change: Change): Task {
    switch (change.kind) {
      case 'lab':
        return this.labTask(change.op);
      case 'network':
        return this.networkTask(change);
      case 'node':
        return this.nodeTask(change);
      case 'link':
        return this.linkTask(change);
    }
  }

  private nodeId(name: string): number {
    const id = this.nodeIds.get(name);
    if (id === undefined) throw new Error(`apply: node ${name} has no emulator id`);
    return id;
  }

  private networkId(name: string): number {
    const id = this.networkIds.get(name);
    if (id === undefined) throw new Error(`apply: network ${name} has no emulator id`);
    return id;
  }

  private async attach(end: Endpoint, network: number): Promise<void> {
    if ('node' in end) await this.client.connectInterface(this.lab, this.nodeId(end.node), end.index, network);
  }

  private labTask(op: Change['op']): Task {
    const { client, lab } = this;
    const meta = { name: this.desired.name, description: this.desired.description ?? '' };
    return () => (op === 'create' ? client.createLab(lab, meta) : client.editLab(lab, meta));
  }

  private networkTask(change: Extract<Change, { kind: 'network' }>): Task {
    const { client, lab } = this;
    if (change.op === 'delete')
      return async () => {
        await unlessGone(client.deleteNetwork(lab, this.networkId(change.name)));
        this.networkIds.delete(change.name);
      };
    if (change.op === 'create') {
      const place = gridPosition(this.networkIds.size + this.createdNetworks++);
      return async () => {
        const network = await client.addNetwork(lab, {
          name: change.name,
          type: change.after.type,
          visibility: true,
          ...place,
        });
        this.networkIds.set(change.name, network.id);
      };
    }
    return () => client.editNetwork(lab, this.networkId(change.name), { type: change.after.type });
  }

  private nodeTask(change: Extract<Change, { kind: 'node' }>): Task {
    const { client, lab } = this;
    if (change.op === 'delete')
      return async () => {
        const id = this.nodeId(change.name);
        await client.stopNode(lab, id, 1);
        this.signal.throwIfAborted();
        await unlessGone(client.deleteNode(lab, id));
        this.nodeIds.delete(change.name);
      };
    if (change.op === 'create') {
      const spec = nodeSpec(change.after, this.createdNodes++);
      return async () => {
        const node = await client.addNode(lab, spec);
        this.nodeIds.set(change.name, node.id);
      };
    }
    return () => {
      const spec = nodeSpec(change.after, 0);
      const edits: Partial<EmuNodeSpec> = {};
      for (const field of change.fields) {
        if (field === 'position') Object.assign(edits, { left: spec.left, top: spec.top });
        else Object.assign(edits, { [field]: spec[field as keyof EmuNodeSpec] });
      }
      return client.editNode(lab, this.nodeId(change.name), edits);
    };
  }

  private linkTask(change: Extract<Change, { kind: 'link' }>): Task {
    const { client, lab, signal } = this;
    const { a, b } = change.link;
    if (change.op === 'delete')
      return async () => {
        const hidden = this.observed?.hiddenNetworkOf.get(change.name);
        if (hidden !== undefined) await unlessGone(client.deleteNetwork(lab, hidden));
        else {
          const end = 'node' in a ? a : b;
          if ('node' in end && this.nodeIds.has(end.node))
            await unlessGone(client.connectInterface(lab, this.nodeId(end.node), end.index, 0));
        }
      };
    if ('node' in a && 'node' in b)
      // A node-to-node link is a hidden bridge with the two interfaces on it, as EVE-NG draws it.
      return async () => {
        const bridge = await client.addNetwork(lab, {
          name: `${a.node}-${b.node}`,
          type: 'bridge',
          visibility: false,
          left: 0,
          top: 0,
        });
        signal.throwIfAborted();
        await this.attach(a, bridge.id);
        signal.throwIfAborted();
        await this.attach(b, bridge.id);
      };
    const [end, net] = 'network' in a ? [b, a] : [a, b];
    return async () => {
      if ('network' in net) await this.attach(end, this.networkId(net.network));
    };
  }
}

/** Consecutive changes of one stage, in order; the diff already lists the stages in order. */
function* stages(changes: Change[]): Generator<Change[]> {
  for (let start = 0; start < changes.length;) {
    const stage = stageOf(changes[start]);
    let end = start;
    while (end < changes.length && stageOf(changes[end]) === stage) end++;
    yield changes.slice(start, end);
    start = end;
  }
}

export async function applyChanges(input: {
  client: EmulatorClient;
  lab: string;
  changes: Change[];
  desired: Topology;
  observed: ObservedTopology | undefined;
  signal: AbortSignal;
}): Promise<void> {
  const { client, signal } = input;
  const run = new ApplyRun(client, input.lab, input.desired, input.observed, signal);
  const limit = client.maxConcurrentWrites ?? 1;
  for (const stage of stages(input.changes)) {
    signal.throwIfAborted();
    // Tasks are made when their stage starts: grid places count what the stages before left.
    await runBounded(
      stage.map((change) => run.taskOf(change)),
      limit,
      signal,
    );
  }
}
