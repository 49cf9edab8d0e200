/**
 * The fast paths of updateLab; each returns undefined when only a full parse
 * can be trusted, and each must give exactly what a full parse gives.
 *
 * 1. One piece: an edit that stays inside one node, network or link (or one
 *    small top-level entry) and keeps its shape re-reads that piece's lines
 *    alone and shifts the pieces after it. A 2,000-node lab then costs a parse
 *    of a few lines instead of half a second. Refused when the document or the
 *    new piece has syntax errors (an unclosed quote or bracket can swallow what
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
 *    (the parser is back in step), and the pieces after it are shifted and
 *    renumbered. Otherwise it grows, up to the end of the text. This covers new
 *    items, half-typed text and syntax errors that stay local; each cluster of
 *    errors is remembered (Layout.unsettled) and re-read with the next edit
 *    that touches it. Regions elsewhere are kept (moved by the edit), and a
 *    window that cannot get back in step before one is read alone
 *    (Window.local), so that the text an edit re-reads stays around it however
 *    many errors earlier typing left behind.
 */
import {
  ParsedLab,
  lastStartingAtOrBefore,
  linkIndexOf,
  originOf,
  type Layout,
  type Piece,
  type Section,
} from './document';
import { addItems, addSections, hasPlainKey, itemsOf, readItem, type LayoutDraft } from './layout';
import { lineStartOf } from '../text-lines';
import { buildOutline, sameEntry, sameItem, shiftRange, type OutlineEntry, type OutlineItem } from './outline';
import { readTopLevelEntry } from './read';
import { regionsOf } from './unsettled';
import { resolveNode } from './resolve';
import type { NodeFields, Range, SyntaxError, TextChange } from './types';
import { ownCopy, parseYaml, syntaxErrorsOf } from './yaml-text';

/** The updated document by a shortcut, or undefined when a full parse is needed. */
export function reparse(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  if (!previous.layout.sliceable) return undefined;
  return reparsePiece(previous, change, text) ?? reparseWindow(previous, change, text);
}

function reparsePiece(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  const layout = previous.layout;
  const index = lastStartingAtOrBefore(layout.pieces, change.start);
  if (index < 0) return undefined;
  const piece = layout.pieces[index];
  if (!piece.sliceable) return undefined;
  // A piece where errors may have changed how it reads is re-read with them, in a window.
  if (layout.unsettled?.some((r) => r.start < piece.end && piece.start < r.end)) return undefined;
  const insideEnd = change.end < piece.end || (change.end === piece.end && piece.end === previous.text.length);
  if (!insideEnd) return undefined;

  const delta = change.text.length - (change.end - change.start);
  const end = piece.end + delta;
  if (end < text.length && text.charCodeAt(end - 1) !== 10) return undefined;
  const slice = ownCopy(text.slice(piece.start, end));
  if (!keepsShape(slice, piece.indent)) return undefined;
  const doc = parseYaml(slice);
  if (doc.errors.length > 0) return undefined;
  const build = { src: slice, base: piece.start, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias) return undefined;

  const section = layout.sections[piece.section];
  let outline: OutlineEntry | OutlineItem;
  if (piece.kind === 'link') {
    if (root?.kind !== 'seq' || root.flow || root.items.length !== 1) return undefined;
    outline = root.items[0];
  } else {
    if (root?.kind !== 'map' || root.flow || root.entries.length !== 1) return undefined;
    const entry = root.entries[0];
    if (!hasPlainKey(entry)) return undefined;
    // A section whose value became a block list or map is split into pieces by a full parse.
    if (piece.kind === 'section' && (entry.key !== section.key || itemsOf(entry))) return undefined;
    outline = entry;
  }
  if (outline.range.start !== piece.start + piece.indent) return undefined;

  const fragment =
    piece.kind === 'section'
      ? readTopLevelEntry(outline as OutlineEntry, defaultsOf(layout))
      : readItem(section.key, outline, linkIndexOf(piece), defaultsOf(layout));
  const pieces: Piece[] = layout.pieces.slice(0, index);
  pieces.push({ ...piece, end, outline, delta: 0, fragment, linkShift: 0 });
  for (let i = index + 1; i < layout.pieces.length; i++) pieces.push(shiftPiece(layout.pieces[i], delta));
  const sections = layout.sections.map((s): Section => {
    if (s.start > piece.start) return { ...s, start: s.start + delta, keyRange: shiftRange(s.keyRange, delta) };
    if (s === section && piece.kind === 'section') return { ...s, keyRange: (outline as OutlineEntry).keyRange };
    return s;
  });
  const kept = keptAround(layout, piece.start, piece.end, delta);
  const updated: Layout = { ...layout, sections, pieces, ...withErrors(kept.before, [], kept.after) };
  return new ParsedLab(text, withCurrentDefaults(updated, layout));
}

