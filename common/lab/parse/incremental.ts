/**
 * The fast paths of updateLab; each returns undefined when only a full parse
 * can be trusted, and each must give exactly what a full parse gives.
 *
 * 1. One piece: an edit that stays inside one node, network or link (or one
 *    small top-level entry) and keeps its shape re-reads that piece's lines
 *    alone and shifts the pieces after it. A 2,000-node lab then costs a parse
 *    of a few lines instead of half a second. Refused when the document or the
 *    new piece has syntax errors (an unclosed bracket can swallow what
 *    follows) or lies in a region where errors may have changed how it reads
 *    (Layout.unsettled; errors elsewhere do not matter), when a line is indented to or left of the piece's own
 *    indentation (it would start a new item or section), for tabs in
 *    indentation, aliases, or a changed section key.
 *
 * 2. Window: otherwise a window of text is re-read, from the piece before the
 *    edited one (so that the parser meets the edit in the state the whole text
 *    puts it in) to a few pieces after it, behind a copy of the section's key
 *    line when it starts inside a section. Pieces before the window are kept;
 *    the window is accepted once its last pieces read exactly as the old ones
 *    and no error reaches them (the parser is back in step), and the pieces
 *    after it are shifted and renumbered. Otherwise it grows, up to the end of
 *    the text. This covers new items, half-typed text and syntax errors that
 *    stay local; each cluster of errors is remembered (Layout.unsettled) and
 *    re-read with the next edit that touches it, and regions elsewhere are kept
 *    (moved by the edit) when the window gets back in step before them. Broken
 *    text that the parser does not recover from (a stray `}`, a list item among
 *    the nodes) is re-read to the end of the text at each edit: the
 *    whole text reads differently after it, and nothing short of reading it
 *    shows how.
 */
import { ParsedLab, linkIndexOf } from '../model/document';
import { addItems, addSections, hasPlainKey, itemsOf, nextPieceIndex, readItem, type LayoutDraft } from './layout';
import {
  PieceList,
  indexOfFirstStartingAtOrAfter,
  indexOfLastStartingAtOrBefore,
  type Layout,
  type Piece,
  type PieceShift,
  type Section,
} from '../model/pieces';
import type { Splice } from '../model/census';
import { lineStartOf, type TextLike } from '../../text-lines';
import type { EditedText } from '../model/edited-text';
import { buildOutline, sameEntry, sameItem, shiftRange } from './outline';
import { headOf, pieceOutline, readPieceText } from './piece-outline';
import { readTopLevelEntry } from './read';
import { regionsOf } from './unsettled';
import { withDefaults } from '../model/resolve';
import { NODE_FIELD_NAMES, type NodeFields, type Range, type SyntaxError, type TextChange } from '../model/types';
import { ownCopy, parseYaml, syntaxErrorsOf } from './yaml-text';

/** The updated document by a shortcut, or undefined when a full parse is needed. */
export function reparse(previous: ParsedLab, change: TextChange, text: EditedText): ParsedLab | undefined {
  if (!previous.layout.sliceable) return undefined;
  return reparsePiece(previous, change, text) ?? reparseWindow(previous, change, text);
}

