/**
 * A piece's outline read from its own slice of text. A piece read where no
 * syntax error was keeps only the head of its outline (its key and ranges,
 * which the layout and the lookups by name need) and drops its value: in a
 * 10,000-node lab the values were 26 of the model's 57 MB, and what asks for
 * them (where the cursor is, where a path is) asks about a piece or two at a
 * time. Such a piece reads alone as it read in its context (a block entry with
 * a plain key, no errors around it: see layout.ts), so reading its slice
 * again gives back exactly the outline it dropped.
 */
import type { Piece, PieceKind } from '../model/pieces';
import type { SyntaxError } from '../model/types';
import type { TextLike } from '../../text-lines';
import { buildOutline, type OutlineEntry, type OutlineHead, type OutlineItem } from './outline';
import { readPlainPiece } from './plain-outline';
import { ownCopy, parseYaml, syntaxErrorsOf } from './yaml-text';

/** A piece's whole outline and what to add to its ranges to place them in the text. */
export interface PlacedOutline {
  outline: OutlineEntry | OutlineItem;
  delta: number;
}

/** The outline of a piece where it is now (PieceList.at): the one it kept, or its slice of `text` read again. */
export function pieceOutline(piece: Piece, text: TextLike): PlacedOutline {
  if (piece.valueKept) return { outline: piece.outline, delta: piece.delta };
  const slice = ownCopy(text.slice(piece.start, piece.end));
  // The plain reader first: the `yaml` package costs about a quarter of a millisecond even for a few lines.
  const read = readPlainPiece(slice, piece.kind === 'link') ?? readByYaml(slice, piece.kind);
  const head = piece.outline;
  const placed =
    read !== undefined &&
    'key' in read === 'key' in head &&
    (!('key' in read) || read.key === (head as OutlineEntry).key) &&
    read.range.start + piece.start === head.range.start + piece.delta &&
    read.range.end + piece.start === head.range.end + piece.delta;
  // Never expected: the head alone then answers as a piece with an empty value would, rather than with a wrong place.
  return placed ? { outline: read, delta: piece.start } : { outline: head, delta: piece.delta };
}

function readByYaml(slice: string, kind: PieceKind): OutlineEntry | OutlineItem | undefined {
  const read = readPieceText(slice, kind, 0);
  return read && read.setAside.length === 0 ? read.outline : undefined;
}

/**
 * The text of one piece of `kind` read alone by the `yaml` package, its
 * offsets starting at `base`: its outline (a list item for a link, else a map
 * entry) and the lines set aside in it. Undefined when it does not read as one
 * such piece: more or fewer than one, a flow collection, an alias, a syntax
 * error that is not a line set aside.
 */
export function readPieceText(
  slice: string,
  kind: PieceKind,
  base: number,
): { outline: OutlineEntry | OutlineItem; setAside: SyntaxError[] } | undefined {
  const doc = parseYaml(slice);
  const setAside = syntaxErrorsOf(doc, slice.length, base);
  if (setAside.some((e) => e.code === undefined)) return undefined;
  const build = { src: slice, base, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias) return undefined;
  if (kind === 'link') {
    if (root?.kind !== 'seq' || root.flow || root.items.length !== 1) return undefined;
    return { outline: root.items[0], setAside };
  }
  if (root?.kind !== 'map' || root.flow || root.entries.length !== 1) return undefined;
  return { outline: root.entries[0], setAside };
}

/** What a piece keeps of `outline` when it does not keep its value. */
export function headOf(outline: OutlineEntry | OutlineItem): OutlineHead {
  if (!('key' in outline)) return { range: outline.range };
  const { key, keyRange, oddKey, explicit, range } = outline;
  return { key, keyRange, oddKey, explicit, range };
}