function reparseWindow(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  const layout = previous.layout;
  const { sections, pieces } = layout;
  const regions = layout.unsettled ?? [];
  // The window covers the edit and every unsettled region it touches, which is re-read with it.
  let from = change.start;
  let settledFrom = change.end;
  let first: number;
  let inHeader: boolean;
  let context: Piece | undefined;
  let boundary: number;
  let header: string;
  for (;;) {
    const sectionIndex = lastStartingAtOrBefore(sections, from);
    if (sectionIndex < 0) return undefined;
    // The first piece to re-read: the one the edit is in, or the first of a section whose key line holds the edit.
    first = lastStartingAtOrBefore(pieces, from);
    inHeader = first < sections[sectionIndex].firstPiece;
    if (inHeader) first = sections[sectionIndex].firstPiece;
    // The piece before it is re-read too, so that the parser meets the edited text in the state the whole text
    // leaves it in (after a real entry, at its depth); with broken text, the recovery depends on that state.
    context = pieces[first - 1];
    if (!context) return undefined;
    const contextSection = sections[context.section];
    header = context.kind !== 'section' ? `${contextSection.key}:\n` : '';
    boundary = header ? context.start : contextSection.start;
    const start = boundary;
    const touched = regions.filter((r) => r.start <= settledFrom && r.end > start);
    const newFrom = Math.min(from, ...touched.map((r) => r.start));
    settledFrom = Math.max(settledFrom, ...touched.map((r) => r.end));
    if (newFrom === from) break;
    from = newFrom;
  }
  // Checked once the window holds every region it touches: broken text may have made a section that is not sliceable.
  if (!sections[context.section].sliceable) return undefined;
  const editStart = inHeader ? sections[pieces[first].section].start : pieces[first].start;
  const delta = change.text.length - (change.end - change.start);

  // Pieces wholly after the edit (and after anything unsettled) are unchanged text that read right; the window
  // grows until its last pieces read exactly as before, which shows the parser is back in step.
  let localTriedAt = -1;
  for (let extra = 4; ;) {
    const firstUnchanged = Math.max(
      first + 1,
      settledFrom === Infinity ? pieces.length : lastStartingAtOrBefore(pieces, settledFrom - 1) + 1,
    );
    const window = { first, context, boundary, header, editStart, delta };
    // Broken text the parser does not recover from nearby is read alone, up to the next piece it leaves alone.
    const readAlone = (): ParsedLab | undefined | 'no-resync' => {
      if (localTriedAt === firstUnchanged || firstUnchanged >= pieces.length) return 'no-resync';
      localTriedAt = firstUnchanged;
      return readWindow(previous, text, { ...window, end: firstUnchanged, local: true });
    };
    const end = windowEnd(layout, firstUnchanged, extra);
    const endOffset = end < pieces.length ? pieces[end].start : Infinity;
    const reached = regions.find((r) => r.start < endOffset && r.end > settledFrom);
    if (reached) {
      // Unsettled text further on is left alone when the window can end before it: back in step there, or
      // read alone. Otherwise the window re-reads it whole and goes on.
      const barrier = lastStartingAtOrBefore(pieces, reached.start);
      if (pieces[barrier].start === reached.start && barrier >= firstUnchanged) {
        if (barrier >= firstUnchanged + IN_STEP) {
          const attempt = readWindow(previous, text, { ...window, end: barrier });
          if (attempt !== 'no-resync') return attempt;
        }
        const local = readAlone();
        if (local !== 'no-resync') return local;
      }
      settledFrom = reached.end;
      continue;
    }
    const attempt = readWindow(previous, text, { ...window, end });
    if (attempt !== 'no-resync') return attempt;
    if (end === pieces.length) return undefined;
    if (extra === LOCAL_AFTER) {
      const local = readAlone();
      if (local !== 'no-resync') return local;
    }
    extra *= 2;
  }
}

