/**
 * The parsed document: the model assembled from pieces. A piece is one
 * top-level entry, or one node, network or link when its section is a block
 * collection. Pieces are what the incremental reparse re-reads and moves;
 * what counts and the lists of elements are assembled from them when first
 * read, so a full parse and an incremental update share this one code path
 * and cannot drift apart, and a version nobody reads in full costs nothing.
 */
import {
  listIndex,
  pathAtEntry,
  pathAtItem,
  rangeOfPathIn,
  shiftRange,
  type OutlineEntry,
  type OutlineItem,
  type OutlineValue,
} from '../parse/outline';
import { mapAsRead } from './lookup';
import type { Fragment } from '../parse/read';
import { shiftElement, shiftFragment, shiftIssues } from '../parse/shift';
import type { PieceList } from './pieces';
import type {
  ElementKind,
  ElementOf,
  FormatIssue,
  LabDocument,
  LabLink,
  LabNetwork,
  LabNode,
  LabTest,
  Located,
  NodeFields,
  PathAt,
  Range,
  SyntaxError,
} from './types';

export type PieceKind = 'section' | 'node' | 'network' | 'link';

export interface Piece {
  kind: PieceKind;
  /** Index in Layout.sections of the top-level entry the piece belongs to (or is). */
  section: number;
  /** The text it was read from: from the start of its first line up to the next piece's first line. */
  start: number;
  end: number;
  /** Spaces before its key or `-` on its first line. */
  indent: number;
  /** Whether this piece can be re-read from its slice of text alone. */
  sliceable: boolean;
  /** The outline as read; add `delta` to its ranges. Sections, nodes and networks have an entry, links an item. */
  outline: OutlineEntry | OutlineItem;
  delta: number;
  /**
   * The model it contributes as read: add `delta` to its ranges and `linkShift`
   * to its link indexes (links added or removed before it since). Moving a
   * piece therefore copies nothing of it.
   */
  fragment: Fragment;
  linkShift: number;
}

export interface Section {
  key: string;
  keyRange: Range;
  /** The section runs from the start of its key's line to the next section's start. */
  start: number;
  /** Its pieces are Layout.pieces[firstPiece, firstPiece + pieceCount). */
  firstPiece: number;
  pieceCount: number;
  /** Set when the section's value is split into one piece per node or network ('map') or per link ('seq'). */
  itemized?: 'map' | 'seq';
  /** Whether its pieces can be re-read alone (its key starts a line and is a plain scalar). */
  sliceable: boolean;
}

export interface Layout {
  /** Whether pieces may be re-read on their own at all (a block map at the root, no aliases, a plain prefix). */
  sliceable: boolean;
  sections: Section[];
  pieces: PieceList;
  /** The root when it is not a map; then there are no sections. */
  root?: OutlineValue;
  rootIssues: FormatIssue[];
  syntaxErrors: SyntaxError[];
  /**
   * Where syntax errors may have made pieces read differently from how they
   * would read in a clean context (see unsettled.ts): absent for a document
   * without errors, else sorted disjoint regions that hold every error. Pieces
   * outside them read as they would anywhere.
   */
  unsettled?: Range[];
}

type Elements = Pick<LabDocument, 'nodes' | 'networks' | 'links'>;

export class ParsedLab implements LabDocument {
  readonly syntaxErrors: SyntaxError[];
  /** What counts and the issues, worked out when first read: an edit that nobody reads the model of costs nothing here. */
  private censusMemo?: Census;
  private elementsMemo?: Elements;
  /** The previous version's census and the one piece an edit re-read, until this version's census is worked out. */
  private censusBefore?: CensusBefore;

  /**
   * `layout`: how the text splits into pieces, for the incremental reparse only.
   * `readBy`: what read this version last: a parse of the whole text, or an
   * update that re-read one piece or a window of pieces (see incremental.ts).
   */
  constructor(
    readonly text: string,
    readonly layout: Layout,
    readonly readBy: 'whole' | 'piece' | 'window' = 'whole',
    /** For an update that re-read one piece (`index`, moved by `delta`): the version it updated. */
    edited?: { previous: ParsedLab; index: number; delta: number },
  ) {
    this.syntaxErrors = layout.syntaxErrors;
    // Only the census, not the version: a chain of versions nobody read the census of would otherwise be kept.
    const census = edited?.previous.censusMemo;
    if (edited && census) {
      const { previous, index, delta } = edited;
      this.censusBefore = { census, piece: previous.layout.pieces.at(index), index, delta };
    }
  }

  get name(): Located<string> | undefined {
    return this.census.name;
  }

  get description(): Located<string> | undefined {
    return this.census.description;
  }

  get defaults(): NodeFields {
    return this.census.defaults;
  }

