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
  type OutlineHead,
} from '../parse/outline';
import { pieceOutline, type PlacedOutline } from '../parse/piece-outline';
import { mapAsRead } from './lookup';
import { shiftElement } from '../parse/shift';
import { elementsOf, indexOfLastStartingAtOrBefore, type Layout, type Piece, type Section } from './pieces';
import { EditedText } from './edited-text';
import { censusAfterSplice, censusOf, type Census, type Splice } from './census';
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
  Placed,
  PlacedElements,
  Range,
  Replaced,
  SyntaxError,
} from './types';

type Elements = Pick<LabDocument, 'nodes' | 'networks' | 'links'>;

export class ParsedLab implements LabDocument {
  readonly syntaxErrors: SyntaxError[];
  /** What counts and the issues, worked out when first read: an edit that nobody reads the model of costs nothing here. */
  private censusMemo?: Census;
  private elementsMemo?: Elements;
  /** The version before and how the update made this one from it, until this version's census is worked out. */
  private spliced?: { previous: WeakRef<ParsedLab>; census: Census; splice: Splice };
  private replacedMemo?: Replaced;
  private listedMemo?: Map<ElementKind, Placed<ElementKind>[]>;
  /** Outlines of pieces that keep none, read again for questions about this version (see outlineOf). */
  private outlines?: Map<OutlineHead, PlacedOutline>;

  /**
   * `layout`: how the text splits into pieces, for the incremental reparse only.
   * `readBy`: what read this version last: a parse of the whole text, or an
   * update that re-read one piece or a window of pieces (see incremental.ts).
   */
  /** The text, kept in parts by updates (see edited-text.ts). */
  readonly source: EditedText;

  constructor(
    text: string | EditedText,
    readonly layout: Layout,
    readonly readBy: 'whole' | 'piece' | 'window' = 'whole',
    /** For an update that replaced some pieces of `previous`: how (see census.ts). */
    edited?: { previous: ParsedLab; splice: Splice },
  ) {
    this.source = typeof text === 'string' ? EditedText.of(text) : text;
    this.syntaxErrors = layout.syntaxErrors;
    // The census, not the version: a chain of versions nobody read the census of would otherwise be kept.
    const census = edited?.previous.censusMemo;
    if (edited && census) this.spliced = { previous: new WeakRef(edited.previous), census, splice: edited.splice };
  }

  /**
   * What the update that made this version replaced in the one before (see
   * LabDocument.replaced); read after the census, which tells whether it is
   * only that.
   */
  get replaced(): Replaced | undefined {
    void this.census;
    return this.replacedMemo;
  }

  /** The whole text (made when first asked for: an edit nobody reads the whole text of does not copy it). */
  get text(): string {
    return this.source.toString();
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
    const section = this.countingSection(kind);
    if (!section) return;
    const { dropped } = this.census;
    this.layout.pieces.each(
      section.firstPiece,
      section.firstPiece + section.pieceCount,
      ({ fragment }, delta, shift) => {
        const elements = elementsOf(fragment, kind);
        // An indexed loop: for-of makes an iterator result per element until V8 optimizes the loop.
        for (let e = 0; e < elements.length; e++) {
          const element = elements[e];
          if (dropped.size === 0 || !dropped.has(element as LabNode | LabNetwork)) visit(element, delta, shift);
        }
      },
    );
  }

  countAsRead(kind: ElementKind): number {
    const listed = this.withoutDropped(kind);
    if (listed) return listed.length;
    const section = this.countingSection(kind);
    return section ? this.layout.pieces.countOf(kind, section.firstPiece, section.firstPiece + section.pieceCount) : 0;
  }

  elementAsRead<K extends ElementKind>(kind: K, n: number): Placed<K> | undefined {
    const listed = this.withoutDropped(kind);
    if (listed) return listed[n];
    const section = this.countingSection(kind);
    return (
      section && this.layout.pieces.elementAt(kind, section.firstPiece, section.firstPiece + section.pieceCount, n)
    );
  }

  /** The top-level entry of `kind` that counts: the first with its key (a repeated key is an issue, its entry unread). */
  private countingSection(kind: ElementKind): Section | undefined {
    const { counts } = this.census;
    return this.layout.sections.find((section, s) => section.key === kind && counts[s]);
  }

  /**
   * The elements forEachAsRead visits, listed once per version, when some
   * nodes or networks repeat a name and do not count: the piece list counts
   * every element it holds. Undefined when none is dropped (nearly always).
   */
  private withoutDropped<K extends ElementKind>(kind: K): Placed<K>[] | undefined {
    if (this.census.dropped.size === 0 || kind === 'links') return undefined;
    this.listedMemo ??= new Map();
    let listed = this.listedMemo.get(kind) as Placed<K>[] | undefined;
    if (!listed) {
      const made: Placed<K>[] = [];
      this.forEachAsRead(kind, (element, delta, indexShift) => made.push({ element, delta, indexShift }));
      this.listedMemo.set(kind, (listed = made));
    }
    return listed;
  }

