/**
 * The editor's text of one document, kept as the last full text (the base)
 * with the stretches edited since laid over it. An edit costs what it touches:
 * it merges into the stretch it lands in or next to, or starts a new one; the
 * full text and its line index are built once, when the owner commits (after
 * applying the stretches to the model). Lines and offsets follow
 * vscode-languageserver-textdocument exactly: a line ends after \n, \r\n or a
 * lone \r, and positions past a line's end stop before its line break.
 *
 * Line starts of the current text are the base's, shifted, outside the
 * stretches, and each stretch's own inside it. That holds because a stretch
 * never starts right after a \r nor ends right before a \n (an edit there takes
 * that character in), so no \r\n pair spans a stretch's edge.
 */
import type { Position, TextDocumentContentChangeEvent } from 'vscode-languageserver/node';

/** What replaced base[start, end): text, with the offsets in it where lines start. */
export interface Stretch {
  start: number;
  end: number;
  text: string;
  lineStarts: number[];
}

const CR = 13;
const LF = 10;

export class TextBuffer {
  private base: string;
  /** Where each line of `base` starts; [0] is 0. */
  private baseLines: Int32Array;
  /** Sorted, disjoint and never touching (an edit next to one merges into it). */
  private edited: Stretch[] = [];
  private joined: string | undefined;

  constructor(
    text: string,
    private currentVersion: number,
  ) {
    this.base = text;
    this.baseLines = Int32Array.from(lineStartsOf(text, true));
  }

  get version(): number {
    return this.currentVersion;
  }

  /** The stretches replaced since the last commit, in the base text's offsets, in order. */
  get stretches(): readonly Stretch[] {
    return this.edited;
  }

  get length(): number {
    let length = this.base.length;
    for (const s of this.edited) length += s.text.length - (s.end - s.start);
    return length;
  }

  get lineCount(): number {
    let count = this.baseLines.length;
    for (const s of this.edited) count += s.lineStarts.length - this.baseLinesIn(s.start, s.end);
    return count;
  }

  /** The whole current text (built once per set of edits). */
  getText(): string {
    if (this.edited.length === 0) return this.base;
    if (this.joined === undefined) {
      const parts: string[] = [];
      let at = 0;
      for (const s of this.edited) {
        parts.push(this.base.slice(at, s.start), s.text);
        at = s.end;
      }
      parts.push(this.base.slice(at));
      this.joined = parts.join('');
    }
    return this.joined;
  }

  /** Makes the current text the base: the stretches are gone, the line index is the current one. */
  commit(): string {
    if (this.edited.length === 0) return this.base;
    const text = this.getText();
    this.rebase(text);
    return text;
  }

  /**
   * commit(), with `text` as the base when it is the current text (the owner's
   * copy, its model's): the text is then held once, and is never built here.
   * False, changing nothing, when it is not the current text.
   */
  commitAs(text: string): boolean {
    if (text.length !== this.length) return false;
    let at = 0;
    let delta = 0;
    // Slices of long strings are views, not copies, and === compares them as blocks of memory
    // (startsWith goes character by character, 20 times slower).
    const same = (from: number, to: number, part: string): boolean => text.slice(from, to) === part;
    for (const s of this.edited) {
      if (!same(at + delta, s.start + delta, this.base.slice(at, s.start))) return false;
      if (!same(s.start + delta, s.start + delta + s.text.length, s.text)) return false;
      delta += s.text.length - (s.end - s.start);
      at = s.end;
    }
    if (!same(at + delta, text.length, this.base.slice(at))) return false;
    if (this.edited.length === 0) this.base = text;
    else this.rebase(text);
    return true;
  }

  private rebase(text: string): void {
    const lines = new Int32Array(this.lineCount);
    lines[0] = 0;
    let count = 1;
    let delta = 0;
    let at = 0;
    const copyBase = (from: number, to: number): void => {
      for (let i = upperBound(this.baseLines, from); i < this.baseLines.length && this.baseLines[i] <= to; i++)
        lines[count++] = this.baseLines[i] + delta;
    };
    for (const s of this.edited) {
      copyBase(at, s.start);
      const start = s.start + delta;
      for (const line of s.lineStarts) lines[count++] = start + line;
      delta += s.text.length - (s.end - s.start);
      at = s.end;
    }
    copyBase(at, this.base.length);
    this.base = text;
    this.baseLines = lines;
    this.edited = [];
    this.joined = undefined;
  }

