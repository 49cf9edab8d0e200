/**
 * The outline: a plain tree of maps, lists and scalars with source ranges,
 * converted once from the `yaml` package's syntax tree. The lab model is read
 * from it, and paths (`['nodes', 'r1', 'cpu']`) are resolved against it.
 * Keeping our own small tree decouples the model from the parser's classes and
 * lets the incremental reparse keep re-read pieces and shift them cheaply.
 */
import { isAlias, isMap, isScalar, isSeq, Scalar, type Node as YamlNode, type CST } from 'yaml';
import type { PathAt, Range } from '../model/types';

export interface OutlineScalar {
  kind: 'scalar';
  range: Range;
  /** The parsed value: a string, number, boolean or null (for `null` and `~`). */
  value: unknown;
  /** The value as text: strings as they are, other scalars as written (`1.10`, not 1.1). */
  text: string;
  quoted: boolean;
  /** Offset of the value's first character from range.start when the source spells the value out literally. */
  innerOffset?: number;
}

/** A value the format does not read: an alias (`*name`), or nesting deeper than any lab needs. */
export interface OutlineOpaque {
  kind: 'opaque';
  range: Range;
  reason: 'alias' | 'too-deep';
}

export interface OutlineMap {
  kind: 'map';
  range: Range;
  flow: boolean;
  entries: OutlineEntry[];
}

export interface OutlineSeq {
  kind: 'seq';
  range: Range;
  flow: boolean;
  items: OutlineItem[];
}

export type OutlineValue = OutlineScalar | OutlineOpaque | OutlineMap | OutlineSeq;

export interface OutlineEntry {
  /** The key as text (see OutlineScalar.text); the source text for a key that is not a scalar. */
  key: string;
  keyRange: Range;
  /** The key is not a plain scalar (`? [a, b]`, an alias) or is missing. */
  oddKey: boolean;
  /** Written with the explicit-key indicator `?`. */
  explicit: boolean;
  /** Key through value; through the colon when the value is empty. */
  range: Range;
  /** Absent when nothing follows the colon (`r1:` while typing). */
  value?: OutlineValue;
}

export interface OutlineItem {
  /** From the `-` indicator of a block list, else the value's range. */
  range: Range;
  value?: OutlineValue;
}

/** An entry or item without its value: what a piece of the layout always keeps (see piece-outline.ts). */
export type OutlineHead = Omit<OutlineEntry, 'value'> | Omit<OutlineItem, 'value'>;

/** Where the outline of a parsed text stands; one per parse, never shared. */
export interface OutlineBuild {
  src: string;
  /** Added to every offset: the position of `src` in the whole document. */
  base: number;
  /** Set when an alias was met (an alias ties distant parts of the text together). */
  sawAlias: boolean;
}

/** Nesting deeper than this is not part of any lab; stopping here keeps recursion bounded. */
const MAX_DEPTH = 48;

export function buildOutline(node: unknown, build: OutlineBuild, depth = 0): OutlineValue | undefined {
  if (node === null || node === undefined) return undefined;
  const yamlNode = node as YamlNode;
  const span = yamlNode.range ?? [0, 0, 0];
  if (isAlias(node)) {
    build.sawAlias = true;
    return { kind: 'opaque', range: offsetRange(build, span[0], span[1]), reason: 'alias' };
  }
  if (depth > MAX_DEPTH) return { kind: 'opaque', range: offsetRange(build, span[0], span[1]), reason: 'too-deep' };
  if (isScalar(node)) return scalarOutline(node, build);
  if (isMap(node)) {
    const token = node.srcToken;
    const blockItems = token?.type === 'block-map' ? token.items : undefined;
    const entries = node.items.map((pair, i) => entryOutline(pair.key, pair.value, blockItems?.[i], build, depth));
    const flow = !blockItems;
    const end =
      !flow && entries.length > 0 ? entries[entries.length - 1].range.end : trimmedEnd(build, span[0], span[1]);
    return { kind: 'map', flow, entries, range: { start: build.base + span[0], end } };
  }
  if (isSeq(node)) {
    const token = node.srcToken;
    const blockItems = token?.type === 'block-seq' ? token.items : undefined;
    const items = node.items.map((item, i) => itemOutline(item, blockItems?.[i], build, depth));
    const flow = !blockItems;
    const end = !flow && items.length > 0 ? items[items.length - 1].range.end : trimmedEnd(build, span[0], span[1]);
    return { kind: 'seq', flow, items, range: { start: build.base + span[0], end } };
  }
  return undefined;
}

