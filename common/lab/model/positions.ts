/**
 * Offsets ↔ line/character positions. The model counts in string offsets,
 * which are UTF-16 code units, the unit LSP positions use by default; so only
 * line starts need indexing. Line breaks are \n, \r\n and a lone \r, as in LSP.
 */
import type { Range } from './types';

export interface Position {
  line: number;
  character: number;
}

export interface LineRange {
  start: Position;
  end: Position;
}

export class LineIndex {
  /** Offset of the first character of each line. */
  private readonly lineStarts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      } else if (code === 10) {
        starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** The position of an offset, clamped to the text. */
  positionAt(offset: number): Position {
    const at = clamp(offset, 0, this.text.length);
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return { line: low, character: at - this.lineStarts[low] };
  }

  /** The offset of a position; a line or character past the end is clamped, as LSP asks. */
  offsetAt(position: Position): number {
    if (position.line < 0) return 0;
    if (position.line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[position.line];
    const end = this.lineContentEnd(position.line);
    return clamp(start + Math.max(0, position.character), start, end);
  }

  toLineRange(range: Range): LineRange {
    return { start: this.positionAt(range.start), end: this.positionAt(range.end) };
  }

  toRange(range: LineRange): Range {
    const start = this.offsetAt(range.start);
    return { start, end: Math.max(start, this.offsetAt(range.end)) };
  }

  /** The offset just before the line break that ends `line`. */
  private lineContentEnd(line: number): number {
    const next = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] : this.text.length;
    let end = next;
    if (end > this.lineStarts[line] && (this.text.charCodeAt(end - 1) === 10 || this.text.charCodeAt(end - 1) === 13))
      end--;
    if (end > this.lineStarts[line] && this.text.charCodeAt(end) === 10 && this.text.charCodeAt(end - 1) === 13) end--;
    return end;
  }
}

function clamp(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return value > 0 ? max : min;
  return Math.min(Math.max(Math.trunc(value), min), max);
}
