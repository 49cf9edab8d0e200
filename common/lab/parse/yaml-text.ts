/**
 * Parsing YAML text with the `yaml` package the one way the lab model needs:
 * with source tokens (for `-` and `?` positions), without pretty errors (their
 * code frames cost time and we place errors ourselves), not strict, and with
 * duplicate keys left to the model, which reports them per node and per setting.
 */
import { parseDocument, YAMLParseError, type Document } from 'yaml';
import type { SetAsideCode, SyntaxError } from '../model/types';

/**
 * Lines broken in a way that changes how everything after them reads are set aside first (see
 * setAsideLines), each with one error of its own. Every text the lab model reads (a whole lab, a
 * piece, a window) starts at a line's start outside any block scalar and is read here, so setting
 * aside a line is the same in a part as in the whole.
 */
export function parseYaml(src: string): Document.Parsed {
  const { text, lines } = setAsideLines(src);
  // Each syntax error is an Error, and text broken while typing has hundreds: their stack traces, which
  // nobody reads (only messages and offsets are kept), were half the cost of parsing it.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // Not strict: the errors it adds read nothing differently, and one of them (a key more than 1024 characters
    // before its `:`, counted from the junk before it in broken text) depends on text far before the key, which
    // no re-read of a part can see.
    const doc = parseDocument(text, { keepSourceTokens: true, prettyErrors: false, uniqueKeys: false, strict: false });
    for (const line of lines) doc.errors.push(new LineSetAside(line));
    return doc;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

interface SetAsideLine {
  /** The line without its line break (and without a CR before it). */
  start: number;
  end: number;
  code: SetAsideCode;
}

/** The error of a line set aside. */
class LineSetAside extends YAMLParseError {
  readonly setAside: SetAsideCode;
  constructor(line: SetAsideLine) {
    super([line.start, line.end], PARSE_CODES[line.code], MESSAGES[line.code]);
    this.setAside = line.code;
  }
}

const PARSE_CODES = {
  'tab-indentation': 'TAB_AS_INDENT',
  'unclosed-quote': 'MISSING_CHAR',
  'stray-bracket': 'UNEXPECTED_TOKEN',
  'unclosed-inner-bracket': 'MISSING_CHAR',
  'text-after-value': 'UNEXPECTED_TOKEN',
  'key-without-colon': 'MISSING_CHAR',
  'list-item-among-keys': 'UNEXPECTED_TOKEN',
  'key-among-list-items': 'UNEXPECTED_TOKEN',
} as const satisfies Record<SetAsideCode, string>;

const MESSAGES: Record<SetAsideCode, string> = {
  'tab-indentation':
    'a tab in indentation: YAML indents with spaces, so this line is not read; replace its tabs with spaces',
  'unclosed-quote':
    'an unclosed quote: a quoted string in a lab ends on the line it starts on, so this line is not read; close the quote (text over several lines goes in a block scalar, | or >)',
  'stray-bracket':
    'a stray bracket: a } or ] that closes nothing, or a { or [ right after a value that has ended, makes YAML read the rest of the lab differently, so this line is not read; remove the bracket and what follows it',
  'unclosed-inner-bracket':
    'a bracket left open inside another: a { or [ this line opens inside a flow collection that is never closed makes YAML read the rest of the lab into it, so this line is not read; close its brackets, and the one before it',
  'text-after-value':
    'text after a value that has ended: after the closing bracket or quote of a value only a comment may follow, and YAML may read the rest of the lab differently, so this line is not read; remove what follows the value',
  'key-without-colon':
    'a key without its colon: a word alone on a line where a key belongs makes YAML read the lines after it into it, so this line is not read; end the key with a colon (r1:)',
  'list-item-among-keys':
    'a list item among keys: a - where the keys of a map are (a link among the nodes?) makes YAML read the lines after it into it, so this line is not read; move it under the list it belongs to (links:), or indent it under its key',
  'key-among-list-items':
    'a key among list items: a key where the items of a list are (a node among the links?) makes YAML read the lines after it differently, so this line is not read; move it to the map it belongs to (nodes:), or indent it into an item',
};

/**
 * `src` with each line set aside replaced by as many spaces (offsets do not
 * move), and where those lines were. These breakages are set aside, each of
 * which the `yaml` package reads as changing everything after it, often to the
 * end of the lab, so that every keystroke after it re-read the rest (#29):
 *
 * - a tab in a line's indentation (spaces and tabs, at least one tab, then
 *   something other than a comment): the package ends the indentation at the
 *   tab and reads the rest of the line as an entry further left (one tab near
 *   the top made the rest of a 2,000-node lab one broken node);
 * - a quote (`"` or `'`) that starts a string and is not closed on its line:
 *   YAML lets a quoted string run over lines, so the package reads the rest of
 *   the lab up to the next such quote as one string. A lab keeps each quoted
 *   string on one line (docs/lab-format.md), so that typing `image: "vios`
 *   costs one error on that line;
 * - a stray bracket outside any flow collection: a `}` or `]` where a value
 *   starts (`ram: }`), or a `{` or `[` right after a flow collection or a
 *   quoted string has ended, or inside a flow collection after a value
 *   without a comma (`position: {x: 1, y: 2}{}`, typed where the
 *   editor closed a bracket): the package reads every line after it as broken;
 *   other text after such a value (`[r1:eth0, r2:eth0]3"0`) may do the same;
 * - a `{` or `[` left open on a line inside a flow collection that a line
 *   further left then ends unclosed (`endpoints: [r1:eth0` and under it
 *   `position: {x: 1, y`): one open bracket the package recovers from at the
 *   line further left, but not two, and it reads the rest of the lab into
 *   them (17,816 errors and 3 s a parse in a 10,000-node lab); set aside once
 *   the collection ends, or at the end of the text, which ends a part read
 *   alone where the whole goes on with a line further left;
 * - a key being typed, before its colon (`  r9` among the nodes): a line of one
 *   plain scalar where it cannot be a value (not indented past the key or
 *   dash of a line whose value it would continue, or of a `key:` whose value
 *   it would be): the package reads it as a key over several lines, and the
 *   nodes after it as its children;
 * - a list item among keys (a link typed among the nodes): a `- ` at the
 *   indentation of a block map's keys, other than right after a `key:` whose
 *   list it starts (`links:` and then `- …`): the nodes after it are lost;
 *   and a key among the items of a list (a node typed among the links).
 *
 * Set aside, such a line is one clear error and the rest reads as it would
 * without it. Inside a block scalar (`|`, `>`) every line is text, as YAML
 * reads it: a tab after the scalar's indentation and quotes are content. The
 * scalar's extent is found from the lines alone (its header line, then the
 * lines indented further), so any part of a text that starts outside a block
 * scalar reads it as the whole does. So is a flow collection's over several
 * lines: its later lines are those indented further than the line that opened
 * it, and they are read inside it (a `]` there may close it). A key without
 * its colon depends on the line before it, a list item on the maps and lists
 * open at its line (from the indentation of the lines before it): every part
 * starts at a key or a list item of its section (behind the section's key
 * where it starts inside one), never at such a line, and what it has open
 * there is what the whole has at the same indentations.
 */
function setAsideLines(src: string): { text: string; lines: SetAsideLine[] } {
  if (!MAY_SET_ASIDE.test(src)) return { text: src, lines: [] };
  const lines: SetAsideLine[] = [];
  /** The block scalar being read: its parent's column, and its indentation (-1 until its first line of text). */
  let block: { parent: number; indent: number } | undefined;
  /** The flow collections left open at the end of a line: how many, and the indentation of the line that opened them. */
  let flow: { depth: number; indent: number } | undefined;
  /**
   * The line before (read, not set aside): whether a plain scalar may continue or start on the next
   * line, past which column, and whether that line ended with a key or `- ` and nothing after it.
   */
  let before: { continuable: boolean; column: number; empty: boolean } | undefined;
  /** The block maps and lists open at the line, by indentation (innermost last). */
  const open: { indent: number; list: boolean }[] = [];
  /** The lines of the open flow collection after its first that left it deeper: set aside if it is never closed. */
  let deepening: SetAsideLine[] = [];
  for (let start = 0; start <= src.length;) {
    const newline = src.indexOf('\n', start);
    const lineEnd = newline < 0 ? src.length : newline;
    const end = lineEnd > start && src.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    let spaces = start;
    while (spaces < end && src.charCodeAt(spaces) === 32) spaces++;
    let first = spaces;
    while (first < end && (src.charCodeAt(first) === 32 || src.charCodeAt(first) === 9)) first++;
    const indent = spaces - start;
    let code: SetAsideCode | undefined;
    if (block) {
      if (block.indent < 0 && first < end && indent > block.parent) block.indent = indent;
      if (block.indent >= 0 && indent >= block.indent) {
        // Text of the scalar, tabs and quotes included.
      } else if (spaces < end && src.charCodeAt(spaces) === 9 && (first < end || block.indent >= 0)) {
        // A tab before the scalar's indentation: an error to YAML that ends the scalar; set aside, the scalar goes on.
        code = 'tab-indentation';
      } else if (first < end) {
        block = undefined;
      }
    }
    if (!block && first < end && src.charCodeAt(first) !== 35) {
      // A line not indented past the one that opened a flow collection ends it, closed or not; unless that line
      // is set aside, which YAML reads as blank, going on with the collection.
      const ended = flow && indent <= flow.indent ? { flow, deepening } : undefined;
      if (ended) {
        flow = undefined;
        deepening = [];
      }
      if (first > spaces) code = 'tab-indentation';
      else {
        const continued = flow !== undefined;
        const read = readLine(src, first, end, start, flow?.depth);
        if (!continued) while (open.length > 0 && open[open.length - 1].indent > indent) open.pop();
        if (read.kind === 'quote') code = 'unclosed-quote';
        else if (read.kind === 'stray') code = read.bracket ? 'stray-bracket' : 'text-after-value';
        else if (read.kind === 'line' && read.plainOnly && before && !(before.continuable && indent > before.column))
          code = 'key-without-colon';
        else if (!continued) code = misplacedEntry(open, indent, read, before?.empty ? before.column : -1);
        if (!code && read.kind === 'block') block = read;
        if (!code && !continued && (read.kind === 'line' || read.kind === 'block' || read.kind === 'open'))
          openCollections(open, read);
        // A line set aside reads as blank: what the lines before it left open stays open.
        if (!code) {
          if (read.kind !== 'open') {
            flow = undefined;
            deepening = [];
          } else {
            if (continued && read.depth > (flow?.depth ?? 0))
              deepening.push({ start, end, code: 'unclosed-inner-bracket' });
            flow = { depth: read.depth, indent: flow?.indent ?? indent };
          }
          // A plain scalar's next line (plainOnly) continues it: what may follow stays as it was.
          if (read.kind !== 'line') before = { continuable: false, column: -1, empty: false };
          else if (!read.plainOnly)
            before = { continuable: read.value !== 'other', column: read.column, empty: read.value === 'empty' };
        }
      }
      if (ended && code) ({ flow, deepening } = ended);
      else if (ended && ended.flow.depth >= 2) lines.push(...ended.deepening);
    }
    if (code) lines.push({ start, end, code });
    if (newline < 0) break;
    start = newline + 1;
  }
  // The end of the text ends an open flow collection as a line further left would: a part read alone ends there.
  if (flow && flow.depth >= 2) lines.push(...deepening);
  if (lines.length === 0) return { text: src, lines };
  // Lines inside a flow collection are set aside only once it ends: in the order of the text again.
  lines.sort((a, b) => a.start - b.start);
  let text = '';
  let copied = 0;
  for (const line of lines) {
    text += src.slice(copied, line.start) + ' '.repeat(line.end - line.start);
    copied = line.end;
  }
  return { text: text + src.slice(copied), lines };
}

/**
 * A line at `indent` that starts an entry where the maps and lists open there do not take one (setAsideLines):
 * a `- ` among a map's keys, unless right after a `key:` (at column `listKey`) whose list it starts
 * (`links:` then `- …`); a key among the items of a list indented under its key (a node typed among the links).
 */
function misplacedEntry(
  open: readonly { indent: number; list: boolean }[],
  indent: number,
  lead: Lead,
  listKey: number,
): SetAsideCode | undefined {
  const inner = open[open.length - 1];
  if (inner?.indent !== indent) return undefined;
  if (lead.dash === indent && !inner.list && listKey !== indent) return 'list-item-among-keys';
  const outer = open[open.length - 2];
  if (lead.dash < 0 && lead.key === indent && inner.list && !(outer?.indent === indent && !outer.list))
    return 'key-among-list-items';
  return undefined;
}

/** The block list a line's `- ` opens or continues, and the block map its key does (setAsideLines). */
function openCollections(open: { indent: number; list: boolean }[], lead: Lead): void {
  if (lead.dash >= 0) {
    const inner = open[open.length - 1];
    if (!(inner?.indent === lead.dash && inner.list)) open.push({ indent: lead.dash, list: true });
  }
  if (lead.key >= 0) {
    // A key at a list's indentation ends the list, which is its map's (`links:` then `- …` then `nodes:`):
    // among the items of a list indented under its key, it is set aside.
    if (lead.dash < 0 && open[open.length - 1]?.indent === lead.key && open[open.length - 1].list) open.pop();
    const inner = open[open.length - 1];
    if (!(inner?.indent === lead.key && !inner.list)) open.push({ indent: lead.key, list: false });
  }
}

/**
 * A text has no line to set aside unless it has a tab, a quote, a closing bracket followed on its
 * line by text other than a comment, an opening bracket right after a value, a closing bracket
 * where a value may start (after a space, `:` or `-`, or first on its line), a line that is neither
 * a key, nor a list item, nor a comment, or a list item. Only lists make the line-by-line reading
 * run on valid lab text (a lab's links).
 */
const MAY_SET_ASIDE =
  /["'\t]|[\]}][ \t]*[^\s#,:]|[^\s,[{:-][ \t]*[[{]|(?:^|[ \t:-])[\]}]|^ *(?!- |-$|[?#\s]|$)(?:[^:\n]|:(?! |$))*$|^ *-(?: |$)/m;

/** What of a line's tokens matters to setAsideLines (readLine). */
type LineReading =
  /** A quoted string that does not end on its line: where it starts, and inside how many flow collections. */
  | { kind: 'quote'; quote: number; depth: number }
  /** A block scalar's header ends the line: its parent's column, and its indentation when the header gives it (else -1). */
  | ({ kind: 'block'; parent: number; indent: number } & Lead)
  /** A stray bracket outside flow collections, or other text after a value that has ended (setAsideLines): where it is. */
  | { kind: 'stray'; at: number; bracket: boolean }
  /** Flow collections left open at the end of the line. */
  | ({ kind: 'open'; depth: number } & Lead)
  /**
   * Any other line: whether it is one plain scalar and nothing else, and what its value is (after its
   * last `: ` or `- `: a plain scalar, nothing yet, or anything else) with that key's or dash's column.
   */
  | ({ kind: 'line'; plainOnly: boolean; value: 'plain' | 'empty' | 'other'; column: number } & Lead);

/** How a line begins: the column of its `- ` when it starts with one, and of its key when that comes first (after the dash); else -1. */
interface Lead {
  dash: number;
  key: number;
}

/** The line starting at `lineStart` read alone (readLine): its first character, its end (before a CR) and its reading. */
function lineAt(text: string, lineStart: number): { first: number; end: number; read: LineReading | undefined } {
  const newline = text.indexOf('\n', lineStart);
  let end = newline < 0 ? text.length : newline;
  if (text.charCodeAt(end - 1) === 13) end--;
  let first = lineStart;
  while (first < end && text.charCodeAt(first) === 32) first++;
  return { first, end, read: first < end ? readLine(text, first, end, lineStart) : undefined };
}

/**
 * Where to put the quote that closes the unclosed quoted string on the line
 * starting at `lineStart`, and which quote: at the end of the line, or in a
 * flow collection (`[a, "b]`) before the next `,`, `]` or `}`. Undefined when
 * the line has no unclosed quote, or when that quote would not close it (after
 * a `\` that escapes it).
 */
export function closingQuote(text: string, lineStart: number): { at: number; quote: string } | undefined {
  const { first, end, read } = lineAt(text, lineStart);
  if (read?.kind !== 'quote') return undefined;
  let at = end;
  if (read.depth > 0) {
    const indicator = /[,\]}]/.exec(text.slice(read.quote + 1, end));
    if (indicator) at = read.quote + 1 + indicator.index;
  }
  while (at > read.quote + 1 && text.charCodeAt(at - 1) === 32) at--;
  const quote = text[read.quote];
  const line = text.slice(lineStart, at) + quote + text.slice(at, end);
  const again = readLine(line, first - lineStart, line.length, 0);
  return again?.kind === 'quote' && again.quote === read.quote - lineStart ? undefined : { at, quote };
}