function reparsePiece(previous: ParsedLab, change: TextChange, text: EditedText): ParsedLab | undefined {
  const layout = previous.layout;
  const index = layout.pieces.lastStartingAtOrBefore(change.start);
  if (index < 0) return undefined;
  const piece = layout.pieces.at(index);
  if (!piece.sliceable) return undefined;
  // A piece where errors may have changed how it reads is re-read with them, in a window; one whose only errors are
  // its own lines set aside is not (see below).
  if (layout.unsettled?.some((r) => r.start < piece.end && piece.start < r.end && !onlySetAsideIn(layout, r, piece)))
    return undefined;
  const insideEnd = change.end < piece.end || (change.end === piece.end && piece.end === previous.source.length);
  if (!insideEnd) return undefined;

  const delta = change.text.length - (change.end - change.start);
  const end = piece.end + delta;
  if (end < text.length && text.charCodeAt(end - 1) !== 10) return undefined;
  const slice = ownCopy(text.slice(piece.start, end));
  if (!keepsShape(slice, piece.indent)) return undefined;
  // A line set aside (yaml-text.ts) reads as blank, and is judged in a piece as in the whole text: the piece reads
  // as the whole reads it and nothing around it changes, so typing a key before its colon stays in its piece.
  const read = readPieceText(slice, piece.kind, piece.start);
  if (!read) return undefined;
  const { outline, setAside } = read;
  const section = layout.sections[piece.section];
  if ('key' in outline) {
    if (!hasPlainKey(outline)) return undefined;
    // A section whose value became a block list or map is split into pieces by a full parse.
    if (piece.kind === 'section' && (outline.key !== section.key || itemsOf(outline))) return undefined;
  }
  if (outline.range.start !== piece.start + piece.indent) return undefined;

  const fragment =
    piece.kind === 'section' && 'key' in outline
      ? readTopLevelEntry(outline, defaultsOf(layout))
      : readItem(section.key, outline, linkIndexOf(piece), defaultsOf(layout));
  const valueKept = setAside.length > 0;
  const edited: Piece = {
    ...piece,
    end,
    outline: valueKept ? outline : headOf(outline),
    valueKept,
    delta: 0,
    fragment,
    linkShift: 0,
  };
  const pieces = layout.pieces.splice(index, index + 1, [edited], { delta });
  const sections = layout.sections.map((s): Section => {
    if (s.start > piece.start) return { ...s, start: s.start + delta, keyRange: shiftRange(s.keyRange, delta) };
    if (s === section && piece.kind === 'section' && 'key' in outline) return { ...s, keyRange: outline.keyRange };
    return s;
  });
  const kept = keptAround(layout, piece.start, piece.end, delta);
  const own = setAside.length > 0 ? [{ region: { start: piece.start, end }, errors: setAside }] : [];
  const updated: Layout = { ...layout, sections, pieces, ...withErrors(kept.before, own, kept.after) };
  const splice: Splice = {
    first: index,
    removed: [piece],
    added: 1,
    start: piece.start,
    end: piece.end,
    delta,
    linkDelta: 0,
    renumberTo: index + 1,
    sections: layout.sections,
  };
  return updatedLab(text, previous, updated, 'piece', splice);
}

function reparseWindow(previous: ParsedLab, change: TextChange, text: EditedText): ParsedLab | undefined {
  const layout = previous.layout;
  const delta = change.text.length - (change.end - change.start);
  let start = windowStart(layout, change);
  for (let back = 0; start && back <= MAX_STEPS_BACK; back++) {
    let outcome: WindowReading['outcome'] = 'out-of-step';
    for (const end of windowEnds(layout, start)) {
      const reading = readWindow(previous, text, { ...start, end, delta });
      if (reading.outcome === 'read') return reading.lab;
      outcome = reading.outcome;
      if (outcome !== 'out-of-step') break;
    }
    if (outcome !== 'reaches-back') return undefined;
    // The edit changed how the piece before it reads (a line set aside lets the next one carry on the item before
    // it): that piece is re-read as edited too, behind the one before it.
    start = windowStart(layout, { ...change, start: start.context.start });
  }
  return undefined;
}

/** How many pieces a window moves back for errors that start before the edited text: past that, a full parse. */
const MAX_STEPS_BACK = 4;

/** Where a window starts: the pieces before it are kept as they are. */
interface WindowStart {
  /** Index of the first piece re-read because of the edit. */
  first: number;
  /**
   * The piece before `first`, re-read too, so that the parser meets the edited
   * text in the state the whole text leaves it in (after a real entry, at its
   * depth); with broken text, the recovery depends on that state.
   */
  context: Piece;
  /** Where the window starts in the text, and the key line put in front of it when it starts inside a section. */
  boundary: number;
  header: string;
  /** The start of the first piece re-read because of the edit: what comes before it reads as before. */
  editStart: number;
  /** Where the old text is unchanged again: after the edit and every unsettled region the window holds. */
  settledFrom: number;
}