/**
 * Pieces a window may grow past the edit before broken text is read alone (see
 * Window.local). Broken text the parser has not recovered from within a few
 * pieces seldom recovers later, and the parser takes about 2 ms a kilobyte:
 * 32 pieces made each such keystroke cost 10 ms on its own.
 */
const LOCAL_AFTER = 8;

/** Where a window may end: at least two unchanged pieces (the ones compared) after the edit, or at the end. */
function windowEnd(layout: Layout, firstUnchanged: number, extra: number): number {
  return Math.min(firstUnchanged + Math.max(IN_STEP, extra), layout.pieces.length);
}

interface Window {
  /** Index of the first piece re-read because of the edit; the piece before it is re-read as context. */
  first: number;
  context: Piece;
  /** Where the window starts in the text, and the key line put in front of it when it starts inside a section. */
  boundary: number;
  header: string;
  /** The start of the edited piece: what comes before it reads as before. */
  editStart: number;
  /** Index of the first old piece after the window (pieces.length: the window runs to the end). */
  end: number;
  delta: number;
  /**
   * Accept the window without the pieces after it reading as before: the edit
   * left the text broken there, and the parser would carry the damage on (a
   * stray `- ` among nodes makes it read the rest of the section as one broken
   * key). The pieces after it are kept as a clean context reads them, and the
   * window's errors are reported; the result differs from a full parse only in
   * a document with syntax errors, and only in how the broken stretch spreads.
   * Refused where the text after the window could still close what the window
   * opens or take it over: an unclosed quote, a line left of the next piece.
   */
  local?: boolean;
}

