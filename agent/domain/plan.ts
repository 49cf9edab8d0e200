/**
 * A plan: the changes of a diff as the contract's PlanData (decisions §4),
 * with what blocks them, a readable text and a plan identity that goes stale
 * when the document, the live lab or the direction changes.
 */
import { createHash } from 'node:crypto';
import type { Direction, PlanAction, PlanData, PlanSummary } from '../../common/api/contract';
import { applyOrder } from './apply-order';
import type { Catalogue } from './catalogue';
import type { Change, Diff } from './diff';
import { endpointText, type TopoNode, type Topology } from './topology';

export interface LabLockState {
  /** The emulator's own lock. */
  emulatorLock: boolean;
  /** An earlier apply did not finish. */
  midApply: boolean;
}

export interface ProjectPlan extends PlanData {
  lab: string;
  summary: PlanSummary;
  direction: Direction;
  plan_identity: string;
  applicable: boolean;
  blocked: PlanAction[];
}

export function toPlanAction(change: Change): PlanAction {
  const action: PlanAction = { op: change.op, kind: change.kind, name: change.name };
  if (change.fields.length) action.fields = [...change.fields];
  if ('reason' in change && change.reason) action.reason = change.reason;
  return action;
}

/** Why the emulator would refuse a change, if it would. */
export function blockReason(change: Change, catalogue: Catalogue): string | undefined {
  if (
    change.kind === 'node' &&
    (change.op === 'create' || (change.op === 'update' && change.fields.includes('image')))
  ) {
    const node = change.after;
    const template = catalogue.templates.get(node.template);
    if (!template) return `template ${node.template} does not exist on the emulator`;
    if (!template.provisioned) return `template ${template.id} is not provisioned on the emulator (no images uploaded)`;
    const image = template.images.find((i) => i.id === node.image);
    if (template.images.length && !image) return `image ${node.image} does not exist for template ${template.id}`;
    if (image && !image.available) return `image ${image.id} is not available on the emulator`;
  }
  if (change.kind === 'network' && change.op !== 'delete') {
    const type = catalogue.networkTypes.get(change.after.type);
    if (!type?.supported) return `network type ${change.after.type} is not supported by the emulator`;
  }
  return undefined;
}

/** The changes the emulator would refuse, each with its reason. */
export function blockedChanges(changes: readonly Change[], catalogue: Catalogue): PlanAction[] {
  const blocked: PlanAction[] = [];
  for (const change of changes) {
    const reason = blockReason(change, catalogue);
    if (reason) blocked.push({ ...toPlanAction(change), reason });
  }
  return blocked;
}

export function summarise(diff: Diff): PlanSummary {
  const summary = { create: 0, update: 0, delete: 0, unchanged: diff.unchanged };
  for (const change of diff.changes) summary[change.op]++;
  return summary;
}

