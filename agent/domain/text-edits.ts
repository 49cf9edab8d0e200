/**
 * Changes to a lab document made as text edits of the client's own text, so
 * that only the lines that must change do: re-rendering the whole document
 * with the `yaml` library would reflow folded scalars and collapse aligned
 * comments elsewhere. Each method returns false when the document's shape
 * (flow collections, unusual layout) does not allow a line-exact edit; the
 * caller then renders the document instead.
 */
import { isMap, isScalar, isSeq, stringify, type Document, type Pair, type YAMLMap } from 'yaml';
import { lineStartOf } from '../../common/text-lines';
import {
  applyEdits,
  indentAt,
  insertLinesAfter,
  removeLines,
  type OffsetEdit,
} from '../../common/lab/model/line-edits';

type Path = readonly (string | number)[];

/** One YAML value as it would be written after `key: ` on one line, or undefined when it needs several. */
function inlineValue(value: unknown): string | undefined {
  const text = stringify(value, { flowCollectionPadding: false, lineWidth: 0, collectionStyle: 'flow' }).replace(
    /\n$/,
    '',
  );
  return text.includes('\n') ? undefined : text;
}

export class LineEditor {
  private readonly edits: OffsetEdit[] = [];

  constructor(
    private readonly text: string,
    private readonly doc: Document,
  ) {}

  /** The edited text, or undefined when two edits overlap (the caller renders instead). */
  result(): string | undefined {
    return applyEdits(this.text, this.edits);
  }

  /** Replaces a one-line value (scalar or flow collection) in place, or adds `key: value` as the last line of its block map. */
  setScalar(path: Path, value: unknown): boolean {
    const written = inlineValue(value);
    if (written === undefined) return false;
    const current = this.doc.getIn(path, true);
    if (current === undefined) {
      const parent = this.doc.getIn(path.slice(0, -1), true);
      return isMap(parent) && this.appendToMap(parent, [`${String(path[path.length - 1])}: ${written}`]);
    }
    const range = (current as { range?: [number, number, number] }).range;
    const oneLine =
      (isScalar(current) && current.type !== 'BLOCK_FOLDED' && current.type !== 'BLOCK_LITERAL') ||
      ((isMap(current) || isSeq(current)) && current.flow === true);
    if (!oneLine || !range || this.text.slice(range[0], range[1]).includes('\n')) return false;
    this.edits.push({ start: range[0], end: range[1], text: written });
    return true;
  }

  /** Adds `name:` with the entry's fields below it after the last entry of the block map at `path`. */
  appendEntryToMap(path: Path, name: string, entry: Record<string, unknown>): boolean {
    const map = this.doc.getIn(path, true);
    if (!isMap(map)) return false;
    const step = this.childStep(map);
    const fields = Object.entries(entry).map(([key, value]) => [key, inlineValue(value)] as const);
    if (step === undefined || fields.some(([, value]) => value === undefined)) return false;
    return this.appendToMap(map, [`${name}:`, ...fields.map(([key, value]) => `${step}${key}: ${value}`)]);
  }

  /** Removes a key of a block map with its value, nested lines included. */
  deletePair(path: Path): boolean {
    const parent = this.doc.getIn(path.slice(0, -1), true);
    if (!isMap(parent) || parent.flow) return false;
    const key = path[path.length - 1];
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (!pair) return true;
    return this.removeLines(pairStart(pair), pairEnd(pair));
  }

  /** Removes item `index` of a block sequence with everything nested under it. */
  deleteItem(path: Path, index: number): boolean {
    const seq = this.doc.getIn(path, true);
    if (!isSeq(seq) || seq.flow) return false;
    const item = seq.items[index] as { range?: [number, number, number] } | undefined;
    if (!item?.range) return false;
    // The item's own line starts at its dash, before the item's first character.
    const dash = this.text.lastIndexOf('-', item.range[0]);
    return this.removeLines(dash, item.range[1]);
  }

  /** Adds an item (one line, without its dash) at the end of the block sequence at `path`. */
  appendItem(path: Path, line: string): boolean {
    const seq = this.doc.getIn(path, true);
    if (!isSeq(seq) || seq.flow || seq.items.length === 0) return false;
    const last = seq.items[seq.items.length - 1] as { range?: [number, number, number] };
    const first = seq.items[0] as { range?: [number, number, number] };
    if (!last.range || !first.range) return false;
    const indent = indentAt(this.text, this.text.lastIndexOf('-', first.range[0]));
    return indent !== undefined && this.insertAfterLine(last.range[1], [`${indent}- ${line}`]);
  }

  /** Lines (indented relative to the map's keys) after the map's last entry. */
  private appendToMap(map: YAMLMap, lines: string[]): boolean {
    if (map.flow || map.items.length === 0) return false;
    const indent = indentAt(this.text, pairStart(map.items[0]));
    if (indent === undefined) return false;
    return this.insertAfterLine(
      pairEnd(map.items[map.items.length - 1]),
      lines.map((line) => indent + line),
    );
  }

  /** How much deeper than its own keys the map's entries indent their fields (two spaces when none shows). */
  private childStep(map: YAMLMap): string | undefined {
    const own = map.items.length ? indentAt(this.text, pairStart(map.items[0])) : undefined;
    if (own === undefined) return undefined;
    for (const pair of map.items) {
      if (isMap(pair.value) && !pair.value.flow && pair.value.items.length > 0) {
        const child = indentAt(this.text, pairStart(pair.value.items[0]));
        if (child !== undefined && child.length > own.length) return ' '.repeat(child.length - own.length);
      }
    }
    return '  ';
  }

  /** `offset` is where a value ends, which for a block collection is past its last newline. */
  private insertAfterLine(offset: number, lines: string[]): boolean {
    this.edits.push(insertLinesAfter(this.text, Math.max(0, offset - 1), lines));
    return true;
  }

  /** Removes whole lines from the one holding `start` (only indentation or a dash before it) to the one holding `end`. */
  private removeLines(start: number, end: number): boolean {
    if (this.text.slice(lineStartOf(this.text, start), start).trim().replace(/^-$/, '') !== '') return false;
    this.edits.push(removeLines(this.text, start, end));
    return true;
  }
}

function pairStart(pair: Pair): number {
  const key = pair.key as { range?: [number, number, number] } | null;
  return key?.range?.[0] ?? 0;
}

/** Where a pair's value ends (its trailing comment on the same line is kept with the line). */
function pairEnd(pair: Pair): number {
  const value = pair.value as { range?: [number, number, number] } | null;
  const key = pair.key as { range?: [number, number, number] } | null;
  return value?.range?.[1] ?? key?.range?.[1] ?? 0;
}
