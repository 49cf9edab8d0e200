/**
 * What counts in a layout (see document.ts): the first of a repeated top-level
 * key, the first of a repeated node or network name; repeats are issues.
 * Worked out whole from the pieces, or, after an update that replaced a few
 * pieces, from the census of the version before: at 10,000 nodes going over
 * every piece again (a set of 10,000 names) was a third of a keystroke.
 */
import { shiftRange } from '../parse/outline';
import { shiftFragment, shiftIssues } from '../parse/shift';
import type { Fragment } from '../parse/read';
import type { Layout, Piece, Section } from './pieces';
import type { FormatIssue, LabNetwork, LabNode, LabTest, Located, NodeFields } from './types';

export interface Census {
  name?: Located<string>;
  description?: Located<string>;
  defaults: NodeFields;
  tests: LabTest[];
  /** Every format issue, with current ranges, in document order. */
  issues: FormatIssue[];
  /** Whether each section's pieces count. */
  counts: boolean[];
  /** Nodes and networks (as read) that repeat an earlier name and do not count. */
  dropped: Set<LabNode | LabNetwork>;
  names: { nodes: Set<string>; networks: Set<string> };
}

/**
 * How an update made a layout from the one before (see incremental.ts): the
 * pieces [first, first + removed.length) there gave way to [first, first +
 * added) here; those after moved by `delta` characters, and the links among
 * them before index `renumberTo` (here) by `linkDelta` indexes. The offsets
 * [start, end) are what the removed pieces spanned.
 */
export interface Splice {
  first: number;
  /** The pieces removed, where they were. */
  removed: readonly Piece[];
  added: number;
  start: number;
  end: number;
  delta: number;
  linkDelta: number;
  renumberTo: number;
  /** The sections of the layout before: an update that adds, removes or renames one is not a splice of items. */
  sections: readonly Section[];
}

/**
 * The census after `splice`, from `census` (the one before): the same names
 * and dropped elements, when the sections are the same, the items replaced
 * were of counting sections and the new pieces name what the old ones named,
 * none of them dropped; issues and what top-level entries hold moved by
 * the edit. Top-level entries that name no nodes or networks may be among the
 * pieces replaced (an edit of `name:`, or the entry a window re-reads before
 * the first node): what they hold is taken again below. Undefined when that
 * does not hold: the census is then worked out whole.
 */
export function censusAfterSplice(layout: Layout, census: Census, splice: Splice): Census | undefined {
  const { pieces, sections } = layout;
  if (!sameSections(sections, splice.sections)) return undefined;
  // A repeated top-level key's issue is the census's own, on its key: not among the pieces' issues put back below.
  const repeatedKeyInside = splice.sections.some(
    (s, i) => !census.counts[i] && s.keyRange.start >= splice.start && s.keyRange.start < splice.end,
  );
  if (repeatedKeyInside) return undefined;
  const added = pieces.slice(splice.first, splice.first + splice.added);
  const replaced = [...splice.removed, ...added];
  const items = replaced.filter((p) => p.kind !== 'section');
  if (replaced.some((p) => p.kind === 'section' && namesAny(p.fragment))) return undefined;
  // Items of two sections when a window re-read the last item of one with the first of the next (a link typed first).
  if (items.some((p) => !census.counts[p.section] || !sections[p.section].itemized)) return undefined;
  const was = splice.removed.map((p) => p.fragment);
  const is = added.map((p) => p.fragment);
  if (!sameNames(was, is, 'nodes') || !sameNames(was, is, 'networks')) return undefined;
  if (census.dropped.size > 0 && was.some((f) => [...f.nodes, ...f.networks].some((e) => census.dropped.has(e))))
    return undefined;

  // Issues in document order: those before the removed pieces, the new pieces', those after moved.
  const issues: FormatIssue[] = [];
  let i = 0;
  for (; i < census.issues.length && census.issues[i].range.start < splice.start; i++) issues.push(census.issues[i]);
  for (; i < census.issues.length && census.issues[i].range.start < splice.end; i++);
  pieces.each(splice.first, splice.first + splice.added, ({ fragment }, delta, linkShift) => {
    if (fragment.issues.length > 0)
      for (const issue of shiftIssues(fragment.issues, delta, linkShift)) issues.push(issue);
  });
  const renumberEnd =
    splice.linkDelta === 0 || splice.renumberTo >= pieces.length ? Infinity : pieces.startAt(splice.renumberTo);
  for (; i < census.issues.length; i++) {
    const issue = census.issues[i];
    const range = shiftRange(issue.range, splice.delta);
    const path = issue.path;
    const renumbered =
      range.start < renumberEnd && splice.linkDelta !== 0 && path[0] === 'links' && typeof path[1] === 'number';
    issues.push(
      renumbered
        ? { ...issue, range, path: ['links', (path[1] as number) + splice.linkDelta, ...path.slice(2)] }
        : splice.delta === 0
          ? issue
          : { ...issue, range },
    );
  }
  const moved: Census = { ...census, issues };
  // Name, description, defaults and tests are read from the counting top-level entries (items have none): moved too.
  for (let s = 0; s < sections.length; s++) {
    const top = sections[s];
    if (!census.counts[s] || top.itemized) continue;
    pieces.each(top.firstPiece, top.firstPiece + top.pieceCount, (piece, delta, linkShift) =>
      takeTopLevel(moved, piece.fragment, delta, linkShift),
    );
  }
  return moved;
}