interface Window extends WindowStart {
  /** Index of the first old piece after the window (pieces.length: the window runs to the end of the text). */
  end: number;
  delta: number;
}

/**
 * What reading a window gave: the document; or the pieces at its end did not
 * read as before yet (a longer window may); or errors start before the
 * edited pieces (a window starting earlier may); or only a full parse can be
 * trusted.
 */
type WindowReading =
  | { outcome: 'read'; lab: ParsedLab }
  | { outcome: 'out-of-step' }
  | { outcome: 'reaches-back' }
  | { outcome: 'refused' };

const OUT_OF_STEP: WindowReading = { outcome: 'out-of-step' };
const REFUSED: WindowReading = { outcome: 'refused' };
const REACHES_BACK: WindowReading = { outcome: 'reaches-back' };

/**
 * Where the window for an edit starts: at the piece before the edited one,
 * moved back until it holds the start of every unsettled region it touches
 * (each is re-read whole). Undefined when that is before the first piece, or
 * in a section that cannot be cut.
 */
function windowStart(layout: Layout, change: TextChange): WindowStart | undefined {
  const { sections, pieces } = layout;
  const regions = layout.unsettled ?? [];
  let from = change.start;
  let settledFrom = change.end;
  for (;;) {
    const sectionIndex = indexOfLastStartingAtOrBefore(sections, from);
    if (sectionIndex < 0) return undefined;
    // The first piece to re-read: the one the edit is in, or the first of a section whose key line holds the edit.
    const section = sections[sectionIndex];
    const inKeyLine = pieces.lastStartingAtOrBefore(from) < section.firstPiece;
    const first = inKeyLine ? section.firstPiece : pieces.lastStartingAtOrBefore(from);
    if (first < 1) return undefined;
    const context = pieces.at(first - 1);
    const contextSection = sections[context.section];
    const header = context.kind !== 'section' ? `${contextSection.key}:\n` : '';
    const boundary = header ? context.start : contextSection.start;
    const touched = regions.filter((r) => r.start <= settledFrom && r.end > boundary);
    const touchedFrom = Math.min(from, ...touched.map((r) => r.start));
    settledFrom = Math.max(settledFrom, ...touched.map((r) => r.end));
    if (touchedFrom < from) {
      from = touchedFrom;
      continue;
    }
    // Checked once the window holds every region it touches: broken text may have made a section that cannot be cut.
    if (!contextSection.sliceable) return undefined;
    const editStart = inKeyLine ? section.start : pieces.startAt(first);
    return { first, context, boundary, header, editStart, settledFrom };
  }
}

/**
 * The pieces a window may end before, in the order to try them. It grows
 * (doubling) until its last pieces read exactly as before, which shows that
 * the parser is back in step, or up to the end of the text; at least IN_STEP
 * unchanged pieces (the ones compared) follow the edit. An unsettled region
 * further on is left alone when the window can end before it, back in step
 * there; otherwise the window takes it whole and goes on.
 */
function* windowEnds(layout: Layout, start: WindowStart): Generator<number> {
  const { pieces } = layout;
  const regions = layout.unsettled ?? [];
  let settledFrom = start.settledFrom;
  let extra = 4;
  for (;;) {
    const firstUnchanged = Math.max(
      start.first + 1,
      settledFrom === Infinity ? pieces.length : pieces.lastStartingAtOrBefore(settledFrom - 1) + 1,
    );
    const end = Math.min(firstUnchanged + Math.max(IN_STEP, extra), pieces.length);
    const endOffset = end < pieces.length ? pieces.startAt(end) : Infinity;
    const reached = regions.find((r) => r.start < endOffset && r.end > settledFrom);
    if (reached) {
      const barrier = pieces.lastStartingAtOrBefore(reached.start);
      if (pieces.startAt(barrier) === reached.start && barrier >= firstUnchanged + IN_STEP) yield barrier;
      settledFrom = reached.end;
      continue;
    }
    yield end;
    if (end === pieces.length) return;
    extra *= 2;
  }
}