/** Canonical JSON: object keys sorted, so equal content digests equally. */
function canonical(value: unknown): string {
  if (value instanceof Map) return canonical([...value.values()]);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function topologyDigestInput(t: Topology | undefined): unknown {
  if (!t) return null;
  const sorted = <T extends { name: string }>(m: Map<string, T>) =>
    [...m.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    name: t.name,
    description: t.description ?? '',
    nodes: sorted(t.nodes),
    networks: sorted(t.networks),
    links: sorted(t.links).map((l) => l.name),
  };
}

/**
 * A digest of the direction, the lab path, the normalised desired document and
 * the observed lab (emulator-facts "Stale-plan protection"). A plan made
 * against an absent lab digests `null` for it, so it holds only while the lab is absent.
 */
export function planIdentity(input: {
  direction: Direction;
  lab: string;
  prune: boolean;
  desired: Topology;
  observed: Topology | undefined;
  lock: LabLockState;
}): string {
  const digest = createHash('sha256')
    .update(
      canonical({
        v: 1,
        direction: input.direction,
        lab: input.lab,
        // prune changes what a to_emu plan does; from_emu ignores it.
        prune: input.direction === 'to_emu' ? input.prune : false,
        desired: topologyDigestInput(input.desired),
        observed: topologyDigestInput(input.observed),
        lock: input.lock,
      }),
    )
    .digest('hex');
  return `${input.direction}:${digest}`;
}

export function buildPlan(input: {
  lab: string;
  direction: Direction;
  prune: boolean;
  desired: Topology;
  observed: Topology | undefined;
  diff: Diff;
  catalogue: Catalogue;
  lock: LabLockState;
  unsupported: string[];
}): ProjectPlan {
  const { diff, lock } = input;
  const actions = applyOrder(diff.changes).flat().map(toPlanAction);
  const blocked = input.direction === 'to_emu' ? blockedChanges(diff.changes, input.catalogue) : [];
  // An interrupted apply refuses a pull (it would drop what was not applied yet); a push finishes it.
  const locked = lock.emulatorLock || (lock.midApply && input.direction === 'from_emu');
  const kindOrder = { lab: 0, network: 1, node: 2, link: 3 } as const;
  const opOrder = { create: 0, update: 1, delete: 2 } as const;
  const listed = [...diff.changes]
    .sort(
      (a, b) =>
        kindOrder[a.kind] - kindOrder[b.kind] ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
        opOrder[a.op] - opOrder[b.op],
    )
    .map(toPlanAction);
  const summary = summarise(diff);
  const plan: ProjectPlan = {
    lab: input.lab,
    exists: input.observed !== undefined,
    direction: input.direction,
    summary,
    actions: listed,
    operations: actions,
    blocked,
    applicable: !locked && blocked.length === 0 && (input.direction === 'to_emu' || input.observed !== undefined),
    locked,
    lock: lock.emulatorLock ? 1 : 0,
    unsupported: input.unsupported,
    plan_identity: planIdentity(input),
    text: '',
  };
  plan.text = planText(plan, input);
  return plan;
}

const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

function describeNode(node: TopoNode): string {
  const parts = [`template ${node.template}`];
  if (node.image) parts.push(`image ${node.image}`);
  parts.push(`cpu ${node.cpu}`, `ram ${node.ram}`, `ethernet ${node.ethernet}`);
  return ` (${parts.join(', ')})`;
}

function formatValue(value: TopoNode[keyof TopoNode]): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'object') return `{x: ${value.x}, y: ${value.y}}`;
  if (typeof value === 'string' && value.includes('\n')) return `(${value.split('\n').length} lines)`;
  return String(value);
}

function planText(plan: ProjectPlan, input: { direction: Direction; diff: Diff; lock: LabLockState }): string {
  const target = input.direction === 'to_emu' ? 'emulator lab' : 'document';
  const lines = [
    `${input.direction === 'to_emu' ? 'Plan: document -> emulator' : 'Plan: emulator -> document'} (${plan.lab}${plan.exists ? '' : ', not deployed yet'})`,
    '',
  ];
  if (input.lock.emulatorLock)
    lines.push('! The lab is locked in the emulator: nothing can be applied until its owner unlocks it.', '');
  if (input.lock.midApply)
    lines.push(
      input.direction === 'to_emu'
        ? '! An earlier apply was interrupted: applying this plan finishes it (the plan compares the document with what the emulator has now).'
        : '! An earlier apply was interrupted: push the document first to finish it; pulling now would drop from the document what was not applied yet.',
      '',
    );
  const blocked = new Map(plan.blocked.map((b) => [`${b.kind}:${b.op}:${b.name}`, b.reason]));
  for (const change of input.diff.changes) {
    let line = `  ${SYMBOL[change.op]} ${change.kind} ${change.name}`;
    if (change.kind === 'node' && change.op === 'create') line += describeNode(change.after);
    if (change.kind === 'network' && change.op !== 'delete') line += ` (type ${change.after.type})`;
    if (change.kind === 'node' && change.op === 'update') {
      const { before, after } = change;
      line += `: ${change.fields.map((f) => `${f} ${formatValue(before[f as keyof TopoNode])} -> ${formatValue(after[f as keyof TopoNode])}`).join(', ')}`;
    }
    if ('reason' in change && change.reason) line += `  # ${change.reason}`;
    lines.push(line);
    const why = blocked.get(`${change.kind}:${change.op}:${change.name}`);
    if (why) lines.push(`      ! blocked: ${why}`);
  }
  if (!input.diff.changes.length) lines.push(`  No changes: the ${target} is up to date.`);
  for (const link of input.diff.kept)
    lines.push(
      `  = link ${endpointText(link.a)} -- ${endpointText(link.b)}  # not in the document; kept (use prune to delete)`,
    );
  const s = plan.summary;
  lines.push('', `${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged.`);
  if (plan.blocked.length)
    lines.push(
      `${plan.blocked.length} change${plan.blocked.length === 1 ? ' is' : 's are'} blocked: the plan cannot be applied as it is.`,
    );
  return lines.join('\n') + '\n';
}
