/**
 * A direct reader of the plain YAML that lab files are nearly always written
 * in: block maps and lists by indentation, one-line flow lists and maps of
 * plain scalars, plain scalars, comments. It gives exactly the outline that
 * buildOutline gives from the `yaml` package's syntax tree, several times
 * faster and without that tree's garbage, so that opening a 10,000-node lab
 * costs a fraction of a full parse. Anything outside that subset (quotes,
 * anchors, tags, block scalars, multi-line values, floats, tabs, explicit keys,
 * directives, any syntax error) is refused, and the caller parses with the
 * `yaml` package as before, or reads around the first line refused (parse.ts).
 */
import type { OutlineEntry, OutlineItem, OutlineMap, OutlineScalar, OutlineSeq, OutlineValue } from './outline';

/** Characters the subset has nowhere (quotes, anchors, tags, block scalars, tabs, CR, controls): such a text goes to the `yaml` package. */
// eslint-disable-next-line no-control-regex -- control characters are among what it must find
const OUTSIDE_SUBSET = /["'&*!|>%`?@\\\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;
/** A key: a plain scalar without spaces or colons, then `:` at the end of the line or before a space. */
const KEY = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*(?=:(?: |$))/;
/** A plain scalar in block context (a value after `key: ` or `- `). */
const BLOCK_PLAIN = /^(?:[A-Za-z0-9_./(]|-(?! ))(?:[^:]|:(?! ))*$/;
/** A plain scalar in a flow list or map: no spaces, no flow indicators. */
const FLOW_PLAIN = /^(?:[A-Za-z0-9_./(]|-(?=[^\s,[\]{}#]))[^\s,[\]{}#]*$/;
/** Scalars whose value this reader does not resolve itself (floats, octal, hex, infinities, NaN). */
const UNRESOLVED =
  /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** Longer implicit keys are an error in YAML; the parser says so. */
const MAX_KEY_LENGTH = 1000;
/** Deeper nesting goes to the parser (buildOutline makes it opaque past its own limit). */
const MAX_DEPTH = 32;

interface Line {
  indent: number;
  /** Offsets of the content: from the first non-space to the end without a trailing comment and spaces. */
  start: number;
  end: number;
}

class Outside extends Error {
  constructor(readonly wholeText: boolean) {
    super();
  }
}

/** Refuses the line being read: it is broken, or written in a way outside the subset. */
function outside(): never {
  throw new Outside(false);
}

/** Refuses the text as a whole for valid YAML that the subset leaves out (a float, deep nesting): only the parser reads it right. */
function beyondSubset(): never {
  throw new Outside(true);
}

/**
 * The outline of `src` (offsets into it) when it is a block map in the plain
 * subset. Otherwise the start of the first line the reader refused (a
 * half-typed line, an unclosed bracket, a multi-line value), or neither when it
 * refused the text as a whole (a quote or another character outside the subset,
 * a float).
 */
export type PlainReading = { root: OutlineMap; refusedAt?: undefined } | { root?: undefined; refusedAt?: number };

/**
 * Told of what the reader has read as soon as it has: each top-level entry,
 * and each item of a top-level entry's block map or list (a node, a network, a
 * link), whose place in the outline takes what `item` returns. The layout
 * reads a lab's items so as they come and keeps only their heads: the values
 * of a large lab then never exist all at once, and their garbage dies young
 * (in the young generation) instead of fragmenting the old one, which V8 then
 * keeps resident (layout.ts, ItemsAsRead).
 */
export interface ReadAsItGoes {
  entry(entry: OutlineEntry): void;
  item<T extends OutlineEntry | OutlineItem>(sectionKey: string, kind: 'map' | 'seq', item: T, index: number): T;
}

export function readPlainOutline(src: string, told?: ReadAsItGoes): PlainReading {
  if (OUTSIDE_SUBSET.test(src)) return {};
  const lines = contentLines(src);
  if (lines.length === 0 || lines[0].indent !== 0) return {};
  const reader = new Reader(src, lines, told);
  try {
    const root = reader.blockMap(0, 0);
    return reader.done() ? { root } : {};
  } catch (error) {
    if (error instanceof Outside) return error.wholeText ? {} : { refusedAt: reader.refusedLineStart() };
    throw error;
  }
}

/**
 * One piece of a lab's layout read alone (its text from the start of its
 * first line, offsets into it): the one list item (`item`) or map entry it
 * holds, as readPlainOutline reads it in the whole text. Undefined when the
 * reader refuses it or it holds more or fewer than one.
 */
export function readPlainPiece(src: string, item: boolean): OutlineEntry | OutlineItem | undefined {
  if (OUTSIDE_SUBSET.test(src)) return undefined;
  const lines = contentLines(src);
  if (lines.length === 0) return undefined;
  const reader = new Reader(src, lines);
  try {
    const { indent } = lines[0];
    // The depth it is read at in the whole text: 0 for a top-level entry, 1 for an item of a section's value.
    const depth = indent === 0 ? 0 : 1;
    const read = item ? reader.blockSeq(indent, depth).items : reader.blockMap(indent, depth).entries;
    return reader.done() && read.length === 1 ? read[0] : undefined;
  } catch (error) {
    if (error instanceof Outside) return undefined;
    throw error;
  }
}

/** The lines with content, comments and trailing spaces cut off. */
function contentLines(src: string): Line[] {
  const lines: Line[] = [];
  let lineStart = 0;
  while (lineStart < src.length) {
    let lineEnd = src.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = src.length;
    let start = lineStart;
    while (start < lineEnd && src.charCodeAt(start) === 32) start++;
    if (start < lineEnd && src.charCodeAt(start) !== 35) {
      // No quotes in the subset: a `#` after a space always starts a comment.
      let end = start;
      while (end < lineEnd && !(src.charCodeAt(end) === 35 && src.charCodeAt(end - 1) === 32)) end++;
      while (end > start && src.charCodeAt(end - 1) === 32) end--;
      lines.push({ indent: start - lineStart, start, end });
    }
    lineStart = lineEnd + 1;
  }
  return lines;
}

class Reader {
  private next = 0;
  /** The line being read: the one refused when the reader gives up. */
  private current: Line | undefined;
  /**
   * One string per distinct scalar: a lab repeats the same keys, templates and
   * interface names thousands of times, and each slice would be a string of its own.
   */
  private readonly strings = new Map<string, string>();
  /** The key of the top-level entry being read. */
  private section = '';

  constructor(
    private readonly src: string,
    private readonly lines: Line[],
    private readonly told?: ReadAsItGoes,
  ) {}

  done(): boolean {
    return this.next === this.lines.length;
  }

  refusedLineStart(): number | undefined {
    // Also for the first key of a `- key:` item, whose line keeps the key's column as its indent.
    return this.current && this.current.start - this.current.indent;
  }

  /** The block map whose entries start at column `indent`, from the current line. */
  blockMap(indent: number, depth: number): OutlineMap {
    if (depth > MAX_DEPTH) beyondSubset();
    const entries: OutlineEntry[] = [];
    for (let line = this.lines[this.next]; line && line.indent >= indent; line = this.lines[this.next]) {
      this.current = line;
      if (line.indent > indent) outside();
      const entry = this.entry(line, indent, depth);
      if (depth === 0) this.told?.entry(entry);
      entries.push(
        depth === 1 && this.told ? this.told.item<OutlineEntry>(this.section, 'map', entry, entries.length) : entry,
      );
    }
    return {
      kind: 'map',
      flow: false,
      // A copy of its length: the list pushed to holds room for 17 or more (a node's few entries, 37,000 maps at 10,000 nodes).
      entries: entries.slice(),
      range: { start: entries[0].keyRange.start, end: entries[entries.length - 1].range.end },
    };
  }

  /** The block list whose dashes are at column `indent`, from the current line. */
  blockSeq(indent: number, depth: number): OutlineSeq {
    if (depth > MAX_DEPTH) beyondSubset();
    const items: OutlineItem[] = [];
    for (let line = this.lines[this.next]; line && line.indent >= indent; line = this.lines[this.next]) {
      this.current = line;
      if (line.indent > indent || !this.isDash(line)) outside();
      const item = this.item(line, indent, depth);
      items.push(depth === 1 && this.told ? this.told.item(this.section, 'seq', item, items.length) : item);
    }
    return {
      kind: 'seq',
      flow: false,
      items: items.slice(),
      range: { start: items[0].range.start, end: items[items.length - 1].range.end },
    };
  }

  private entry(line: Line, indent: number, depth: number): OutlineEntry {
    const key = KEY.exec(this.src.slice(line.start, line.end))?.[0];
    if (key === undefined || key.length > MAX_KEY_LENGTH) outside();
    const keyScalar = this.scalar(key, line.start);
    if (depth === 0) this.section = keyScalar.text;
    const colon = line.start + key.length;
    this.next++;
    let valueStart = colon + 1;
    while (valueStart < line.end && this.src.charCodeAt(valueStart) === 32) valueStart++;
    const value = valueStart < line.end ? this.inline(valueStart, line.end, indent) : this.nested(indent, depth);
    return {
      key: keyScalar.text,
      keyRange: keyScalar.range,
      oddKey: false,
      explicit: false,
      range: { start: line.start, end: value ? value.range.end : colon + 1 },
      value,
    };
  }

  private item(line: Line, indent: number, depth: number): OutlineItem {
    const dash = line.start;
    let valueStart = dash + 1;
    while (valueStart < line.end && this.src.charCodeAt(valueStart) === 32) valueStart++;
    let value: OutlineValue | undefined;
    if (valueStart === line.end) {
      this.next++;
      value = this.nested(indent, depth);
    } else if (KEY.test(this.src.slice(valueStart, line.end))) {
      // `- key: …`: a map whose entries line up with this first key; this line becomes its first.
      const column = line.indent + valueStart - dash;
      this.lines[this.next] = { indent: column, start: valueStart, end: line.end };
      value = this.blockMap(column, depth + 1);
    } else {
      this.next++;
      value = this.inline(valueStart, line.end, indent);
    }
    return { range: { start: dash, end: value ? value.range.end : dash + 1 }, value };
  }

  /** The value on the lines below a `key:` or `-` at `indent`: a block map or list indented further, or nothing. */
  private nested(indent: number, depth: number): OutlineValue | undefined {
    const line = this.lines[this.next] as Line | undefined;
    if (!line || line.indent <= indent) return undefined;
    return this.isDash(line) ? this.blockSeq(line.indent, depth + 1) : this.blockMap(line.indent, depth + 1);
  }

  /** A value written on its line after `key: ` or `- `: a flow list, a flow map or a plain scalar. */
  private inline(start: number, end: number, indent: number): OutlineValue {
    // A more indented line after it would continue a multi-line scalar or be an error.
    const following = this.lines[this.next] as Line | undefined;
    if (following && following.indent > indent) {
      this.current = following;
      outside();
    }
    const text = this.src.slice(start, end);
    if (text.startsWith('[')) return this.flowSeq(start, end);
    if (text.startsWith('{')) return this.flowMap(start, end);
    if (!BLOCK_PLAIN.test(text) || text.endsWith(':')) outside();
    return this.scalar(text, start);
  }

  private flowSeq(start: number, end: number): OutlineSeq {
    if (this.src.charCodeAt(end - 1) !== 93) outside();
    const items = this.flowParts(start + 1, end - 1).map(([from, to]): OutlineItem => {
      const text = this.src.slice(from, to);
      if (!FLOW_PLAIN.test(text) || text.endsWith(':')) outside();
      const value = this.scalar(text, from);
      return { range: value.range, value };
    });
    return { kind: 'seq', flow: true, items, range: { start, end } };
  }

  private flowMap(start: number, end: number): OutlineMap {
    if (this.src.charCodeAt(end - 1) !== 125) outside();
    const entries = this.flowParts(start + 1, end - 1).map(([from, to]): OutlineEntry => {
      const match = /^([^\s:]+): +(\S+)$/.exec(this.src.slice(from, to));
      if (!match || !FLOW_PLAIN.test(match[1]) || !FLOW_PLAIN.test(match[2]) || match[2].includes(':')) outside();
      const key = this.scalar(match[1], from);
      const value = this.scalar(match[2], to - match[2].length);
      return {
        key: key.text,
        keyRange: key.range,
        oddKey: false,
        explicit: false,
        range: { start: from, end: to },
        value,
      };
    });
    return { kind: 'map', flow: true, entries, range: { start, end } };
  }

  /**
   * The comma-separated parts between a flow collection's brackets, trimmed; none for `[]`; no empty part.
   * The commas are looked for between the brackets alone: indexOf would run on to the next comma of the
   * text, as far as its end, for the last part of every collection (quadratic in a text without commas).
   */
  private flowParts(start: number, end: number): [number, number][] {
    const parts: [number, number][] = [];
    let from = start;
    for (;;) {
      let to = from;
      while (to < end && this.src.charCodeAt(to) !== 44) to++;
      let a = from;
      let b = to;
      while (a < b && this.src.charCodeAt(a) === 32) a++;
      while (b > a && this.src.charCodeAt(b - 1) === 32) b--;
      if (a === b) {
        if (to === end && parts.length === 0) return parts;
        outside();
      }
      parts.push([a, b]);
      if (to === end) return parts;
      from = to + 1;
    }
  }

  private scalar(text: string, start: number): OutlineScalar {
    let shared = this.strings.get(text);
    if (shared === undefined) {
      shared = text;
      this.strings.set(text, text);
    }
    return scalar(shared, start);
  }

  private isDash(line: Line): boolean {
    const code = this.src.charCodeAt(line.start + 1);
    return this.src.charCodeAt(line.start) === 45 && (line.end === line.start + 1 || code === 32);
  }
}

/** A plain scalar, its value resolved as the YAML core schema does. */
function scalar(text: string, start: number): OutlineScalar {
  let value: unknown = text;
  if (/^[-+]?[0-9]+$/.test(text)) value = Number(text);
  else if (UNRESOLVED.test(text)) beyondSubset();
  else if (/^(?:null|Null|NULL)$/.test(text)) value = null;
  else if (/^(?:true|True|TRUE)$/.test(text)) value = true;
  else if (/^(?:false|False|FALSE)$/.test(text)) value = false;
  return { kind: 'scalar', range: { start, end: start + text.length }, value, text, quoted: false, innerOffset: 0 };
}
