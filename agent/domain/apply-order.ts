/**
 * The order of an apply (decisions §4 "Applies"): stages that run one after
 * the other, each a set of changes that may run side by side. What only adds
 * comes first, then the deletes, then what the deletes made way for, so a
 * failure part-way leaves each object as it was or as the document says.
 */
import type { Change } from './diff';
import { interfaceKeys } from './topology';

/** The stages, in order: what adds, the deletes, what the deletes made way for. */
const STAGES = [
  'lab',
  'objects',
  'links',
  'link deletes',
  'node deletes',
  'network deletes',
  'late nodes',
  'late links',
] as const;
type Stage = (typeof STAGES)[number];

/**
 * The stage of each change. A node create waits for the deletes when it replaces a node of the
 * same name; a node edit that lowers `ethernet` waits for the links on the dropped interfaces to
 * go; a link waits when its node waits or one of its interfaces is freed by a link delete.
 */
function stagesOf(changes: readonly Change[]): Map<Change, Stage> {
  const deletedNodes = new Set(changes.filter((c) => c.kind === 'node' && c.op === 'delete').map((c) => c.name));
  const freed = new Set(
    changes
      .filter((c) => c.kind === 'link' && c.op === 'delete')
      .flatMap((c) => ('link' in c ? interfaceKeys(c.link) : [])),
  );
  const lateNodes = new Set<string>();
  const stage = new Map<Change, Stage>();
  for (const change of changes) {
    if (change.op === 'delete') stage.set(change, `${change.kind} deletes`);
    else if (change.kind === 'lab') stage.set(change, 'lab');
    else if (change.kind === 'network') stage.set(change, 'objects');
    else if (change.kind === 'node') {
      const late =
        change.op === 'create'
          ? deletedNodes.has(change.name)
          : change.fields.includes('ethernet') && change.after.ethernet < change.before.ethernet;
      if (late) lateNodes.add(change.name);
      stage.set(change, late ? 'late nodes' : 'objects');
    }
  }
  for (const change of changes) {
    if (change.kind !== 'link' || change.op === 'delete') continue;
    const { a, b } = change.link;
    const late =
      [a, b].some((e) => 'node' in e && lateNodes.has(e.node)) || interfaceKeys(change.link).some((k) => freed.has(k));
    stage.set(change, late ? 'late links' : 'links');
  }
  return stage;
}

/** The changes in the order they are applied, stage by stage (the plan's `operations`). */
export function applyOrder(changes: readonly Change[]): Change[][] {
  const stage = stagesOf(changes);
  return STAGES.map((name) => changes.filter((c) => stage.get(c) === name)).filter((list) => list.length > 0);
}