function scalarOutline(node: Scalar, build: OutlineBuild): OutlineScalar | undefined {
  const [start, valueEnd] = node.range ?? [0, 0];
  if (node.value === null && start === valueEnd) return undefined;
  const source = build.src.slice(start, valueEnd);
  const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
  const text = typeof node.value === 'string' ? node.value : node.type === Scalar.PLAIN ? source : String(node.value);
  let innerOffset: number | undefined;
  if (node.type === Scalar.PLAIN && source === text) innerOffset = 0;
  else if (quoted && source.slice(1, -1) === text) innerOffset = 1;
  return { kind: 'scalar', range: offsetRange(build, start, valueEnd), value: node.value, text, quoted, innerOffset };
}

function entryOutline(
  key: unknown,
  value: unknown,
  token: CST.BlockMap['items'][number] | undefined,
  build: OutlineBuild,
  depth: number,
): OutlineEntry {
  const keyOutline = buildOutline(key, build, depth + 1);
  const valueOutline = buildOutline(value, build, depth + 1);
  const explicit = token?.explicitKey === true || token?.start.some((t) => t.type === 'explicit-key-ind') === true;
  let keyRange: Range;
  let keyText: string;
  if (keyOutline) {
    keyRange = keyOutline.range;
    keyText =
      keyOutline.kind === 'scalar'
        ? keyOutline.text
        : build.src.slice(keyRange.start - build.base, keyRange.end - build.base);
  } else {
    // `: value` (or broken text) has no key; place the empty key where the parser saw one, else at the colon.
    const at =
      (rangeStartOf(key) ??
        token?.sep?.find((t) => t.type === 'map-value-ind')?.offset ??
        rangeStartOf(value) ??
        token?.start[0]?.offset ??
        0) + build.base;
    keyRange = { start: at, end: at };
    keyText = '';
  }
  const indicator = token?.start.find((t) => t.type === 'explicit-key-ind');
  const start = indicator ? indicator.offset + build.base : keyRange.start;
  const end = valueOutline ? valueOutline.range.end : colonEnd(build, keyRange.end);
  return {
    key: keyText,
    keyRange,
    oddKey: keyOutline?.kind !== 'scalar',
    explicit,
    range: { start, end: Math.max(end, keyRange.end) },
    value: valueOutline,
  };
}

function itemOutline(
  item: unknown,
  token: CST.BlockSequence['items'][number] | undefined,
  build: OutlineBuild,
  depth: number,
): OutlineItem {
  const value = buildOutline(item, build, depth + 1);
  const dash = token?.start.find((t) => t.type === 'seq-item-ind');
  if (dash) {
    const start = dash.offset + build.base;
    return { range: { start, end: value ? value.range.end : start + 1 }, value };
  }
  const at = (rangeStartOf(item) ?? 0) + build.base;
  return { range: value ? value.range : { start: at, end: at }, value };
}

function rangeStartOf(node: unknown): number | undefined {
  return (node as YamlNode | null | undefined)?.range?.[0];
}

function offsetRange(build: OutlineBuild, start: number, end: number): Range {
  return { start: build.base + start, end: trimmedEnd(build, start, end) };
}

/** The end of [start, end) without trailing whitespace (block scalars and maps end after newlines). */
function trimmedEnd(build: OutlineBuild, start: number, end: number): number {
  let at = end;
  while (at > start && isSpace(build.src.charCodeAt(at - 1))) at--;
  return build.base + at;
}

/** Just past the `:` that follows a key ending at `keyEnd`, or keyEnd when there is none. */
function colonEnd(build: OutlineBuild, keyEnd: number): number {
  let at = keyEnd - build.base;
  while (build.src[at] === ' ' || build.src[at] === '\t') at++;
  return build.src[at] === ':' ? build.base + at + 1 : keyEnd;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Whether two outlines read the same, the first moved by `deltaA` and the second by `deltaB`. */
export function sameOutline(
  a: OutlineValue | undefined,
  deltaA: number,
  b: OutlineValue | undefined,
  deltaB: number,
): boolean {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind || !sameRange(a.range, deltaA, b.range, deltaB)) return false;
  switch (a.kind) {
    case 'scalar': {
      const other = b as OutlineScalar;
      return (
        a.value === other.value &&
        a.text === other.text &&
        a.quoted === other.quoted &&
        a.innerOffset === other.innerOffset
      );
    }
    case 'opaque':
      return a.reason === (b as OutlineOpaque).reason;
    case 'map': {
      const other = b as OutlineMap;
      return (
        a.flow === other.flow &&
        a.entries.length === other.entries.length &&
        a.entries.every((entry, i) => sameEntry(entry, deltaA, other.entries[i], deltaB))
      );
    }
    case 'seq': {
      const other = b as OutlineSeq;
      return (
        a.flow === other.flow &&
        a.items.length === other.items.length &&
        a.items.every((item, i) => sameItem(item, deltaA, other.items[i], deltaB))
      );
    }
  }
}