/**
 * What to remove from the line starting at `lineStart` for its stray bracket
 * or its text after a value (setAsideLines): from there up to a comment, with
 * the spaces before it. Undefined when the line, read alone, has neither.
 */
export function strayText(text: string, lineStart: number): { start: number; end: number } | undefined {
  const { first, end, read } = lineAt(text, lineStart);
  if (read?.kind !== 'stray') return undefined;
  const to = contentEnd(text, read.at, end);
  let from = read.at;
  while (from > first && isBlank(text, from - 1)) from--;
  return { start: from, end: to };
}

/** Where the colon goes on the line starting at `lineStart`, set aside for a key without its colon: after the key. */
export function keyColonAt(text: string, lineStart: number): number | undefined {
  const { first, end, read } = lineAt(text, lineStart);
  if (read?.kind !== 'line' || !read.plainOnly) return undefined;
  return contentEnd(text, first, end);
}

/** Where the text from `from` to `end` ends before a comment and the blanks before it. */
function contentEnd(text: string, from: number, end: number): number {
  const comment = /[ \t]#/.exec(text.slice(from, end));
  let at = comment ? from + comment.index : end;
  while (at > from && isBlank(text, at - 1)) at--;
  return at;
}

/**
 * Reads the tokens of one line outside block scalars, from its first character
 * (`from`) to `end`, inside `depth` flow collections left open by the lines
 * before it (LineReading says what it finds). Quotes inside a plain scalar
 * (`it's`) and in comments are text.
 */