function readWindow(previous: ParsedLab, text: EditedText, w: Window): WindowReading {
  const layout = previous.layout;
  const { sections, pieces } = layout;
  const toEnd = w.end === pieces.length;
  const sourceEnd = toEnd ? text.length : startOf(layout, w.end) + w.delta;
  const source = ownCopy(w.header + text.slice(w.boundary, sourceEnd));
  const base = w.boundary - w.header.length;
  const doc = parseYaml(source);
  const syntaxErrors = syntaxErrorsOf(doc, source.length, base);
  if (syntaxErrors.some((e) => e.range.start < w.editStart)) return REACHES_BACK;
  const build = { src: source, base, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias || root?.kind !== 'map' || root.flow || root.entries.length === 0) return REFUSED;

  const contextSection = sections[w.context.section];
  const defaults = defaultsOf(layout);
  // Pieces read where no error was keep no values (piece-outline.ts).
  const clean = syntaxErrors.length === 0;
  // The pieces before the context piece are kept: the draft holds those the window reads.
  const draft: LayoutDraft = {
    sections: sections.slice(0, w.header ? w.context.section + 1 : w.context.section),
    pieces: [],
    kept: w.first - 1,
  };
  let entries = root.entries;
  if (w.header) {
    const items = itemsOf(entries[0]);
    if (entries[0].key !== contextSection.key || !items || items.kind !== contextSection.itemized) return REFUSED;
    // The re-read items must carry on the section's list: the same column, starting with the context piece.
    if (items.list[0].range.start !== w.context.start + w.context.indent) return REFUSED;
    draft.sections[w.context.section] = { ...contextSection };
    const end = entries.length > 1 ? lineStartOf(text, entries[1].range.start) : sourceEnd;
    addItems(text, draft, w.context.section, items.list, linkIndexOf(w.context), end, clean, defaults);
    entries = entries.slice(1);
  } else if (entries[0].range.start !== w.boundary) {
    return REFUSED;
  }
  addSections(text, draft, entries, true, clean, defaults, sourceEnd);

  // Whatever the errors did stays before the pieces that read as before (or runs to the end).
  let settledAgain = Infinity;
  let after: PieceShift = { delta: 0 };
  if (!toEnd) {
    const inStep = inStepFrom(previous, text, draft, w, syntaxErrors);
    if (inStep === undefined) return OUT_OF_STEP;
    settledAgain = draft.pieces[inStep].start;
    after = appendRest(layout, draft, w);
  }
  const kept = keptAround(layout, w.boundary, toEnd ? Infinity : startOf(layout, w.end), w.delta);
  const region = syntaxErrors.length > 0 ? { start: w.editStart, end: settledAgain } : undefined;
  const updated: Layout = {
    sliceable: true,
    sections: draft.sections,
    pieces: pieces.splice(w.first - 1, w.end, draft.pieces, after),
    rootIssues: [],
    ...withErrors(kept.before, region ? [{ errors: syntaxErrors, region }] : [], kept.after),
  };
  if (region) {
    const around = windowRegions(text, updated, syntaxErrors, region);
    Object.assign(updated, withErrors(kept.before, around, kept.after));
  }
  const first = w.first - 1;
  // The pieces a window to the end of the text replaced are too many to hand on: the census is then made afresh.
  const splice: Splice | undefined =
    w.end - first > MAX_SPLICED
      ? undefined
      : {
          first,
          removed: pieces.slice(first, w.end),
          added: draft.pieces.length,
          start: pieces.startAt(first),
          end: toEnd ? previous.source.length : pieces.startAt(w.end),
          delta: w.delta,
          linkDelta: after.renumber ?? 0,
          renumberTo: (after.renumberTo ?? w.end) - w.end + first + draft.pieces.length,
          sections,
        };
  return { outcome: 'read', lab: updatedLab(text, previous, updated, 'window', splice) };
}

