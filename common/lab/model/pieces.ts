/**
 * The pieces of one version of a document (see document.ts), in document
 * order. An edit re-reads a few pieces and moves every piece after them; a
 * moved piece is not copied. The list is a row of chunks of pieces as read,
 * each with how far its pieces have moved since (characters, and link
 * indexes), so a version makes anew only the chunks the edit touched and a
 * small object for each other chunk. At 10,000 nodes (30,000 pieces) a new
 * object for every piece after an edit, and the garbage they left, were most
 * of a keystroke's cost; so were flat copies of a list that long.
 */
import type { OutlineHead, OutlineValue } from '../parse/outline';
import type { Fragment } from '../parse/read';
import type { ElementKind, ElementOf, FormatIssue, Placed, Range, SyntaxError } from './types';

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
  /**
   * The outline as read; add `delta` to its ranges. Sections, nodes and
   * networks have an entry, links an item. Its value only when `valueKept`:
   * pieceOutline (parse/piece-outline.ts) gives the whole outline.
   */
  outline: OutlineHead;
  /** False for a piece read where no syntax error was: its value is read again from its text when asked for. */
  valueKept: boolean;
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

/** How the pieces after a splice move (see PieceList.splice). */
export interface PieceShift {
  delta: number;
  renumber?: number;
  renumberTo?: number;
  sections?: number;
}