  /** Takes one content change (a reversed range is taken as its ends swapped, as TextDocument does). */
  update(change: TextDocumentContentChangeEvent, version: number): void {
    this.currentVersion = version;
    this.joined = undefined;
    if (!('range' in change)) {
      // The whole text replaced: one stretch over all of the base.
      const text = change.text;
      this.edited = [{ start: 0, end: this.base.length, text, lineStarts: lineStartsOf(text, false) }];
      return;
    }
    const a = this.offsetAt(change.range.start);
    const b = this.offsetAt(change.range.end);
    let [from, to] = a <= b ? [a, b] : [b, a];
    let text = change.text;
    // Keep \r\n pairs off the stretch's edges: take in a \r before it and a \n after it.
    if (from > 0 && this.charCodeAt(from - 1) === CR) {
      from--;
      text = '\r' + text;
    }
    if (to < this.length && this.charCodeAt(to) === LF) {
      to++;
      text += '\n';
    }
    // The stretches this edit overlaps or touches merge with it into one.
    let first = 0;
    let delta = 0;
    while (first < this.edited.length && this.edited[first].start + delta + this.edited[first].text.length < from) {
      const s = this.edited[first];
      delta += s.text.length - (s.end - s.start);
      first++;
    }
    let last = first;
    let start = from;
    let end = to;
    let baseStart = from - delta;
    let deltaAfter = delta;
    while (last < this.edited.length && this.edited[last].start + deltaAfter <= to) {
      const s = this.edited[last];
      if (last === first && s.start + delta < from) {
        start = s.start + delta;
        baseStart = s.start;
      }
      deltaAfter += s.text.length - (s.end - s.start);
      end = Math.max(end, s.end + deltaAfter);
      last++;
    }
    const baseEnd = end - deltaAfter;
    const merged = this.slice(start, from) + text + this.slice(to, end);
    const replaced: Stretch[] =
      baseStart === baseEnd && merged === ''
        ? []
        : [{ start: baseStart, end: baseEnd, text: merged, lineStarts: lineStartsOf(merged, false) }];
    this.edited.splice(first, last - first, ...replaced);
  }

  offsetAt(position: Position): number {
    if (position.line < 0) return 0;
    const lineStart = this.lineStart(position.line);
    if (lineStart === undefined) return this.length;
    if (position.character <= 0) return lineStart;
    const next = this.lineStart(position.line + 1) ?? this.length;
    return this.beforeLineBreak(Math.min(lineStart + position.character, next), lineStart);
  }

  positionAt(offset: number): Position {
    const target = Math.max(Math.min(offset, this.length), 0);
    // The line is the number of line starts after 0 at or before the offset.
    let line = 0;
    let delta = 0;
    let at = 0;
    let lineStart = 0;
    const countBase = (from: number, to: number): void => {
      const first = upperBound(this.baseLines, from);
      const upTo = Math.min(upperBound(this.baseLines, to), upperBound(this.baseLines, target - delta));
      if (upTo > first) {
        line += upTo - first;
        lineStart = this.baseLines[upTo - 1] + delta;
      }
    };
    for (const s of this.edited) {
      if (s.start + delta > target) break;
      countBase(at, s.start);
      const start = s.start + delta;
      for (const l of s.lineStarts) {
        if (start + l > target) break;
        line++;
        lineStart = start + l;
      }
      delta += s.text.length - (s.end - s.start);
      at = s.end;
    }
    if (at + delta <= target) countBase(at, this.base.length);
    return { line, character: this.beforeLineBreak(target, lineStart) - lineStart };
  }

  /** Where line `line` (≥ 0) of the current text starts; undefined past the last line. */
  private lineStart(line: number): number | undefined {
    if (line === 0) return 0;
    let seen = 0;
    let delta = 0;
    let at = 0;
    for (const s of this.edited) {
      const inBase = this.baseLinesIn(at, s.start);
      if (line <= seen + inBase) return this.baseLines[upperBound(this.baseLines, at) + line - seen - 1] + delta;
      seen += inBase;
      if (line <= seen + s.lineStarts.length) return s.start + delta + s.lineStarts[line - seen - 1];
      seen += s.lineStarts.length;
      delta += s.text.length - (s.end - s.start);
      at = s.end;
    }
    const inBase = this.baseLinesIn(at, this.base.length);
    if (line <= seen + inBase) return this.baseLines[upperBound(this.baseLines, at) + line - seen - 1] + delta;
    return undefined;
  }

  /** How many base lines start in (from, to]. */
  private baseLinesIn(from: number, to: number): number {
    return upperBound(this.baseLines, to) - upperBound(this.baseLines, from);
  }

  /** Steps back over line break characters, not before `lineStart`. */
  private beforeLineBreak(offset: number, lineStart: number): number {
    let at = offset;
    while (at > lineStart && isLineBreak(this.charCodeAt(at - 1))) at--;
    return at;
  }

  private charCodeAt(offset: number): number {
    let delta = 0;
    for (const s of this.edited) {
      const start = s.start + delta;
      if (offset < start) break;
      if (offset < start + s.text.length) return s.text.charCodeAt(offset - start);
      delta += s.text.length - (s.end - s.start);
    }
    return this.base.charCodeAt(offset - delta);
  }

  /** current text [from, to), read from the base and the stretches. */
  private slice(from: number, to: number): string {
    if (from >= to) return '';
    let result = '';
    let delta = 0;
    let at = 0;
    for (const s of this.edited) {
      const start = s.start + delta;
      if (start >= to) break;
      result += this.base.slice(Math.max(from - delta, at), Math.min(to - delta, s.start));
      result += s.text.slice(Math.max(from - start, 0), Math.max(Math.min(to - start, s.text.length), 0));
      delta += s.text.length - (s.end - s.start);
      at = s.end;
    }
    result += this.base.slice(Math.max(from - delta, at), Math.max(to - delta, at));
    return result;
  }
}

/** Offsets where a line starts in `text`: after \n, \r\n or a lone \r; with 0 first when `withFirst`. */
function lineStartsOf(text: string, withFirst: boolean): number[] {
  const result = withFirst ? [0] : [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === CR || ch === LF) {
      if (ch === CR && text.charCodeAt(i + 1) === LF) i++;
      result.push(i + 1);
    }
  }
  return result;
}

function isLineBreak(ch: number): boolean {
  return ch === CR || ch === LF;
}

/** How many of the sorted `values` are ≤ `value`. */
function upperBound(values: Int32Array, value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