function readLine(src: string, from: number, end: number, lineStart: number, depth = 0): LineReading {
  /**
   * A value has just ended: a flow collection, a quoted string, or inside a flow collection a plain
   * scalar. No bracket may follow it (inside a flow collection, not without a comma between), and
   * outside flow collections nothing but a comment.
   */
  let ended = false;
  /** Outside flow collections: 0 before any token, 1 after one plain scalar alone, -1 after anything else. */
  let shape = depth === 0 ? 0 : -1;
  let value: 'plain' | 'empty' | 'other' = 'other';
  let column = -1;
  let dash = -1;
  let key = -1;
  let token = -1;
  /** The first `- `, and the first token that is not one, outside flow collections. */
  let firstDash = -1;
  let first = -1;
  let i = from;
  const lead = (): Lead => ({
    dash: firstDash >= 0 && (first < 0 || firstDash < first) ? firstDash - lineStart : -1,
    key: key >= 0 && key === first ? key - lineStart : -1,
  });
  // `---` and `...` start and end documents; what follows on their line is read as any value.
  if (
    i === lineStart &&
    (src.startsWith('---', i) || src.startsWith('...', i)) &&
    (i + 3 === end || isBlank(src, i + 3))
  ) {
    i += 3;
    shape = -1;
    value = 'empty';
  }
  while (i < end) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
      continue;
    }
    if (c === 35) break; // A comment: at a token's start, so after a space.
    const plain = !(
      c === 34 ||
      c === 39 ||
      c === 91 ||
      c === 123 ||
      c === 93 ||
      c === 125 ||
      c === 44 ||
      ((c === 45 || c === 63 || c === 58) && (i + 1 === end || isBlank(src, i + 1) || (depth > 0 && c === 58))) ||
      ((c === 124 || c === 62) && depth === 0)
    );
    /** An anchor, a tag or an alias: read as a plain token, but no plain scalar. */
    const property = c === 38 || c === 33 || c === 42;
    if (depth === 0) {
      if (first < 0 && !(c === 45 && !plain)) first = i;
      shape = shape === 0 && plain && !property ? 1 : -1;
      if (value === 'empty') value = plain && !property ? 'plain' : 'other';
    }
    if (c === 34 || c === 39) {
      const close = quoteEnd(src, i, end);
      if (close < 0) return { kind: 'quote', quote: i, depth };
      if (ended && depth === 0) return { kind: 'stray', at: i, bracket: false };
      token = i;
      i = close + 1;
      ended = true;
    } else if (!plain && (c === 45 || c === 63 || c === 58)) {
      // `- `, `? `, `: ` (in a flow collection `:` may touch its value).
      if (c === 45) {
        dash = i;
        if (firstDash < 0 && depth === 0) firstDash = i;
      }
      if (c === 58 && depth === 0) key = token;
      if (depth === 0) {
        value = c === 63 ? 'other' : 'empty';
        column = (c === 45 ? i : key >= 0 ? key : i) - lineStart;
      }
      ended = false;
      i++;
    } else if (c === 91 || c === 123) {
      if (ended) return { kind: 'stray', at: i, bracket: true };
      depth++;
      i++;
    } else if (c === 93 || c === 125) {
      if (depth === 0) return { kind: 'stray', at: i, bracket: true };
      depth--;
      ended = true;
      i++;
    } else if (c === 44) {
      ended = false;
      i++;
    } else if (!plain) {
      // `|` or `>` outside flow collections: a block scalar's header.
      const header = /^[|>](?:[1-9][-+]?|[-+][1-9]?)?[ \t]*(?:#.*)?$/.exec(src.slice(i, end));
      if (!header) return { kind: 'line', plainOnly: false, value: 'other', column, ...lead() };
      const parent = (key >= 0 ? key : dash >= 0 ? dash : i - 1) - lineStart;
      const explicit = /[1-9]/.exec(header[0].slice(1, 3));
      return { kind: 'block', parent, indent: explicit ? Math.max(parent, 0) + Number(explicit[0]) : -1, ...lead() };
    } else {
      // A plain scalar (or an anchor, tag or alias): to a `: `, a ` #`, or in a flow collection an indicator.
      if (ended && depth === 0) return { kind: 'stray', at: i, bracket: false };
      // An anchor or a tag comes before its value: `[&a [1]]`.
      ended = depth > 0 && c !== 38 && c !== 33;
      token = i;
      while (i < end) {
        const p = src.charCodeAt(i);
        if (p === 58 && (i + 1 === end || isBlank(src, i + 1) || (depth > 0 && FLOW_INDICATORS.includes(src[i + 1]))))
          break;
        if ((p === 32 || p === 9) && src.charCodeAt(i + 1) === 35) break;
        if (depth > 0 && FLOW_INDICATORS.includes(src[i])) break;
        if ((c === 38 || c === 33 || c === 42) && (p === 32 || p === 9)) break; // `&anchor `, `!tag `, `*alias `
        i++;
      }
    }
  }
  if (depth > 0) return { kind: 'open', depth, ...lead() };
  return { kind: 'line', plainOnly: shape === 1, value, column, ...lead() };
}

