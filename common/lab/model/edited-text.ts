/**
 * The text of one version of a lab document, as the last whole copy of it
 * and the stretches edited since. An edit must not copy the whole text: at
 * 10,000 nodes that is a 2 MB string, and a string that long is a large
 * object, allocated fresh (about 13 ms here, and garbage the next keystroke).
 * The incremental reparse reads only around the edit (slice, charCodeAt,
 * indexOf); the whole string is made when someone asks for it, once.
 */
import type { TextLike } from '../../text-lines';

/** base[start, end) replaced by `text`. */
interface Stretch {
  start: number;
  end: number;
  text: string;
}

/** A run of the current text: `text`[from, to), starting at `at` in the current text. */
interface Segment {
  at: number;
  text: string;
  from: number;
  to: number;
}

/** Stretches kept apart at most; one more makes the whole text anew (edits in that many places are a rare burst). */
const MAX_STRETCHES = 32;
/** Characters of edited text kept at most before the whole text is made anew. */
const MAX_EDITED = 256 * 1024;

export class EditedText implements TextLike {
  private whole?: string;
  private segmentsMemo?: Segment[];

  private constructor(
    private readonly base: string,
    /** Sorted by start, disjoint and never touching (an edit next to one merges into it). */
    private readonly stretches: readonly Stretch[],
    readonly length: number,
  ) {}

  static of(text: string): EditedText {
    const result = new EditedText(text, [], text.length);
    result.whole = text;
    return result;
  }

  /** The whole text (made once). */
  toString(): string {
    if (this.whole === undefined)
      this.whole = this.segments()
        .map((s) => s.text.slice(s.from, s.to))
        .join('');
    return this.whole;
  }

  /** This text with [start, end) replaced by `text` (offsets clamped to this text). */
  edited(start: number, end: number, text: string): EditedText {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    const length = this.length - (to - from) + text.length;
    // Once made whole, a text is the base of the next one.
    const base = this.whole !== undefined && this.stretches.length > 0 ? EditedText.of(this.whole) : this;
    if (base !== this) return base.edited(from, to, text);
    // The stretches this edit overlaps or touches merge with it into one.
    const kept: Stretch[] = [];
    let delta = 0;
    let i = 0;
    for (; i < this.stretches.length; i++) {
      const s = this.stretches[i];
      if (s.start + delta + s.text.length >= from) break;
      kept.push(s);
      delta += s.text.length - (s.end - s.start);
    }
    let spanStart = from;
    let spanEnd = to;
    let baseStart = from - delta;
    let deltaAfter = delta;
    for (; i < this.stretches.length; i++) {
      const s = this.stretches[i];
      if (s.start + deltaAfter > to) break;
      if (s.start + deltaAfter < spanStart) {
        spanStart = s.start + deltaAfter;
        baseStart = s.start;
      }
      deltaAfter += s.text.length - (s.end - s.start);
      spanEnd = Math.max(spanEnd, s.end + deltaAfter);
    }
    const merged = this.slice(spanStart, from) + text + this.slice(to, spanEnd);
    const baseEnd = spanEnd - deltaAfter;
    if (baseStart !== baseEnd || merged !== '') kept.push({ start: baseStart, end: baseEnd, text: merged });
    for (; i < this.stretches.length; i++) kept.push(this.stretches[i]);
    const result = new EditedText(this.base, kept, length);
    const edited = kept.reduce((sum, s) => sum + s.text.length, 0);
    return kept.length > MAX_STRETCHES || edited > MAX_EDITED ? EditedText.of(result.toString()) : result;
  }

  slice(start = 0, end = this.length): string {
    const from = Math.max(0, Math.min(start < 0 ? this.length + start : start, this.length));
    const to = Math.max(from, Math.min(end < 0 ? this.length + end : end, this.length));
    if (this.whole !== undefined) return this.whole.slice(from, to);
    const segments = this.segments();
    let result = '';
    for (let i = segmentAt(segments, from); i < segments.length && segments[i].at < to; i++) {
      const s = segments[i];
      result += s.text.slice(s.from + Math.max(0, from - s.at), s.from + Math.min(s.to - s.from, to - s.at));
    }
    return result;
  }

  charCodeAt(offset: number): number {
    if (this.whole !== undefined) return this.whole.charCodeAt(offset);
    if (offset < 0 || offset >= this.length) return NaN;
    const s = this.segments()[segmentAt(this.segments(), offset)];
    return s.text.charCodeAt(s.from + offset - s.at);
  }

  indexOf(search: string, position = 0): number {
    if (this.whole !== undefined) return this.whole.indexOf(search, position);
    // Found within a segment, or across two: search the segment with the next one's first characters.
    const segments = this.segments();
    const from = Math.max(0, position);
    for (let i = segmentAt(segments, from); i < segments.length; i++) {
      const s = segments[i];
      const start = Math.max(from, s.at);
      const text = this.slice(start, s.at + (s.to - s.from) + search.length - 1);
      const found = text.indexOf(search);
      if (found >= 0) return start + found;
    }
    return -1;
  }

  lastIndexOf(search: string, position = Infinity): number {
    if (this.whole !== undefined) return this.whole.lastIndexOf(search, position);
    const segments = this.segments();
    if (search.length > this.length) return -1;
    const from = Math.max(0, Math.min(position, this.length - search.length));
    // Found starting within a segment, perhaps running into the next: search it with the next one's first characters.
    for (let i = segmentAt(segments, from); i >= 0; i--) {
      const s = segments[i];
      const found = this.slice(s.at, Math.min(from, s.at + (s.to - s.from) - 1) + search.length).lastIndexOf(search);
      if (found >= 0) return s.at + found;
    }
    return -1;
  }

  /** The runs of the current text, in order: base between stretches, and each stretch's text. */
  private segments(): Segment[] {
    if (this.segmentsMemo) return this.segmentsMemo;
    const segments: Segment[] = [];
    let at = 0;
    let baseAt = 0;
    const push = (text: string, from: number, to: number) => {
      if (to <= from) return;
      segments.push({ at, text, from, to });
      at += to - from;
    };
    for (const s of this.stretches) {
      push(this.base, baseAt, s.start);
      push(s.text, 0, s.text.length);
      baseAt = s.end;
    }
    push(this.base, baseAt, this.base.length);
    this.segmentsMemo = segments;
    return segments;
  }
}

/** The index of the segment holding `offset` (the last one starting at or before it). */
function segmentAt(segments: readonly Segment[], offset: number): number {
  let low = 0;
  let high = segments.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (segments[middle].at <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