  namesOf(kind: 'nodes' | 'networks'): ReadonlySet<string> {
    return this.census.names[kind];
  }

  private get census(): Census {
    if (!this.censusMemo) {
      const spliced = this.spliced;
      this.spliced = undefined;
      const census = spliced && censusAfterSplice(this.layout, spliced.census, spliced.splice);
      if (spliced && census) this.replacedMemo = replacedBy(this.layout, spliced.previous, spliced.splice);
      this.censusMemo = census ?? censusOf(this.layout);
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
    const count = section.pieceCount;
    if (!section.itemized) {
      const { outline, delta } = this.outlineOf(pieces.at(section.firstPiece));
      return rangeOfPathIn(
        outline.value,
        shiftRange(outline.value ? outline.value.range : outline.range, delta),
        path.slice(1),
        delta,
      );
    }
    const first = pieces.at(section.firstPiece);
    const final = pieces.at(section.firstPiece + count - 1);
    const value = {
      start: shiftRange(first.outline.range, first.delta).start,
      end: shiftRange(final.outline.range, final.delta).end,
    };
    if (path.length === 1) return value;
    const step = path[1];
    let piece: Piece | undefined;
    if (section.itemized === 'map') {
      let found = -1;
      pieces.each(section.firstPiece, section.firstPiece + count, (p, _delta, _shift, index) => {
        if (found < 0 && (p.outline as OutlineEntry).key === String(step)) found = index;
      });
      piece = found < 0 ? undefined : pieces.at(found);
    } else {
      const index = listIndex(step);
      piece = index === undefined || index < 0 || index >= count ? undefined : pieces.at(section.firstPiece + index);
    }
    if (!piece) return value;
    const { outline, delta } = this.outlineOf(piece);
    return rangeOfPathIn(
      outline.value,
      shiftRange(outline.value ? outline.value.range : outline.range, delta),
      path.slice(2),
      delta,
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
      const { outline, delta } = this.outlineOf(piece);
      const found =
        piece.kind === 'link'
          ? pathAtItem(outline, [section.key, linkIndexOf(piece)], offset, delta)
          : pathAtEntry(outline as OutlineEntry, piece.kind === 'section' ? [] : [section.key], offset, delta);
      if (found) return found;
    }
    const sectionIndex = indexOfLastStartingAtOrBefore(sections, offset);
    if (sectionIndex < 0) return undefined;
    const section = sections[sectionIndex];
    if (offset >= section.keyRange.start && offset <= section.keyRange.end)
      return { path: [section.key], on: 'key', range: section.keyRange };
    return { path: [section.key], on: 'value', range: this.rangeOfPath([section.key]) ?? section.keyRange };
  }

  /**
   * The whole outline of a piece where it is now. Those read again are kept a
   * while: the agent's findings ask for a path each, often in the same nodes.
   */
  private outlineOf(piece: Piece): PlacedOutline {
    if (piece.valueKept) return pieceOutline(piece, this.source);
    this.outlines ??= new Map();
    let outline = this.outlines.get(piece.outline);
    if (!outline) {
      if (this.outlines.size >= OUTLINES_KEPT) this.outlines.clear();
      outline = pieceOutline(piece, this.source);
      this.outlines.set(piece.outline, outline);
    }
    return outline;
  }
}

/**
 * Outlines read again that a version keeps at most: each edit looks up the agent's findings in the version before
 * it, and a node's outline is a few dozen small objects (a few MB for this many).
 */
const OUTLINES_KEPT = 2048;

/** The index of the link a piece of `links` holds. */
export function linkIndexOf(piece: Piece): number {
  return (piece.fragment.links[0]?.index ?? 0) + piece.linkShift;
}

/** The elements `splice` removed and added, as LabDocument.replaced gives them. */
function replacedBy(layout: Layout, from: WeakRef<LabDocument>, splice: Splice): Replaced {
  const placed = (pieces: readonly Piece[]): PlacedElements => ({
    nodes: pieces.flatMap((p) =>
      p.fragment.nodes.map((element) => ({ element, delta: p.delta, indexShift: p.linkShift })),
    ),
    networks: pieces.flatMap((p) =>
      p.fragment.networks.map((element) => ({ element, delta: p.delta, indexShift: p.linkShift })),
    ),
    links: pieces.flatMap((p) =>
      p.fragment.links.map((element) => ({ element, delta: p.delta, indexShift: p.linkShift })),
    ),
  });
  const { pieces } = layout;
  return {
    from,
    start: splice.start,
    end: splice.end,
    delta: splice.delta,
    linkDelta: splice.linkDelta,
    renumberEnd:
      splice.linkDelta === 0 || splice.renumberTo >= pieces.length ? Infinity : pieces.startAt(splice.renumberTo),
    removed: placed(splice.removed),
    added: placed(pieces.slice(splice.first, splice.first + splice.added)),
  };
}