/** Pieces a window may replace and still hand the census before it on (see census.ts). */
const MAX_SPLICED = 256;

/** The new version; the census follows the splice unless the defaults changed, and every node with them. */
function updatedLab(
  text: EditedText,
  previous: ParsedLab,
  updated: Layout,
  readBy: 'piece' | 'window',
  splice: Splice | undefined,
): ParsedLab {
  const layout = withCurrentDefaults(updated, previous.layout);
  return new ParsedLab(text, layout, readBy, layout === updated && splice ? { previous, splice } : undefined);
}

/**
 * The window's errors in regions of their own, each up to the pieces after it
 * that read alone as in the window (see unsettled.ts), so that errors left
 * behind by typing do not merge into one region that every later edit near
 * them re-reads whole. The window's region as a whole when that cannot be told.
 */
function windowRegions(text: TextLike, layout: Layout, errors: SyntaxError[], region: Range): Unsettled[] {
  const limit = Number.isFinite(region.end) ? layout.pieces.lastStartingAtOrBefore(region.end) : layout.pieces.length;
  const regions = regionsOf(text, layout, errors, limit, region.end);
  if (!regions) return [{ region, errors }];
  const groups: Unsettled[] = [];
  for (const r of regions) {
    const start = Math.max(r.start, region.start);
    const previous = groups[groups.length - 1];
    // Clamped to the window, regions may touch: one region then.
    if (previous && start <= previous.region.end) previous.region = { start: previous.region.start, end: r.end };
    else groups.push({ region: { start, end: r.end }, errors: [] });
  }
  let at = 0;
  for (const error of errors) {
    while (at + 1 < groups.length && groups[at].region.end <= error.range.start) at++;
    groups[at].errors.push(error);
  }
  return groups;
}

interface Unsettled {
  region: Range;
  errors: SyntaxError[];
}

/** The unsettled regions (with their errors) before `from` and from `to` on, the latter moved by `delta`. */
function keptAround(
  layout: Layout,
  from: number,
  to: number,
  delta: number,
): { before: Unsettled[]; after: Unsettled[] } {
  const before: Unsettled[] = [];
  const after: Unsettled[] = [];
  const all = layout.syntaxErrors;
  for (const region of layout.unsettled ?? []) {
    const errors = errorsIn(all, region);
    if (region.end <= from) before.push({ region, errors });
    else if (region.start >= to)
      after.push({
        region: shiftRange(region, delta),
        errors: errors.map((e) => ({ ...e, range: shiftRange(e.range, delta) })),
      });
  }
  return { before, after };
}

/**
 * The errors in `region`. They are in document order: a search, not a look at every error for every region
 * (typing into a lab left broken in many places makes hundreds of both).
 */
function errorsIn(all: readonly SyntaxError[], region: Range): SyntaxError[] {
  const low = indexOfFirstStartingAtOrAfter(all, region.start, errorStart);
  let end = low;
  while (end < all.length && all[end].range.start < region.end) end++;
  return all.slice(low, end);
}

/** Whether `region` lies in `piece` and holds only lines set aside: what reparsePiece leaves after reading such lines. */
function onlySetAsideIn(layout: Layout, region: Range, piece: Piece): boolean {
  return (
    region.start >= piece.start &&
    region.end <= piece.end &&
    errorsIn(layout.syntaxErrors, region).every((e) => e.code !== undefined)
  );
}

function errorStart(error: SyntaxError): number {
  return error.range.start;
}

/** The layout's errors and unsettled regions, from the groups in document order. */
function withErrors(...groups: Unsettled[][]): Pick<Layout, 'syntaxErrors' | 'unsettled'> {
  // Loops, not flat and flatMap: at each edit of a lab left broken in many places, those were a tenth of its cost.
  const syntaxErrors: SyntaxError[] = [];
  const unsettled: Range[] = [];
  for (const group of groups)
    for (const { region, errors } of group) {
      unsettled.push(region);
      for (let i = 0; i < errors.length; i++) syntaxErrors.push(errors[i]);
    }
  return { syntaxErrors, unsettled: unsettled.length > 0 ? unsettled : undefined };
}