/** Whether two lists of sections have the same keys, each split into items the same way. */
function sameSections(a: readonly Section[], b: readonly Section[]): boolean {
  return (
    a.length === b.length && a.every((section, i) => section.key === b[i].key && section.itemized === b[i].itemized)
  );
}

function namesAny(fragment: Fragment): boolean {
  return fragment.nodes.length > 0 || fragment.networks.length > 0;
}

/** Whether the fragments `a` and `b` name the same nodes (or networks) in the same order. */
function sameNames(a: readonly Fragment[], b: readonly Fragment[], kind: 'nodes' | 'networks'): boolean {
  const namesOf = (fragments: readonly Fragment[]) => fragments.flatMap((f) => f[kind].map((e) => e.name));
  const [x, y] = [namesOf(a), namesOf(b)];
  return x.length === y.length && x.every((name, i) => name === y[i]);
}

export function censusOf(layout: Layout): Census {
  const issues = [...layout.rootIssues];
  const keys = new Set<string>();
  // A section counts when it is the first with its key.
  const counts = layout.sections.map((section) => {
    if (keys.has(section.key)) return false;
    keys.add(section.key);
    return true;
  });
  const names = { nodes: new Set<string>(), networks: new Set<string>() };
  const census: Census = { defaults: {}, tests: [], issues, counts, dropped: new Set(), names };
  let sectionSeen = -1;
  layout.pieces.each(0, layout.pieces.length, (piece, delta, linkShift) => {
    const section = layout.sections[piece.section];
    const sectionCounts = counts[piece.section];
    if (piece.section !== sectionSeen) {
      sectionSeen = piece.section;
      if (!sectionCounts) {
        issues.push({
          code: 'duplicate-key',
          range: section.keyRange,
          path: [section.key],
          message: `the top-level key ${section.key} appears twice; merge the two into one (only the first one is read)`,
        });
      }
    }
    const fragment = piece.fragment;
    const { nodes, networks } = fragment;
    // A loop, not push(...spread): one piece (a one-line flow map of 300,000 nodes) may hold more issues than the stack takes.
    if (fragment.issues.length > 0)
      for (const issue of shiftIssues(fragment.issues, delta, linkShift)) issues.push(issue);
    if (!sectionCounts) return;
    takeTopLevel(census, fragment, delta, linkShift);
    // Indexed loops: for-of makes an iterator result per element until V8 optimizes the loop.
    for (let i = 0; i < nodes.length; i++) dropRepeat(nodes[i], delta, 'nodes', 'node', names.nodes, census);
    for (let i = 0; i < networks.length; i++)
      dropRepeat(networks[i], delta, 'networks', 'network', names.networks, census);
  });
  return census;
}

/** What a counting top-level entry holds (name, description, defaults, tests), moved to where it is now, into `census`. */
function takeTopLevel(census: Census, fragment: Fragment, delta: number, linkShift: number): void {
  if (!(fragment.name || fragment.description || fragment.defaults || fragment.tests)) return;
  const current = shiftFragment(fragment, delta, linkShift);
  if (current.name) census.name = current.name;
  if (current.description) census.description = current.description;
  if (current.defaults) census.defaults = current.defaults;
  if (current.tests) census.tests = current.tests;
}

/** Notes an element whose name is not new as dropped, with an issue (only the first one is read). */
function dropRepeat(
  element: LabNode | LabNetwork,
  delta: number,
  section: 'nodes' | 'networks',
  kind: string,
  seen: Set<string>,
  census: Census,
): void {
  if (!seen.has(element.name)) {
    seen.add(element.name);
    return;
  }
  census.dropped.add(element);
  census.issues.push({
    code: 'duplicate-key',
    range: shiftRange(element.nameRange, delta),
    path: [section, element.name],
    message: `${kind} ${element.name} is defined twice; rename or remove one (only the first one is read)`,
  });
}
