/**
 * Where syntax errors may make pieces read differently from how they read in
 * a clean context (Layout.unsettled). After a full parse with errors, each
 * cluster of errors becomes one region, from the piece before its first error
 * up to the first pieces after it that read alone exactly as in the whole text
 * (which shows the parser is back in step there). Everything outside the
 * regions can then be re-read piece by piece, so one unclosed bracket at the
 * top no longer makes every keystroke below it a full parse.
 */
import type { TextLike } from '../../text-lines';
import type { Layout } from '../model/pieces';
import { itemsOf } from './layout';
import { buildOutline, sameEntry, sameItem, type OutlineEntry, type OutlineItem } from './outline';
import type { Range, SyntaxError } from '../model/types';
import { parseYaml } from './yaml-text';

/** Past this many clusters of errors, the document counts as unsettled as a whole: checking each costs more. */
const MAX_REGIONS = 64;
/** Pieces after a region that must read alone as in the whole text. */
const IN_STEP = 2;

/** The unsettled regions of a fully parsed layout, sorted and disjoint; undefined without errors. */
export function unsettledRegions(text: TextLike, layout: Layout): Range[] | undefined {
  const { pieces, syntaxErrors } = layout;
  if (syntaxErrors.length === 0) return undefined;
  const whole = [{ start: 0, end: Infinity }];
  if (!layout.sliceable || pieces.length === 0) return whole;
  return regionsOf(text, layout, syntaxErrors) ?? whole;
}

/**
 * The regions around some of a layout's errors (sorted), as above; a region
 * that grows to piece `limit` ends at `limitOffset` instead. Undefined when
 * there are too many clusters to check.
 */
export function regionsOf(
  text: TextLike,
  layout: Layout,
  errors: readonly SyntaxError[],
  limit = layout.pieces.length,
  limitOffset = Infinity,
): Range[] | undefined {
  const { pieces } = layout;
  // Piece index ranges [first, last] holding errors, merged where they touch.
  const clusters: { first: number; last: number }[] = [];
  for (const error of errors) {
    const first = Math.max(0, pieces.lastStartingAtOrBefore(error.range.start) - 1);
    const last = Math.max(first, pieces.lastStartingAtOrBefore(Math.max(error.range.start, error.range.end - 1)));
    const previous = clusters[clusters.length - 1];
    if (previous && first <= previous.last + 1) previous.last = Math.max(previous.last, last);
    else clusters.push({ first, last });
  }
  if (clusters.length > MAX_REGIONS) return undefined;
  const regions: Range[] = [];
  for (let c = 0; c < clusters.length; c++) {
    const cluster = clusters[c];
    let next = cluster.last + 1;
    // Grow the region until the pieces after it read as before, swallowing the clusters it reaches.
    while (next < limit && !backInStepAt(text, layout, next)) {
      next++;
      while (c + 1 < clusters.length && clusters[c + 1].first <= next) next = Math.max(next, clusters[++c].last + 1);
    }
    regions.push({
      start: regionStart(layout, cluster.first),
      end: next >= limit ? limitOffset : pieces.startAt(next),
    });
  }
  return regions;
}

function regionStart(layout: Layout, firstPiece: number): number {
  return firstPiece === 0 ? 0 : layout.pieces.startAt(firstPiece);
}

/**
 * Whether the parser is back in step at piece `index`: pieces [index, index +
 * IN_STEP) read alone (behind their section's key line) exactly as they read
 * in the whole text, without errors, in a section whose key line has no error.
 */
function backInStepAt(text: TextLike, layout: Layout, index: number): boolean {
  const { pieces, sections } = layout;
  const end = index + IN_STEP;
  if (end > pieces.length) return false;
  const own = pieces.slice(index, end);
  const section = sections[own[0].section];
  const items = own.every((p) => p.kind !== 'section' && p.section === own[0].section);
  const entries = own.every((p) => p.kind === 'section');
  if (!own.every((p) => p.sliceable) || (!items && !entries)) return false;
  const keyLineEnd = pieces.startAt(section.firstPiece);
  if (items && layout.syntaxErrors.some((e) => e.range.start >= section.start && e.range.start < keyLineEnd))
    return false;
  const header = items ? `${section.key}:\n` : '';
  const from = own[0].start;
  const source = header + text.slice(from, own[own.length - 1].end);
  const doc = parseYaml(source);
  if (doc.errors.length > 0) return false;
  const build = { src: source, base: from - header.length, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias || root?.kind !== 'map' || root.flow) return false;
  let read: (OutlineEntry | OutlineItem)[];
  if (items) {
    const list = root.entries.length === 1 ? itemsOf(root.entries[0]) : undefined;
    if (!list || list.kind !== section.itemized) return false;
    read = list.list;
  } else {
    read = root.entries;
  }
  if (read.length !== own.length) return false;
  return own.every((piece, i) => {
    // A piece that keeps no value was read where no error was: it reads alone as it read (piece-outline.ts).
    if (!piece.valueKept) return true;
    const a = read[i];
    const b = piece.outline as OutlineEntry | OutlineItem;
    if ('key' in a) return 'key' in b && sameEntry(a, 0, b, piece.delta);
    return !('key' in b) && sameItem(a, 0, b, piece.delta);
  });
}