/** Binary search over items in document order: the index of the first one whose `startOf` is at or after `offset` (items.length when none is). */
export function indexOfFirstStartingAtOrAfter<T>(
  items: readonly T[],
  offset: number,
  startOf: (item: T) => number,
): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (startOf(items[middle]) < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Binary search over items sorted by `start`: the index of the last one starting at or before `offset`, -1 when none does. */
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

/** Pieces a chunk holds as made; one grows to twice that before it is split. */
const CHUNK = 256;

interface Chunk {
  /** As read, or as last made anew; never empty. */
  readonly pieces: readonly Piece[];
  /** Characters its pieces moved since (add to start, end and delta). */
  readonly moved: number;
  /** Link indexes its pieces moved since (add to linkShift). */
  readonly renumbered: number;
  /** Set when each of its pieces holds one element, of this kind: its n-th piece holds its n-th element. */
  readonly oneEach?: ElementKind;
}

export class PieceList {
  /** See chunkCounts: made when first asked for. */
  private counts?: Map<ElementKind, Int32Array>;

  private constructor(
    private readonly chunks: readonly Chunk[],
    /** The index of each chunk's first piece; one more entry: the length. */
    private readonly firsts: readonly number[],
  ) {}

  static of(pieces: readonly Piece[]): PieceList {
    return PieceList.from(chunked(pieces, []));
  }

  private static from(chunks: Chunk[]): PieceList {
    const firsts = [0];
    for (const chunk of chunks) firsts.push(firsts[firsts.length - 1] + chunk.pieces.length);
    const list = new PieceList(chunks, firsts);
    // Edits that remove pieces may leave many small chunks: made anew once they are too many.
    return chunks.length > 8 + (4 * list.length) / CHUNK ? PieceList.from(chunked(list.slice(), [])) : list;
  }

  get length(): number {
    return this.firsts[this.chunks.length];
  }

  /** Piece `index` where it is now (a copy when it moved). */
  at(index: number): Piece {
    const c = this.chunkOf(index);
    const chunk = this.chunks[c];
    return placed(chunk.pieces[index - this.firsts[c]], chunk.moved, chunk.renumbered);
  }

  /** Where piece `index` starts now. */
  startAt(index: number): number {
    const c = this.chunkOf(index);
    return this.chunks[c].pieces[index - this.firsts[c]].start + this.chunks[c].moved;
  }

  /** Piece `index` as read, for what moving does not change (its kind and section); at() for the rest. */
  asRead(index: number): Piece {
    const c = this.chunkOf(index);
    return this.chunks[c].pieces[index - this.firsts[c]];
  }

  /**
   * Visits pieces [from, to) in order, each as read with the delta and link
   * shift to add to what it read (as Piece.delta and Piece.linkShift are now).
   */
  each(from: number, to: number, visit: (piece: Piece, delta: number, linkShift: number, index: number) => void): void {
    const end = Math.min(to, this.length);
    if (from >= end) return;
    for (let c = this.chunkOf(Math.max(0, from)); c < this.chunks.length && this.firsts[c] < end; c++) {
      const { pieces, moved, renumbered } = this.chunks[c];
      const first = this.firsts[c];
      const last = Math.min(pieces.length, end - first);
      for (let i = Math.max(0, from - first); i < last; i++) {
        const piece = pieces[i];
        visit(piece, piece.delta + moved, piece.linkShift + renumbered, first + i);
      }
    }
  }

  /** How many elements of `kind` pieces [from, to) hold. */
  countOf(kind: ElementKind, from: number, to: number): number {
    return this.rankAt(kind, Math.min(to, this.length)) - this.rankAt(kind, Math.max(0, Math.min(from, to)));
  }

  /**
   * The `n`-th (from 0) element of `kind` that pieces [from, to) hold, or
   * undefined past the last: found by a binary search over the chunks, without
   * visiting the pieces before it (the outline's groups of a 10,000-node lab
   * need a few hundred elements, not a walk over all of them).
   */
  elementAt<K extends ElementKind>(kind: K, from: number, to: number, n: number): Placed<K> | undefined {
    const rank = this.rankAt(kind, Math.max(0, from)) + n;
    if (n < 0 || rank >= this.rankAt(kind, Math.min(to, this.length))) return undefined;
    const before = this.chunkCounts(kind);
    // The last chunk with fewer elements before it than `rank`: it holds that element.
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (before[middle] <= rank) low = middle;
      else high = middle - 1;
    }
    const chunk = this.chunks[low];
    let left = rank - before[low];
    if (chunk.oneEach === kind) return placedElement(chunk, chunk.pieces[left], kind, 0);
    for (const piece of chunk.pieces) {
      const count = elementsOf(piece.fragment, kind).length;
      if (left < count) return placedElement(chunk, piece, kind, left);
      left -= count;
    }
    return undefined;
  }

  /** How many elements of `kind` pieces [0, index) hold. */
  private rankAt(kind: ElementKind, index: number): number {
    if (index >= this.length) return this.chunkCounts(kind)[this.chunks.length];
    const c = this.chunkOf(index);
    const chunk = this.chunks[c];
    const within = index - this.firsts[c];
    if (chunk.oneEach !== undefined) return this.chunkCounts(kind)[c] + (chunk.oneEach === kind ? within : 0);
    let count = this.chunkCounts(kind)[c];
    for (let i = 0; i < within; i++) count += elementsOf(chunk.pieces[i].fragment, kind).length;
    return count;
  }

  /** For each chunk, how many elements of `kind` the chunks before it hold; one more entry: all of them. Once a version. */
  private chunkCounts(kind: ElementKind): Int32Array {
    this.counts ??= new Map();
    let counts = this.counts.get(kind);
    if (!counts) {
      counts = new Int32Array(this.chunks.length + 1);
      for (let c = 0; c < this.chunks.length; c++) {
        const { pieces, oneEach } = this.chunks[c];
        let inChunk = oneEach === kind ? pieces.length : 0;
        if (oneEach === undefined) for (const { fragment } of pieces) inChunk += elementsOf(fragment, kind).length;
        counts[c + 1] = counts[c] + inChunk;
      }
      this.counts.set(kind, counts);
    }
    return counts;
  }

  /** The pieces [from, to) where they are now. */
  slice(from = 0, to = this.length): Piece[] {
    const out: Piece[] = [];
    this.each(from, to, (piece, delta, linkShift) => {
      out.push(
        delta === piece.delta && linkShift === piece.linkShift
          ? piece
          : placed(piece, delta - piece.delta, linkShift - piece.linkShift),
      );
    });
    return out;
  }

  /** Every piece where it is now (for tests and rare questions: it copies each moved piece). */
  [Symbol.iterator](): Iterator<Piece> {
    return this.slice()[Symbol.iterator]();
  }

  /** The index of the last piece starting at or before `offset`, -1 when none does (a binary search). */
  lastStartingAtOrBefore(offset: number): number {
    let low = 0;
    let high = this.chunks.length - 1;
    let c = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const chunk = this.chunks[middle];
      if (chunk.pieces[0].start + chunk.moved <= offset) {
        c = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (c < 0) return -1;
    const { pieces, moved } = this.chunks[c];
    return this.firsts[c] + indexOfLastStartingAtOrBefore(pieces, offset - moved);
  }

  /**
   * This list with pieces [from, to) replaced by `added` (where they are now)
   * and the pieces after them moved by `delta` characters; those of them
   * before index `renumberTo` (in this list) renumbered by `renumber` link
   * indexes; their section indexes moved by `sections` (sections were added
   * or removed before them: rare, and those pieces are then copied).
   */
  splice(from: number, to: number, added: readonly Piece[], shift: PieceShift): PieceList {
    const { delta, renumber = 0, renumberTo = this.length, sections = 0 } = shift;
    const renumberedAt = (index: number) => (index < renumberTo ? renumber : 0);
    if (sections !== 0) {
      const rest = this.slice(to).map((piece, i) => ({
        ...placed(piece, delta, renumberedAt(to + i)),
        section: piece.section + sections,
      }));
      return this.splice(from, this.length, [...added, ...rest], { delta: 0 });
    }
    // The chunks holding `from` and `to` are made anew, with what they hold besides; those before are kept, those after moved.
    const length = this.length;
    const cf = from < length ? this.chunkOf(from) : this.chunks.length;
    const ct = to < length ? this.chunkOf(to) : this.chunks.length;
    const start = this.firsts[cf];
    const end = this.firsts[Math.min(ct + 1, this.chunks.length)];
    const middle = this.slice(start, from).concat(
      added,
      this.slice(to, end).map((piece, i) => placed(piece, delta, renumberedAt(to + i))),
    );
    const chunks = chunked(middle, this.chunks.slice(0, cf));
    for (let c = ct + 1; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      const [first, last] = [this.firsts[c], this.firsts[c + 1]];
      if (renumber === 0 || first >= renumberTo || last <= renumberTo) {
        const renumbered = chunk.renumbered + renumberedAt(first);
        chunks.push(
          delta === 0 && renumbered === chunk.renumbered ? chunk : { ...chunk, moved: chunk.moved + delta, renumbered },
        );
      } else {
        // The chunk where renumbering stops (a section's end): split there.
        const cut = renumberTo - first;
        chunks.push(
          {
            ...chunk,
            pieces: chunk.pieces.slice(0, cut),
            moved: chunk.moved + delta,
            renumbered: chunk.renumbered + renumber,
          },
          { ...chunk, pieces: chunk.pieces.slice(cut), moved: chunk.moved + delta, renumbered: chunk.renumbered },
        );
      }
    }
    return PieceList.from(chunks);
  }

  /** The chunk holding piece `index` (a binary search over the chunks' first pieces). */
  private chunkOf(index: number): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.firsts[middle] <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/** `piece` moved by `moved` characters and `renumbered` link indexes (itself when by neither). */
function placed(piece: Piece, moved: number, renumbered: number): Piece {
  if (moved === 0 && renumbered === 0) return piece;
  return {
    ...piece,
    start: piece.start + moved,
    end: piece.end + moved,
    delta: piece.delta + moved,
    linkShift: piece.linkShift + renumbered,
  };
}

/** `into` with `pieces` (where they are now) appended as chunks. */
function chunked(pieces: readonly Piece[], into: Chunk[]): Chunk[] {
  if (pieces.length <= 2 * CHUNK) {
    if (pieces.length > 0) into.push(newChunk(pieces));
    return into;
  }
  for (let i = 0; i < pieces.length; i += CHUNK) {
    // The last chunk takes a short rest rather than standing alone.
    const end = pieces.length - (i + CHUNK) < CHUNK / 2 ? pieces.length : i + CHUNK;
    into.push(newChunk(pieces.slice(i, end)));
    if (end === pieces.length) break;
  }
  return into;
}

function newChunk(pieces: readonly Piece[]): Chunk {
  const kind = oneEachOf(pieces);
  return kind ? { pieces, moved: 0, renumbered: 0, oneEach: kind } : { pieces, moved: 0, renumbered: 0 };
}

/** The kind of element each of `pieces` holds one of, when each holds one and all of one kind. */
function oneEachOf(pieces: readonly Piece[]): ElementKind | undefined {
  const { nodes, networks, links } = pieces[0].fragment;
  const kind =
    nodes.length === 1 ? 'nodes' : networks.length === 1 ? 'networks' : links.length === 1 ? 'links' : undefined;
  if (kind === undefined) return undefined;
  for (const { fragment } of pieces)
    if (
      elementsOf(fragment, kind).length !== 1 ||
      fragment.nodes.length + fragment.networks.length + fragment.links.length !== 1
    )
      return undefined;
  return kind;
}

/** Element `e` of `kind` that `piece` of `chunk` holds, where it is now. */
function placedElement<K extends ElementKind>(chunk: Chunk, piece: Piece, kind: K, e: number): Placed<K> {
  return {
    element: elementsOf(piece.fragment, kind)[e],
    delta: piece.delta + chunk.moved,
    indexShift: piece.linkShift + chunk.renumbered,
  };
}

/** The nodes, networks or links a fragment holds. */
export function elementsOf<K extends ElementKind>(fragment: Fragment, kind: K): readonly ElementOf[K][] {
  // Named loads: fragment[kind] is a keyed load, which V8 leaves on its slow path.
  return (kind === 'nodes' ? fragment.nodes : kind === 'links' ? fragment.links : fragment.networks) as ElementOf[K][];
}