  get formatIssues(): FormatIssue[] {
    return this.census.issues;
  }

  get nodes(): LabNode[] {
    return this.elements.nodes;
  }

  get networks(): LabNetwork[] {
    return this.elements.networks;
  }

  get links(): LabLink[] {
    return this.elements.links;
  }

  get tests(): LabTest[] {
    return this.census.tests;
  }

  forEachAsRead<K extends ElementKind>(
    kind: K,
    visit: (element: ElementOf[K], delta: number, indexShift: number) => void,
  ): void {
    const { counts, dropped } = this.census;
    const { sections, pieces } = this.layout;
    // Indexed loops here and in censusOf, which run over every piece at every edit: for-of makes an
    // iterator result per element until V8 optimizes the loop.
    for (let s = 0; s < sections.length; s++) {
      const section = sections[s];
      if (section.key !== kind || !counts[s]) continue;
      const end = section.firstPiece + section.pieceCount;
      for (let i = section.firstPiece; i < end; i++) {
        const fragment = pieces.asRead(i).fragment;
        // Named loads: fragment[kind] is a keyed load, which V8 leaves on its slow path here.
        const elements = (
          kind === 'nodes' ? fragment.nodes : kind === 'links' ? fragment.links : fragment.networks
        ) as ElementOf[K][];
        for (let e = 0; e < elements.length; e++) {
          const element = elements[e];
          if (dropped.size === 0 || !dropped.has(element as LabNode | LabNetwork))
            visit(element, pieces.deltaAt(i), pieces.linkShiftAt(i));
        }
      }
    }
  }

  namesOf(kind: 'nodes' | 'networks'): ReadonlySet<string> {
    return this.census.names[kind];
  }

  private get census(): Census {
    if (!this.censusMemo) {
      const before = this.censusBefore;
      this.censusBefore = undefined;
      this.censusMemo = (before && censusAfterPiece(this.layout, before)) ?? censusOf(this.layout);
    }
    return this.censusMemo;
  }

  /** The lists copy every element an edit moved, and keep the copies with this version: for questions asked now and then. */
  private get elements(): Elements {
    if (this.elementsMemo) return this.elementsMemo;
    const moved = <K extends ElementKind>(kind: K): ElementOf[K][] =>
      mapAsRead(this, kind, (element, delta, indexShift) => shiftElement(kind, element, delta, indexShift));
    const elements: Elements = { nodes: moved('nodes'), networks: moved('networks'), links: moved('links') };
    this.elementsMemo = elements;
    return elements;
  }

  rangeOfPath(path: readonly (string | number)[]): Range | undefined {
    const { sections, pieces, root } = this.layout;
    if (sections.length === 0) return root ? rangeOfPathIn(root, root.range, path, 0) : undefined;
    const last = pieces.at(pieces.length - 1);
    const whole = { start: sections[0].keyRange.start, end: shiftRange(last.outline.range, last.delta).end };
    if (path.length === 0) return whole;
    const sectionIndex = sections.findIndex((s) => s.key === String(path[0]));
    if (sectionIndex < 0) return whole;
    const section = sections[sectionIndex];
    const own = pieces.slice(section.firstPiece, section.firstPiece + section.pieceCount);
    if (!section.itemized) {
      const piece = own[0];
      const entry = piece.outline as OutlineEntry;
      return rangeOfPathIn(
        entry.value,
        shiftRange(entry.value ? entry.value.range : entry.range, piece.delta),
        path.slice(1),
        piece.delta,
      );
    }
    const first = own[0];
    const final = own[own.length - 1];
    const value = {
      start: shiftRange(first.outline.range, first.delta).start,
      end: shiftRange(final.outline.range, final.delta).end,
    };
    if (path.length === 1) return value;
    const step = path[1];
    let piece: Piece | undefined;
    if (section.itemized === 'map') piece = own.find((p) => (p.outline as OutlineEntry).key === String(step));
    else {
      const index = listIndex(step);
      piece = index === undefined ? undefined : own[index];
    }
    if (!piece) return value;
    const item = piece.outline;
    return rangeOfPathIn(
      item.value,
      shiftRange(item.value ? item.value.range : item.range, piece.delta),
      path.slice(2),
      piece.delta,
    );
  }