/** Whether piece `index` opens its section: it is a top-level entry, or the first item after the section's key line. */
function opensSection(layout: Layout, index: number): boolean {
  const piece = layout.pieces.asRead(index);
  const section = layout.sections[piece.section];
  return piece.kind === 'section' || index === section.firstPiece;
}

/** Where the text from piece `index` on starts: at its section's key line when it opens the section. */
function startOf(layout: Layout, index: number): number {
  return opensSection(layout, index)
    ? layout.sections[layout.pieces.asRead(index).section].start
    : layout.pieces.startAt(index);
}

/** How many pieces at the end of a window must read as before to show that the parser is back in step. */
const IN_STEP = 2;

/**
 * Where the run of pieces at the end of the window that read exactly as the old
 * ones at their places (and that no error reaches) begins, as an index into
 * draft.pieces; undefined when that run is shorter than IN_STEP.
 */
function inStepFrom(
  previous: ParsedLab,
  text: TextLike,
  draft: LayoutDraft,
  w: Window,
  syntaxErrors: readonly SyntaxError[],
): number | undefined {
  const layout = previous.layout;
  const reach = syntaxErrors.reduce((end, e) => Math.max(end, e.range.end), -1);
  let index = draft.pieces.length;
  for (let old = w.end - 1; index > 0 && old >= 0; old--) {
    const piece = draft.pieces[index - 1];
    const before = layout.pieces.at(old);
    const same =
      piece.start >= reach &&
      piece.kind === before.kind &&
      piece.start === before.start + w.delta &&
      piece.end === before.end + w.delta &&
      draft.sections[piece.section].key === layout.sections[before.section].key &&
      samePiece(piece, text, before, previous.source, w.delta);
    if (!same) break;
    index--;
  }
  return draft.pieces.length - index >= IN_STEP ? index : undefined;
}

/** Whether a piece re-read reads as `before` did, each where it is now in its version's text; the edit moved it `delta`. */
function samePiece(piece: Piece, text: TextLike, before: Piece, previousText: TextLike, delta: number): boolean {
  // Both read where no error was: each reads as its text alone does (piece-outline.ts), and they start at the same
  // place, so the same text reads the same (and a different text that reads the same at worst makes the window longer).
  if (!piece.valueKept && !before.valueKept)
    return text.slice(piece.start, piece.end) === previousText.slice(before.start, before.end);
  const a = pieceOutline(piece, text);
  const b = pieceOutline(before, previousText);
  if ('key' in a.outline) return 'key' in b.outline && sameEntry(a.outline, a.delta, b.outline, b.delta + delta);
  return !('key' in b.outline) && sameItem(a.outline, a.delta, b.outline, b.delta + delta);
}

/**
 * Appends the sections after the window to the draft, and says how the old
 * pieces after it move: by the edit, to their sections' new indexes, and
 * renumbered where links were added or removed before them in their section.
 */
function appendRest(layout: Layout, draft: LayoutDraft, w: Window): PieceShift {
  const { sections, pieces } = layout;
  const oldSection = pieces.asRead(w.end).section;
  const continues = !opensSection(layout, w.end);
  let sectionShift = draft.sections.length - oldSection;
  let linkIndexDelta = 0;
  if (continues) {
    const last = draft.sections.length - 1;
    const current = { ...draft.sections[last] };
    draft.sections[last] = current;
    sectionShift = last - oldSection;
    const newBefore = nextPieceIndex(draft) - current.firstPiece;
    const oldBefore = w.end - sections[oldSection].firstPiece;
    current.pieceCount = newBefore + sections[oldSection].pieceCount - oldBefore;
    if (current.key === 'links') linkIndexDelta = nextLinkIndex(layout, draft) - linkIndexOf(pieces.at(w.end));
  }
  const pieceShift = nextPieceIndex(draft) - w.end;
  for (let s = continues ? oldSection + 1 : oldSection; s < sections.length; s++) {
    const section = sections[s];
    draft.sections.push({
      ...section,
      start: section.start + w.delta,
      keyRange: shiftRange(section.keyRange, w.delta),
      firstPiece: section.firstPiece + pieceShift,
    });
  }
  const sectionEnd = sections[oldSection].firstPiece + sections[oldSection].pieceCount;
  return {
    delta: w.delta,
    renumber: linkIndexDelta,
    renumberTo: continues ? sectionEnd : w.end,
    sections: sectionShift,
  };
}

