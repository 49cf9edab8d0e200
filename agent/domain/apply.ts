/**
 * Carries out a to_emu diff against the emulator: stage by stage, with the
 * independent changes of a stage side by side as far as the emulator allows
 * (EmulatorClient.maxConcurrentWrites). Stops between calls when the agent
 * shuts down (the apply journal then marks the lab as interrupted).
 *
 * The stages are ordered so that a failure leaves a consistent lab (decisions
 * §4 "Applies"): first what only adds (the lab, networks, nodes, node edits,
 * links onto free interfaces), then the deletes, then what needed them (a
 * replaced node, a link onto an interface a delete freed). A link is made
 * whole or not at all. When a step fails, a replaced node whose new copy is
 * not there and the links deleted to make way that nothing took are put back,
 * and the error says what changed.
 */
import { EmuError, type EmulatorClient, type EmuNodeSpec } from '../emulator/backend';
import { runBounded } from '../bounded';
import { ApplyStopped, DomainError } from './domain-error';
import { applyOrder } from './apply-order';
import { PRUNED_REASON, type Change } from './diff';
import type { ObservedTopology } from './observed';
import { toPlanAction } from './plan';
import { interfaceKeys, sharedNodeFields, type Endpoint, type TopoNode, type Topology } from './topology';

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

  /** Adds a node and keeps its id; answers the id. */
  async addNode(spec: EmuNodeSpec): Promise<number> {
    const node = await this.client.addNode(this.lab, spec);
    this.nodeIds.set(spec.name, node.id);
    return node.id;
  }

  hasNode(name: string): boolean {
    return this.nodeIds.has(name);
  }

  /** The id the node had when the apply began. */
  liveId(name: string): number | undefined {
    return this.observed?.liveNodes.get(name)?.id;
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
        await this.addNode(spec);
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
    const { client, lab } = this;
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
    return () => this.makeLink(a, b);
  }

  /**
   * Makes a link whole or not at all. A node-to-node link is a hidden bridge with the two
   * interfaces on it, as EVE-NG draws it; when an attach fails (or the agent stops), the bridge
   * goes again, which detaches the end that was on it.
   */
  async makeLink(a: Endpoint, b: Endpoint): Promise<void> {
    const { client, lab, signal } = this;
    if ('node' in a && 'node' in b) {
      const bridge = await client.addNetwork(lab, {
        name: `${a.node}-${b.node}`,
        type: 'bridge',
        visibility: false,
        left: 0,
        top: 0,
      });
      try {
        signal.throwIfAborted();
        await this.attach(a, bridge.id);
        signal.throwIfAborted();
        await this.attach(b, bridge.id);
      } catch (e) {
        await unlessGone(client.deleteNetwork(lab, bridge.id)).catch(() => undefined);
        throw e;
      }
      return;
    }
    const [end, net] = 'network' in a ? [b, a] : [a, b];
    if ('network' in net) await this.attach(end, this.networkId(net.network));
  }

  /** Whether the node or network of an endpoint has an emulator id (a delete of this apply may have removed it). */
  has(end: Endpoint): boolean {
    return 'network' in end ? this.networkIds.has(end.network) : this.hasNode(end.node);
  }
}

/** What an apply that stopped part-way did: the changes made, the one that failed, what was put back. */
interface Outcome {
  applied: Change[];
  failed?: Change;
  restored: Change[];
  /** Said of what was put back where it differs from before (a node's new id). */
  notes: string[];
  notApplied: number;
}

/**
 * Puts back the nodes this apply deleted to replace them (a template cannot change in place) whose
 * new copy is not there: its add failed, or the apply stopped before it. The old node comes back as
 * it was read (template, image, settings, startup config, place), stopped, with an id the emulator
 * chooses: EVE-NG gives the lowest free one (this copy of 6.2: of the author's labs), which is the
 * old id unless another add took it; the notes say when it differs. Its links follow in restoreLinks.
 */
async function restoreNodes(run: ApplyRun, outcome: Outcome, changes: readonly Change[]): Promise<void> {
  const replacing = new Set(changes.filter((c) => c.kind === 'node' && c.op === 'create').map((c) => c.name));
  for (const change of outcome.applied) {
    if (change.kind !== 'node' || change.op !== 'delete' || !replacing.has(change.name)) continue;
    if (run.hasNode(change.name)) continue;
    try {
      const id = await run.addNode(nodeSpec(change.before, 0));
      outcome.restored.push(change);
      const was = run.liveId(change.name);
      if (was !== undefined && was !== id) outcome.notes.push(`node ${change.name} is back as id ${id} (was ${was})`);
    } catch {
      // Left deleted: the error reply lists the delete among the changes made.
    }
  }
}