function readWindow(previous: ParsedLab, text: string, w: Window): ParsedLab | undefined | 'no-resync' {
  const layout = previous.layout;
  const { sections, pieces } = layout;
  const toEnd = w.end === pieces.length;
  const windowEnd = toEnd ? text.length : startOf(layout, w.end) + w.delta;
  const source = ownCopy(w.header + text.slice(w.boundary, windowEnd));
  const base = w.boundary - w.header.length;
  const doc = parseYaml(source);
  const syntaxErrors = syntaxErrorsOf(doc, source.length, base);
  if (syntaxErrors.some((e) => e.range.start < w.editStart)) return undefined;
  const build = { src: source, base, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias || root?.kind !== 'map' || root.flow || root.entries.length === 0) return undefined;

  const contextSection = sections[w.context.section];
  const defaults = defaultsOf(layout);
  const draft: LayoutDraft = {
    sections: sections.slice(0, w.header ? w.context.section + 1 : w.context.section),
    pieces: pieces.slice(0, w.first - 1),
  };
  let entries = root.entries;
  if (w.header) {
    const items = itemsOf(entries[0]);
    if (entries[0].key !== contextSection.key || !items || items.kind !== contextSection.itemized) return undefined;
    // The re-read items must carry on the section's list: the same column, starting with the context piece.
    if (items.list[0].range.start !== w.context.start + w.context.indent) return undefined;
    draft.sections[w.context.section] = { ...contextSection };
    const end = entries.length > 1 ? lineStartOf(text, entries[1].range.start) : windowEnd;
    addItems(text, draft, w.context.section, items.list, linkIndexOf(w.context), end, defaults);
    entries = entries.slice(1);
  } else if (entries[0].range.start !== w.boundary) {
    return undefined;
  }
  addSections(text, draft, entries, true, defaults, windowEnd);

  // Whatever the errors did stays before the pieces that read as before (or runs to the end).
  let settledAgain = Infinity;
  if (w.local) {
    if (!readsAlone(layout, w, text, syntaxErrors)) return 'no-resync';
    settledAgain = windowEnd;
    resumeSection(layout, draft, w, windowEnd);
    appendRest(layout, draft, w);
  } else if (!toEnd) {
    const inStep = inStepFrom(layout, draft, w, syntaxErrors);
    if (inStep === undefined) return 'no-resync';
    settledAgain = draft.pieces[inStep].start;
    appendRest(layout, draft, w);
  }
  const kept = keptAround(layout, w.boundary, toEnd ? Infinity : startOf(layout, w.end), w.delta);
  const region = syntaxErrors.length > 0 ? { start: w.editStart, end: settledAgain } : undefined;
  const updated: Layout = {
    sliceable: true,
    sections: draft.sections,
    pieces: draft.pieces,
    rootIssues: [],
    ...withErrors(kept.before, region ? [{ errors: syntaxErrors, region }] : [], kept.after),
  };
  if (region) {
    const around = windowRegions(text, updated, syntaxErrors, region);
    Object.assign(updated, withErrors(kept.before, around, kept.after));
  }
  return new ParsedLab(text, withCurrentDefaults(updated, layout));
}

/**
 * The window's errors in regions of their own, each up to the pieces after it
 * that read alone as in the window (see unsettled.ts), so that errors left
 * behind by typing do not merge into one region that every later edit near
 * them re-reads whole. The window's region as a whole when that cannot be told.
 */
function windowRegions(text: string, layout: Layout, errors: SyntaxError[], region: Range): Unsettled[] {
  const limit = Number.isFinite(region.end) ? lastStartingAtOrBefore(layout.pieces, region.end) : layout.pieces.length;
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
  for (const region of layout.unsettled ?? []) {
    const inside = (e: SyntaxError) => e.range.start >= region.start && e.range.start < region.end;
    const errors = layout.syntaxErrors.filter(inside);
    if (region.end <= from) before.push({ region, errors });
    else if (region.start >= to)
      after.push({
        region: shiftRange(region, delta),
        errors: errors.map((e) => ({ message: e.message, range: shiftRange(e.range, delta) })),
      });
  }
  return { before, after };
}

/** The layout's errors and unsettled regions, from the groups in document order. */
function withErrors(...groups: Unsettled[][]): Pick<Layout, 'syntaxErrors' | 'unsettled'> {
  const all = groups.flat();
  const syntaxErrors = all.flatMap((u) => u.errors);
  return { syntaxErrors, unsettled: all.length > 0 ? all.map((u) => u.region) : undefined };
}

/**
 * Whether a broken window may be read alone (Window.local): it has errors, none
 * an unclosed quote (the text after could close it), and no line of the edited
 * text starts left of the next piece.
 */
function readsAlone(layout: Layout, w: Window, text: string, syntaxErrors: readonly SyntaxError[]): boolean {
  if (syntaxErrors.length === 0) return false;
  const next = layout.pieces[w.end];
  const indent = opensSection(layout, w.end) ? 0 : next.indent;
  return next.sliceable && indentedAtLeast(text, w.editStart, startOf(layout, w.end) + w.delta, indent);
}

/** Whether piece `index` opens its section: it is a top-level entry, or the first item after the section's key line. */
function opensSection(layout: Layout, index: number): boolean {
  const piece = layout.pieces[index];
  const section = layout.sections[piece.section];
  return piece.kind === 'section' || (index === section.firstPiece && !section.resumed);
}