/** The index the next link of the draft's last section takes: after its last link, or 0. */
function nextLinkIndex(layout: Layout, draft: LayoutDraft): number {
  const kept = draft.kept ?? 0;
  const last = draft.pieces.at(-1) ?? (kept > 0 ? layout.pieces.at(kept - 1) : undefined);
  return last?.kind === 'link' && last.section === draft.sections.length - 1 ? linkIndexOf(last) + 1 : 0;
}

/** The piece that holds the defaults that count: the first `defaults` entry. */
function defaultsPiece(layout: Layout): Piece | undefined {
  const section = layout.sections.find((s) => s.key === 'defaults');
  return section && layout.pieces.at(section.firstPiece);
}

/** The node defaults that count (their values; ranges as read), without working out the rest of what counts. */
function defaultsOf(layout: Layout): NodeFields {
  return defaultsPiece(layout)?.fragment.defaults ?? {};
}

/**
 * New pieces were read against the previous defaults; when the defaults
 * themselves changed, every node is resolved again. Re-read is not changed: a
 * window that starts at the first node re-reads the defaults before it, and
 * resolving 10,000 nodes again for that cost more than the rest of the edit.
 */
function withCurrentDefaults(layout: Layout, previous: Layout): Layout {
  const current = defaultsPiece(layout);
  const before = defaultsPiece(previous);
  // Shifting keeps the outline; a piece re-read gets a new one, whose values may still be the same.
  if (current?.outline === before?.outline) return layout;
  const defaults = current?.fragment.defaults ?? {};
  if (sameValues(defaults, before?.fragment.defaults ?? {})) return layout;
  const pieces = layout.pieces.slice().map((piece): Piece => {
    if (piece.fragment.nodes.length === 0) return piece;
    const nodes = piece.fragment.nodes.map((node) => ({ ...node, resolved: withDefaults(node.fields, defaults) }));
    return { ...piece, fragment: { ...piece.fragment, nodes } };
  });
  return { ...layout, pieces: PieceList.of(pieces) };
}

/** Whether two sets of node defaults give every node the same resolved values (resolving reads values alone). */
function sameValues(a: NodeFields, b: NodeFields): boolean {
  return NODE_FIELD_NAMES.every((name) => JSON.stringify(a[name]?.value) === JSON.stringify(b[name]?.value));
}

/**
 * Whether a piece's new text still reads as that piece alone: its first line
 * starts with exactly `indent` spaces and content, and every later line with
 * content is indented further (blank and comment lines do not count, nor do
 * lines with a tab at or before that indentation, which are set aside).
 */
function keepsShape(slice: string, indent: number): boolean {
  let lineStart = 0;
  let first = true;
  while (lineStart < slice.length) {
    const newline = slice.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? slice.length : newline;
    let at = lineStart;
    while (at < lineEnd && slice.charCodeAt(at) === 32) at++;
    const next = at < lineEnd ? slice[at] : '';
    // A tab within the piece's indentation: the line is set aside (yaml-text.ts), blank to the shape.
    if (next === '\t' && (first || at - lineStart > indent)) return false;
    const blank = next === '' || next === '\r' || next === '#' || next === '\t';
    if (first) {
      if (blank || at - lineStart !== indent) return false;
      first = false;
    } else if (!blank && at - lineStart <= indent) {
      return false;
    }
    lineStart = lineEnd + 1;
  }
  return !first;
}