/**
 * Puts back the links this apply deleted to make way (not the pruned ones) whose two ends are still
 * there and whose interfaces nothing took: a failed apply then leaves them as they were.
 */
async function restoreLinks(run: ApplyRun, outcome: Outcome, created: Change[]): Promise<void> {
  const taken = new Set(created.flatMap((c) => (c.kind === 'link' ? interfaceKeys(c.link) : [])));
  const deleted = new Set(
    outcome.applied
      .filter((c) => c.op === 'delete' && c.kind !== 'link' && !outcome.restored.includes(c))
      .map((c) => c.name),
  );
  const there = (end: Endpoint) => run.has(end) && !deleted.has('node' in end ? end.node : end.network);
  for (const change of outcome.applied) {
    if (change.kind !== 'link' || change.op !== 'delete' || change.reason === PRUNED_REASON) continue;
    const { a, b } = change.link;
    if (!there(a) || !there(b) || interfaceKeys(change.link).some((k) => taken.has(k))) continue;
    try {
      await run.makeLink(a, b);
      outcome.restored.push(change);
    } catch {
      // Left as it is: the error reply lists the link among the changes made.
    }
  }
}

function listed(changes: readonly Change[]): string {
  const shown = changes
    .slice(0, 10)
    .map((c) => `${{ create: '+', update: '~', delete: '-' }[c.op]} ${c.kind} ${c.name}`)
    .join(', ');
  return changes.length > 10 ? `${shown} and ${changes.length - 10} more` : shown;
}

/**
 * The error an apply that stopped part-way answers with: the emulator's (or the domain's) own as
 * its cause, plus what changed (when anything did), as progress text and as the outcome's
 * `applied`, `failed`, `restored` and `not_applied`. Bugs (plain errors) pass unchanged.
 */
function reportOutcome(error: unknown, outcome: Outcome): unknown {
  if (!(error instanceof DomainError || error instanceof EmuError)) return error;
  const applied = outcome.applied.filter((c) => !outcome.restored.includes(c));
  const parts = [
    applied.length ? `Changed before it stopped: ${listed(applied)}.` : '',
    outcome.restored.length
      ? `Put back: ${listed(outcome.restored)}${outcome.notes.length ? ` (${outcome.notes.join('; ')})` : ''}.`
      : '',
    outcome.notApplied ? `${outcome.notApplied} change(s) were not made; plan again to see what is left.` : '',
  ].filter(Boolean);
  const changes = {
    applied: applied.map(toPlanAction),
    ...(outcome.failed ? { failed: toPlanAction(outcome.failed) } : {}),
    restored: outcome.restored.map(toPlanAction),
    not_applied: outcome.notApplied,
  };
  // With nothing changed (the first write failed), the cause's message stands alone.
  if (!applied.length && !outcome.restored.length) return new ApplyStopped(error, '', changes);
  const failedAt = outcome.failed ? ` (${outcome.failed.op} ${outcome.failed.kind} ${outcome.failed.name})` : '';
  return new ApplyStopped(error, `${failedAt} ${parts.join(' ')}`, changes);
}

export async function applyChanges(input: {
  client: EmulatorClient;
  lab: string;
  changes: Change[];
  desired: Topology;
  observed: ObservedTopology | undefined;
  signal: AbortSignal;
  /** Called as steps finish: how many of how many (the apply journal keeps the count). */
  progress?: (done: number, steps: number) => void;
}): Promise<void> {
  const { client, signal } = input;
  const run = new ApplyRun(client, input.lab, input.desired, input.observed, signal);
  const limit = client.maxConcurrentWrites ?? 1;
  const outcome: Outcome = { applied: [], restored: [], notes: [], notApplied: 0 };
  const steps = input.changes.length;
  try {
    for (const stage of applyOrder(input.changes)) {
      signal.throwIfAborted();
      // Tasks are made when their stage starts: grid places count what the stages before left.
      const tasks = stage.map((change) => {
        const task = run.taskOf(change);
        return async () => {
          try {
            await task();
          } catch (e) {
            outcome.failed ??= change;
            throw e;
          }
          outcome.applied.push(change);
          input.progress?.(outcome.applied.length, steps);
        };
      });
      await runBounded(tasks, limit, signal);
    }
  } catch (e) {
    outcome.notApplied = steps - outcome.applied.length;
    const created = outcome.applied.filter((c) => c.op === 'create');
    if (!signal.aborted) {
      await restoreNodes(run, outcome, input.changes);
      await restoreLinks(run, outcome, created);
    }
    throw reportOutcome(e, outcome);
  }
}
