/**
 * Line-exact text edits of a lab document: insert whole lines after a line,
 * remove whole lines, apply a set of edits. The agent's from_emu pulls
 * (agent/domain/text-edits.ts) and the topology view's edits
 * (server/topology-edits.ts) both change a document this way, so that only the
 * lines that must change do and the user's layout and comments stay.
 */
import { lineEnd, lineStartOf } from '../../text-lines';

/** Replace [start, end) of the text with `text`. */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

/** The spaces before `offset` when only spaces (or a list item's dash) stand before it on its line. */
export function indentAt(text: string, offset: number): string | undefined {
  const before = text.slice(lineStartOf(text, offset), offset);
  return /^[ -]*$/.test(before) ? ' '.repeat(before.length) : undefined;
}

/**
 * `lines` as whole lines after the line holding `offset`, ended the way that line is (LF or
 * CRLF); after a last line without a line break, one goes before them and none after.
 */
export function insertLinesAfter(text: string, offset: number, lines: readonly string[]): OffsetEdit {
  const at = text.indexOf('\n', lineEnd(text, offset));
  if (at < 0) return { start: text.length, end: text.length, text: `\n${lines.join('\n')}` };
  const eol = text[at - 1] === '\r' ? '\r\n' : '\n';
  return { start: at + 1, end: at + 1, text: lines.map((line) => line + eol).join('') };
}

/**
 * Removes whole lines, from the one holding `start` to the one holding the last character before
 * `end`. The line break after them goes with them; at the end of a text without one, the one before.
 */
export function removeLines(text: string, start: number, end: number): OffsetEdit {
  const from = lineStartOf(text, start);
  const next = text.indexOf('\n', Math.max(start, end - 1));
  if (next >= 0) return { start: from, end: next + 1, text: '' };
  const before = from > 1 && text[from - 2] === '\r' ? 2 : from > 0 ? 1 : 0;
  return { start: from - before, end: text.length, text: '' };
}

/** The text with the edits made, or undefined when two of them overlap. */
export function applyEdits(text: string, edits: readonly OffsetEdit[]): string | undefined {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) if (sorted[i].start < sorted[i - 1].end) return undefined;
  let out = text;
  for (const edit of sorted.reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}