export function sameEntry(a: OutlineEntry, deltaA: number, b: OutlineEntry, deltaB: number): boolean {
  return (
    a.key === b.key &&
    a.oddKey === b.oddKey &&
    a.explicit === b.explicit &&
    sameRange(a.keyRange, deltaA, b.keyRange, deltaB) &&
    sameItem(a, deltaA, b, deltaB)
  );
}

export function sameItem(a: OutlineItem, deltaA: number, b: OutlineItem, deltaB: number): boolean {
  return sameRange(a.range, deltaA, b.range, deltaB) && sameOutline(a.value, deltaA, b.value, deltaB);
}

function sameRange(a: Range, deltaA: number, b: Range, deltaB: number): boolean {
  return a.start + deltaA === b.start + deltaB && a.end + deltaA === b.end + deltaB;
}

export function shiftRange(range: Range, delta: number): Range {
  return delta === 0 ? range : { start: range.start + delta, end: range.end + delta };
}

/** A path step as a list index: a number, or a string of digits as some JSON paths write it. */
export function listIndex(step: string | number): number | undefined {
  if (typeof step === 'number') return Number.isInteger(step) && step >= 0 ? step : undefined;
  return /^[0-9]+$/.test(step) ? Number(step) : undefined;
}

/**
 * The range of the value at `path` below `value` (ranges moved by `delta`),
 * or of the closest ancestor that exists; `own` is the range to use when the
 * path is empty or its first step already misses.
 */
export function rangeOfPathIn(
  value: OutlineValue | undefined,
  own: Range,
  path: readonly (string | number)[],
  delta: number,
): Range {
  let current = value;
  let found = own;
  for (const step of path) {
    let next: { range: Range; value?: OutlineValue } | undefined;
    if (current?.kind === 'map') {
      next = current.entries.find((e) => e.key === String(step));
    } else if (current?.kind === 'seq') {
      const index = listIndex(step);
      next = index === undefined ? undefined : current.items[index];
    }
    if (!next) break;
    found = shiftRange(next.value ? next.value.range : next.range, delta);
    current = next.value;
  }
  return found;
}

/** The innermost key or value at `offset` inside an entry whose parent is at `prefix`; ends are inclusive. */
export function pathAtEntry(
  entry: OutlineEntry,
  prefix: readonly (string | number)[],
  offset: number,
  delta: number,
): PathAt | undefined {
  if (!contains(shiftRange(entry.range, delta), offset)) return undefined;
  const path = [...prefix, entry.key];
  if (entry.value && contains(shiftRange(entry.value.range, delta), offset))
    return pathAtValue(entry.value, path, offset, delta);
  const keyRange = shiftRange(entry.keyRange, delta);
  if (contains(keyRange, offset)) return { path, on: 'key', range: keyRange };
  return { path, on: 'value', range: shiftRange(entry.value?.range ?? entry.range, delta) };
}

/** Like pathAtEntry for a list item; `path` already ends with the item's index. */
export function pathAtItem(
  item: OutlineItem,
  path: (string | number)[],
  offset: number,
  delta: number,
): PathAt | undefined {
  if (!contains(shiftRange(item.range, delta), offset)) return undefined;
  if (item.value && contains(shiftRange(item.value.range, delta), offset))
    return pathAtValue(item.value, path, offset, delta);
  return { path, on: 'value', range: shiftRange(item.value?.range ?? item.range, delta) };
}

function pathAtValue(value: OutlineValue, path: (string | number)[], offset: number, delta: number): PathAt {
  if (value.kind === 'map') {
    for (const entry of value.entries) {
      const found = pathAtEntry(entry, path, offset, delta);
      if (found) return found;
    }
  } else if (value.kind === 'seq') {
    for (let i = 0; i < value.items.length; i++) {
      const found = pathAtItem(value.items[i], [...path, i], offset, delta);
      if (found) return found;
    }
  }
  return { path, on: 'value', range: shiftRange(value.range, delta) };
}

function contains(range: Range, offset: number): boolean {
  return offset >= range.start && offset <= range.end;
}