/** Where the text from piece `index` on starts: at its section's key line when it opens the section. */
function startOf(layout: Layout, index: number): number {
  return opensSection(layout, index) ? layout.sections[layout.pieces[index].section].start : layout.pieces[index].start;
}

/**
 * When the window read alone ends in another section than the one the next
 * piece carries on (the broken text read as a top-level key of its own, which
 * in the whole text takes the rest of the section as its value), the pieces
 * after it are kept in a section that resumes theirs, as a clean context reads them.
 */
function resumeSection(layout: Layout, draft: LayoutDraft, w: Window, start: number): void {
  const next = layout.pieces[w.end];
  if (opensSection(layout, w.end)) return;
  const old = layout.sections[next.section];
  const current = draft.sections[draft.sections.length - 1];
  if (current.key === old.key && current.itemized === old.itemized && current.sliceable) return;
  draft.sections.push({
    key: old.key,
    keyRange: { start, end: start },
    start,
    firstPiece: draft.pieces.length,
    pieceCount: 0,
    itemized: old.itemized,
    sliceable: true,
    resumed: true,
  });
}

/** Whether every line in text[from, to) with content (not a comment) starts at least `indent` spaces in. */
function indentedAtLeast(text: string, from: number, to: number, indent: number): boolean {
  for (let lineStart = from; lineStart < to;) {
    let at = lineStart;
    while (at < to && text.charCodeAt(at) === 32) at++;
    const next = text.charCodeAt(at);
    const blank = at >= to || next === 10 || next === 13 || next === 35;
    if (!blank && at - lineStart < indent) return false;
    const newline = text.indexOf('\n', at);
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return true;
}

/** How many pieces at the end of a window must read as before to show that the parser is back in step. */
const IN_STEP = 2;

/**
 * Where the run of pieces at the end of the window that read exactly as the old
 * ones at their places (and that no error reaches) begins, as an index into
 * draft.pieces; undefined when that run is shorter than IN_STEP.
 */
function inStepFrom(
  layout: Layout,
  draft: LayoutDraft,
  w: Window,
  syntaxErrors: readonly SyntaxError[],
): number | undefined {
  const reach = syntaxErrors.reduce((end, e) => Math.max(end, e.range.end), -1);
  let index = draft.pieces.length;
  for (let old = w.end - 1; index > w.first - 1 && old >= 0; old--) {
    const piece = draft.pieces[index - 1];
    const before = layout.pieces[old];
    const same =
      piece.start >= reach &&
      piece.kind === before.kind &&
      piece.start === before.start + w.delta &&
      piece.end === before.end + w.delta &&
      draft.sections[piece.section].key === layout.sections[before.section].key &&
      samePiece(piece.outline, piece.delta, before.outline, before.delta + w.delta);
    if (!same) break;
    index--;
  }
  return draft.pieces.length - index >= IN_STEP ? index : undefined;
}

function samePiece(
  a: OutlineEntry | OutlineItem,
  deltaA: number,
  b: OutlineEntry | OutlineItem,
  deltaB: number,
): boolean {
  if ('key' in a) return 'key' in b && sameEntry(a, deltaA, b, deltaB);
  return !('key' in b) && sameItem(a, deltaA, b, deltaB);
}

/** Appends the old pieces after the window, moved by the edit and renumbered where links were added or removed. */
function appendRest(layout: Layout, draft: LayoutDraft, w: Window): void {
  const { sections, pieces } = layout;
  const oldSection = pieces[w.end].section;
  const continues = !opensSection(layout, w.end);
  let sectionShift = draft.sections.length - oldSection;
  let linkIndexDelta = 0;
  if (continues) {
    const last = draft.sections.length - 1;
    const current = { ...draft.sections[last] };
    draft.sections[last] = current;
    sectionShift = last - oldSection;
    const newBefore = draft.pieces.length - current.firstPiece;
    const oldBefore = w.end - sections[oldSection].firstPiece;
    current.pieceCount = newBefore + sections[oldSection].pieceCount - oldBefore;
    if (current.key === 'links') linkIndexDelta = nextLinkIndex(draft) - linkIndexOf(pieces[w.end]);
  }
  const pieceShift = draft.pieces.length - w.end;
  // Links are renumbered in their section and in the sections that resume it.
  const origin = originOf(sections, oldSection);
  const chain = new Set<number>([oldSection]);
  for (let s = oldSection + 1; s < sections.length; s++) if (originOf(sections, s) === origin) chain.add(s);
  for (let i = w.end; i < pieces.length; i++) {
    const piece = pieces[i];
    const renumber = continues && chain.has(piece.section) ? linkIndexDelta : 0;
    draft.pieces.push(shiftPiece(piece, w.delta, piece.section + sectionShift, renumber));
  }
  for (let s = continues ? oldSection + 1 : oldSection; s < sections.length; s++) {
    const section = sections[s];
    draft.sections.push({
      ...section,
      start: section.start + w.delta,
      keyRange: shiftRange(section.keyRange, w.delta),
      firstPiece: section.firstPiece + pieceShift,
    });
  }
}

/** The index the next link of the draft's last section takes: after the last link of its entry, or 0. */
function nextLinkIndex(draft: LayoutDraft): number {
  const origin = originOf(draft.sections, draft.sections.length - 1);
  for (let i = draft.pieces.length - 1; i >= 0; i--) {
    const piece = draft.pieces[i];
    if (piece.section < origin) break;
    if (piece.kind === 'link' && originOf(draft.sections, piece.section) === origin) return linkIndexOf(piece) + 1;
  }
  return 0;
}

function shiftPiece(piece: Piece, delta: number, section = piece.section, linkIndexDelta = 0): Piece {
  if (delta === 0 && section === piece.section && linkIndexDelta === 0) return piece;
  return {
    kind: piece.kind,
    section,
    start: piece.start + delta,
    end: piece.end + delta,
    indent: piece.indent,
    sliceable: piece.sliceable,
    outline: piece.outline,
    delta: piece.delta + delta,
    fragment: piece.fragment,
    linkShift: piece.linkShift + linkIndexDelta,
  };
}

/** The piece that holds the defaults that count: the first `defaults` entry. */
function defaultsPiece(layout: Layout): Piece | undefined {
  const section = layout.sections.find((s) => s.key === 'defaults');
  return section && layout.pieces[section.firstPiece];
}

/** The node defaults that count (their values; ranges as read), without working out the rest of what counts. */
function defaultsOf(layout: Layout): NodeFields {
  return defaultsPiece(layout)?.fragment.defaults ?? {};
}

/**
 * New pieces were read against the previous defaults; when the defaults
 * themselves were re-read (a new outline; shifting keeps it), every node is
 * resolved again.
 */
function withCurrentDefaults(layout: Layout, previous: Layout): Layout {
  const current = defaultsPiece(layout);
  if (current?.outline === defaultsPiece(previous)?.outline) return layout;
  const defaults = current?.fragment.defaults ?? {};
  const pieces = layout.pieces.map((piece): Piece => {
    if (piece.fragment.nodes.length === 0) return piece;
    const nodes = piece.fragment.nodes.map((node) => ({ ...node, resolved: resolveNode(node.fields, defaults) }));
    return { ...piece, fragment: { ...piece.fragment, nodes } };
  });
  return { ...layout, pieces };
}

/**
 * Whether a piece's new text still reads as that piece alone: its first line
 * starts with exactly `indent` spaces and content, and every later line with
 * content is indented further (blank and comment lines do not count).
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
    if (next === '\t') return false;
    const blank = next === '' || next === '\r' || next === '#';
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
