/**
 * The fast paths of updateLab; each returns undefined when only a full parse
 * can be trusted, and each must give exactly what a full parse gives.
 *
 * 1. One piece: an edit that stays inside one node, network or link (or one
 *    small top-level entry) and keeps its shape re-reads that piece's lines
 *    alone and shifts the pieces after it. A 2,000-node lab then costs a parse
 *    of a few lines instead of half a second. Refused when the document or the
 *    new piece has syntax errors (an unclosed quote or bracket can swallow what
 *    follows), when a line is indented to or left of the piece's own
 *    indentation (it would start a new item or section), for tabs in
 *    indentation, aliases, or a changed section key.
 *
 * 2. Tail: otherwise the text from the edited piece to the end is re-read, and
 *    the pieces before it are kept as they are. Pieces before an edit read the
 *    same whatever follows them as long as they are free of errors, so this also
 *    covers half-typed text and new items at the end of the file, where most
 *    typing happens. A tail that continues a section (a new link after the
 *    existing ones) is parsed behind a copy of the section's key line.
 */
import { ParsedLab, lastStartingAtOrBefore, type Layout, type Piece, type Section } from './document';
import { addItems, addSections, hasPlainKey, itemsOf, lineStartOf, readItem, type LayoutDraft } from './layout';
import { buildOutline, shiftRange, type OutlineEntry, type OutlineItem } from './outline';
import type { TextChange } from './parse';
import { readTopLevelEntry } from './read';
import { resolveNode } from './resolve';
import { shiftFragment } from './shift';
import type { NodeFields } from './types';
import { parseYaml, syntaxErrorsOf } from './yaml-text';

/** The updated document by a shortcut, or undefined when a full parse is needed. */
export function reparse(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  if (!previous.layout.sliceable) return undefined;
  return reparsePiece(previous, change, text) ?? reparseTail(previous, change, text);
}

function reparsePiece(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  const layout = previous.layout;
  if (layout.reliableBefore !== Infinity) return undefined;
  const index = lastStartingAtOrBefore(layout.pieces, change.start);
  if (index < 0) return undefined;
  const piece = layout.pieces[index];
  if (!piece.sliceable) return undefined;
  const insideEnd = change.end < piece.end || (change.end === piece.end && piece.end === previous.text.length);
  if (!insideEnd) return undefined;

  const delta = change.text.length - (change.end - change.start);
  const end = piece.end + delta;
  if (end < text.length && text.charCodeAt(end - 1) !== 10) return undefined;
  const slice = text.slice(piece.start, end);
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

  const fragment = piece.kind === 'section'
    ? readTopLevelEntry(outline as OutlineEntry, previous.defaults)
    : readItem(section.key, outline, index - section.firstPiece, previous.defaults);
  const pieces: Piece[] = layout.pieces.slice(0, index);
  pieces.push({ ...piece, end, outline, delta: 0, fragment });
  for (let i = index + 1; i < layout.pieces.length; i++) pieces.push(shiftPiece(layout.pieces[i], delta));
  const sections = layout.sections.map((s): Section => {
    if (s.start > piece.start) return { ...s, start: s.start + delta, keyRange: shiftRange(s.keyRange, delta) };
    if (s === section && piece.kind === 'section') return { ...s, keyRange: (outline as OutlineEntry).keyRange };
    return s;
  });
  return new ParsedLab(text, withCurrentDefaults({ ...layout, sections, pieces }, layout));
}

function reparseTail(previous: ParsedLab, change: TextChange, text: string): ParsedLab | undefined {
  const layout = previous.layout;
  const { sections, pieces } = layout;
  const from = Math.min(change.start, layout.reliableBefore);
  const sectionIndex = lastStartingAtOrBefore(sections, from);
  if (sectionIndex < 0) return undefined;
  // The first piece to re-read: the one the edit is in, or the first of a section whose key line holds the edit.
  let first = lastStartingAtOrBefore(pieces, from);
  const inHeader = first < sections[sectionIndex].firstPiece;
  if (inHeader) first = sections[sectionIndex].firstPiece;
  const editStart = inHeader ? sections[sectionIndex].start : pieces[first].start;
  // The piece before it is re-read too, so that the parser meets the edited text in the state the whole text
  // leaves it in (after a real entry, at its depth); with broken text, the recovery depends on that state.
  const context = pieces[first - 1];
  if (!context) return undefined;
  const contextSection = sections[context.section];
  if (!contextSection.sliceable) return undefined;
  const continues = context.kind !== 'section';
  const boundary = continues ? context.start : contextSection.start;

  const header = continues ? `${contextSection.key}:\n` : '';
  const tailText = header + text.slice(boundary);
  const base = boundary - header.length;
  const doc = parseYaml(tailText);
  const syntaxErrors = syntaxErrorsOf(doc, tailText.length, base);
  if (syntaxErrors.some((e) => e.range.start < editStart)) return undefined;
  const build = { src: tailText, base, sawAlias: false };
  const root = buildOutline(doc.contents, build);
  if (build.sawAlias || root?.kind !== 'map' || root.flow || root.entries.length === 0) return undefined;

  const draft: LayoutDraft = {
    sections: sections.slice(0, continues ? context.section + 1 : context.section),
    pieces: pieces.slice(0, first - 1),
  };
  let entries = root.entries;
  if (continues) {
    const items = itemsOf(entries[0]);
    if (entries[0].key !== contextSection.key || !items || items.kind !== contextSection.itemized) return undefined;
    // The re-read items must carry on the section's list: the same column, starting with the context piece.
    if (items.list[0].range.start !== context.start + context.indent) return undefined;
    draft.sections[context.section] = { ...contextSection };
    const end = entries.length > 1 ? lineStartOf(text, entries[1].range.start) : text.length;
    addItems(text, draft, context.section, items.list, first - 1 - contextSection.firstPiece, end, previous.defaults);
    entries = entries.slice(1);
  } else if (entries[0].range.start !== boundary) {
    return undefined;
  }
  addSections(text, draft, entries, true, previous.defaults);
  const updated: Layout = {
    sliceable: true,
    sections: draft.sections,
    pieces: draft.pieces,
    rootIssues: [],
    syntaxErrors,
    // The context piece reads as before (it is unchanged and error-free), so the next edit can start there again.
    reliableBefore: syntaxErrors.length > 0 ? editStart : Infinity,
  };
  return new ParsedLab(text, withCurrentDefaults(updated, layout));
}

function shiftPiece(piece: Piece, delta: number): Piece {
  if (delta === 0) return piece;
  return {
    kind: piece.kind,
    section: piece.section,
    start: piece.start + delta,
    end: piece.end + delta,
    indent: piece.indent,
    sliceable: piece.sliceable,
    outline: piece.outline,
    delta: piece.delta + delta,
    fragment: shiftFragment(piece.fragment, delta),
  };
}

/** The defaults that count: those of the first `defaults` entry. */
function defaultsOf(layout: Layout): NodeFields | undefined {
  const section = layout.sections.find((s) => s.key === 'defaults');
  return section && layout.pieces[section.firstPiece].fragment.defaults;
}

/**
 * New pieces were read against the previous defaults; when the defaults
 * themselves were re-read, every node is resolved again.
 */
function withCurrentDefaults(layout: Layout, previous: Layout): Layout {
  const defaults = defaultsOf(layout);
  if (defaults === defaultsOf(previous)) return layout;
  const pieces = layout.pieces.map((piece): Piece => {
    if (piece.fragment.nodes.length === 0) return piece;
    const nodes = piece.fragment.nodes.map((node) => ({ ...node, resolved: resolveNode(node.fields, defaults ?? {}) }));
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
