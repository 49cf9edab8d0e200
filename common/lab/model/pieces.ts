/**
 * The pieces of one version of a document (see document.ts), in document
 * order. An edit re-reads a few pieces and moves every piece after them; a
 * moved piece is not copied: the list keeps each piece as read and, beside it,
 * how far it has moved since (characters, and link indexes). A version
 * therefore costs a copy of three flat arrays, not an object per piece after
 * the edit: at 10,000 nodes those objects and the garbage they left were most
 * of a keystroke's cost.
 */
import type { Piece } from './document';

export class PieceList {
  private constructor(
    /** The pieces as read, or as last made anew. */
    private readonly raw: readonly Piece[],
    /** Characters each piece moved since `raw` (add to start, end and delta); undefined: none did. */
    private readonly moved: Int32Array | undefined,
    /** Link indexes each piece moved since `raw` (add to linkShift); undefined: none did. */
    private readonly renumbered: Int32Array | undefined,
  ) {}

  static of(pieces: readonly Piece[]): PieceList {
    return new PieceList(pieces, undefined, undefined);
  }

  get length(): number {
    return this.raw.length;
  }

  /** Piece `index` where it is now (a copy when it moved). */
  at(index: number): Piece {
    const piece = this.raw[index];
    const moved = this.moved?.[index] ?? 0;
    const renumbered = this.renumbered?.[index] ?? 0;
    if (moved === 0 && renumbered === 0) return piece;
    return {
      ...piece,
      start: piece.start + moved,
      end: piece.end + moved,
      delta: piece.delta + moved,
      linkShift: piece.linkShift + renumbered,
    };
  }

  /** Where piece `index` starts now. */
  startAt(index: number): number {
    return this.raw[index].start + (this.moved?.[index] ?? 0);
  }

  /** Piece `index` as read: add deltaAt(index) to its ranges instead of its own delta, linkShiftAt(index) to its link indexes. */
  asRead(index: number): Piece {
    return this.raw[index];
  }

  deltaAt(index: number): number {
    return this.raw[index].delta + (this.moved?.[index] ?? 0);
  }

  linkShiftAt(index: number): number {
    return this.raw[index].linkShift + (this.renumbered?.[index] ?? 0);
  }

  /** The pieces [from, to) where they are now. */
  slice(from = 0, to = this.raw.length): Piece[] {
    const out: Piece[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.raw.length); i++) out.push(this.at(i));
    return out;
  }

  /** Every piece where it is now (for tests and rare questions: it copies each moved piece). */
  [Symbol.iterator](): Iterator<Piece> {
    return this.slice()[Symbol.iterator]();
  }

  /** The index of the last piece starting at or before `offset`, -1 when none does (a binary search). */
  lastStartingAtOrBefore(offset: number): number {
    let low = 0;
    let high = this.raw.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.startAt(middle) <= offset) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  /** This list with piece `index` replaced by `piece` (where it is now). */
  with(index: number, piece: Piece): PieceList {
    return this.splice(index, index + 1, [piece], { delta: 0 });
  }

  /**
   * This list with pieces [from, to) replaced by `added` (where they are now)
   * and the pieces after them moved by `delta` characters; those of them
   * before index `renumberTo` (in this list) renumbered by `renumber` link
   * indexes; their section indexes moved by `sections` (sections were added
   * or removed before them: rare, and those pieces are then copied).
   */
  splice(
    from: number,
    to: number,
    added: readonly Piece[],
    shift: { delta: number; renumber?: number; renumberTo?: number; sections?: number },
  ): PieceList {
    const { delta, renumber = 0, renumberTo = this.raw.length, sections = 0 } = shift;
    if (sections !== 0) {
      const rest = this.slice(to).map((piece, i) => ({
        ...piece,
        section: piece.section + sections,
        start: piece.start + delta,
        end: piece.end + delta,
        delta: piece.delta + delta,
        linkShift: piece.linkShift + (to + i < renumberTo ? renumber : 0),
      }));
      return this.splice(from, this.raw.length, [...added, ...rest], { delta: 0 });
    }
    const length = this.raw.length - (to - from) + added.length;
    const raw = this.raw.slice(0, from).concat(added, this.raw.slice(to));
    const after = from + added.length;
    let moved: Int32Array | undefined;
    if (this.moved || delta !== 0) {
      moved = spliced(this.moved, length, from, to, added.length);
      if (delta !== 0) for (let i = after; i < length; i++) moved[i] += delta;
    }
    let renumbered: Int32Array | undefined;
    if (this.renumbered || renumber !== 0) {
      renumbered = spliced(this.renumbered, length, from, to, added.length);
      const end = renumberTo - to + after;
      if (renumber !== 0) for (let i = after; i < end; i++) renumbered[i] += renumber;
    }
    return new PieceList(raw, moved, renumbered);
  }
}

/** `shifts` (or zeros) with [from, to) replaced by `count` zeros, as an array of `length`. */
function spliced(shifts: Int32Array | undefined, length: number, from: number, to: number, count: number): Int32Array {
  const out = new Int32Array(length);
  if (shifts) {
    out.set(shifts.subarray(0, from));
    out.set(shifts.subarray(to), from + count);
  }
  return out;
}