  pathAt(offset: number): PathAt | undefined {
    const { sections, pieces, root } = this.layout;
    if (sections.length === 0) {
      return root ? pathAtItem({ range: root.range, value: root }, [], offset, 0) : undefined;
    }
    const index = pieces.lastStartingAtOrBefore(offset);
    if (index >= 0) {
      const piece = pieces.at(index);
      const section = sections[piece.section];
      const found =
        piece.kind === 'link'
          ? pathAtItem(piece.outline, [section.key, linkIndexOf(piece)], offset, piece.delta)
          : pathAtEntry(
              piece.outline as OutlineEntry,
              piece.kind === 'section' ? [] : [section.key],
              offset,
              piece.delta,
            );
      if (found) return found;
    }
    const sectionIndex = indexOfLastStartingAtOrBefore(sections, offset);
    if (sectionIndex < 0) return undefined;
    const section = sections[sectionIndex];
    if (offset >= section.keyRange.start && offset <= section.keyRange.end)
      return { path: [section.key], on: 'key', range: section.keyRange };
    return { path: [section.key], on: 'value', range: this.rangeOfPath([section.key]) ?? section.keyRange };
  }
}

/** The index of the link a piece of `links` holds. */
export function linkIndexOf(piece: Piece): number {
  return (piece.fragment.links[0]?.index ?? 0) + piece.linkShift;
}

/** Binary search over items sorted by `start`. */
export function indexOfLastStartingAtOrBefore(items: readonly { start: number }[], offset: number): number {
  let low = 0;
  let high = items.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (items[middle].start <= offset) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/**
 * What counts in a layout: the first of a repeated top-level key, the first
 * of a repeated node or network name;
 * repeats are issues. Elements are left where they are (see `dropped`).
 */
interface Census {
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

interface CensusBefore {
  census: Census;
  /** The piece as it was before the edit, and its index (the same in both versions). */
  piece: Piece;
  index: number;
  delta: number;
}

/**
 * The census after an edit that re-read one node, network or link, from the one
 * before, without going over every piece again (at 10,000 nodes that was a set
 * of 10,000 names at every keystroke): the same when the piece names what it
 * named and has no issues, before or after; the issues after it moved by the
 * edit. Undefined when that does not hold: the census is then worked out whole.
 */
function censusAfterPiece(layout: Layout, { census, piece: old, index, delta }: CensusBefore): Census | undefined {
  const piece = layout.pieces.at(index);
  if (piece.kind === 'section' || piece.kind !== old.kind || piece.section !== old.section) return undefined;
  const [was, is] = [old.fragment, piece.fragment];
  if (was.issues.length > 0 || is.issues.length > 0) return undefined;
  if (!sameNames(was.nodes, is.nodes) || !sameNames(was.networks, is.networks)) return undefined;
  if (census.dropped.size > 0 && [...was.nodes, ...was.networks].some((e) => census.dropped.has(e))) return undefined;
  if (delta === 0) return census;
  const issues = census.issues.map((issue) =>
    issue.range.start >= old.end ? { ...issue, range: shiftRange(issue.range, delta) } : issue,
  );
  const moved: Census = { ...census, issues };
  // Name, description, defaults and tests are read from the counting top-level entries (items have none): moved too.
  for (let s = 0; s < layout.sections.length; s++) {
    const section = layout.sections[s];
    if (!census.counts[s] || section.itemized) continue;
    for (let p = section.firstPiece; p < section.firstPiece + section.pieceCount; p++) {
      const { fragment, delta: pieceDelta, linkShift } = layout.pieces.at(p);
      if (!(fragment.name || fragment.description || fragment.defaults || fragment.tests)) continue;
      const current = shiftFragment(fragment, pieceDelta, linkShift);
      if (current.name) moved.name = current.name;
      if (current.description) moved.description = current.description;
      if (current.defaults) moved.defaults = current.defaults;
      if (current.tests) moved.tests = current.tests;
    }
  }
  return moved;
}

function sameNames(a: readonly (LabNode | LabNetwork)[], b: readonly (LabNode | LabNetwork)[]): boolean {
  return a.length === b.length && a.every((element, i) => element.name === b[i].name);
}

function censusOf(layout: Layout): Census {
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
  const pieces = layout.pieces;
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces.asRead(p);
    const delta = pieces.deltaAt(p);
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
      for (const issue of shiftIssues(fragment.issues, delta, pieces.linkShiftAt(p))) issues.push(issue);
    if (!sectionCounts) continue;
    if (fragment.name || fragment.description || fragment.defaults || fragment.tests) {
      const current = shiftFragment(fragment, delta, pieces.linkShiftAt(p));
      if (current.name) census.name = current.name;
      if (current.description) census.description = current.description;
      if (current.defaults) census.defaults = current.defaults;
      if (current.tests) census.tests = current.tests;
    }
    for (let i = 0; i < nodes.length; i++) dropRepeat(nodes[i], delta, 'nodes', 'node', names.nodes, census);
    for (let i = 0; i < networks.length; i++)
      dropRepeat(networks[i], delta, 'networks', 'network', names.networks, census);
  }
  return census;
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