const FLOW_INDICATORS = ',[]{}';

function isBlank(src: string, at: number): boolean {
  const c = src.charCodeAt(at);
  return c === 32 || c === 9;
}

/** Where the quoted string starting at `open` ends on its line (before `end`), or -1. */
function quoteEnd(src: string, open: number, end: number): number {
  const quote = src.charCodeAt(open);
  for (let i = open + 1; i < end; i++) {
    const c = src.charCodeAt(i);
    if (quote === 34 && c === 92)
      i++; // `\"` and `\\` in a double-quoted string
    else if (c === quote) {
      if (quote === 39 && src.charCodeAt(i + 1) === 39)
        i++; // `''` in a single-quoted string
      else return i;
    }
  }
  return -1;
}

/**
 * A copy of part of a document that holds its own characters. V8 makes a slice
 * of a long string a view into it, and so are the strings the parser reads
 * from that slice: a piece re-read from a slice of a 2 MB text would keep that
 * version of the whole text alive for as long as the piece lives. Adding a
 * character and slicing it off again makes V8 flatten the text into a new
 * string of just this part first.
 */
export function ownCopy(part: string): string {
  return (' ' + part).slice(1);
}

/** The document's errors as SyntaxErrors, offsets moved by `base`, clamped to the text. */
export function syntaxErrorsOf(doc: Document.Parsed, srcLength: number, base: number): SyntaxError[] {
  return doc.errors
    .map((error) => {
      const start = Math.min(Math.max(error.pos[0], 0), srcLength);
      const end = Math.min(Math.max(error.pos[1], start), srcLength);
      const range = { start: base + start, end: base + end };
      return error instanceof LineSetAside
        ? { message: error.message, range, code: error.setAside }
        : { message: error.message, range };
    })
    .sort((a, b) => a.range.start - b.range.start);
}
