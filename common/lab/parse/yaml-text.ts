/**
 * Parsing YAML text with the `yaml` package the one way the lab model needs:
 * with source tokens (for `-` and `?` positions), without pretty errors (their
 * code frames cost time and we place errors ourselves), and with duplicate
 * keys left to the model, which reports them per node and per setting.
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
    const doc = parseDocument(text, { keepSourceTokens: true, prettyErrors: false, uniqueKeys: false });
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
} as const satisfies Record<SetAsideCode, string>;

const MESSAGES: Record<SetAsideCode, string> = {
  'tab-indentation':
    'a tab in indentation: YAML indents with spaces, so this line is not read; replace its tabs with spaces',
  'unclosed-quote':
    'an unclosed quote: a quoted string in a lab ends on the line it starts on, so this line is not read; close the quote (text over several lines goes in a block scalar, | or >)',
  'stray-bracket':
    'a stray bracket: a } or ] that closes nothing, or a { or [ right after a value that has ended, makes YAML read the rest of the lab differently, so this line is not read; remove the bracket and what follows it',
};

/**
 * `src` with each line set aside replaced by as many spaces (offsets do not
 * move), and where those lines were. Three breakages are set aside, each of
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
 *   quoted string has ended (`position: {x: 1, y: 2}{}`, typed where the
 *   editor closed a bracket): the package reads every line after it as broken.
 *
 * Set aside, such a line is one clear error and the rest reads as it would
 * without it. Inside a block scalar (`|`, `>`) every line is text, as YAML
 * reads it: a tab after the scalar's indentation and quotes are content. The
 * scalar's extent is found from the lines alone (its header line, then the
 * lines indented further), so any part of a text that starts outside a block
 * scalar reads it as the whole does. So is a flow collection's over several
 * lines: its later lines are those indented further than the line that opened
 * it, and they are read inside it (a `]` there may close it).
 */
function setAsideLines(src: string): { text: string; lines: SetAsideLine[] } {
  if (!MAY_SET_ASIDE.test(src)) return { text: src, lines: [] };
  const lines: SetAsideLine[] = [];
  let text = '';
  let copied = 0;
  /** The block scalar being read: its parent's column, and its indentation (-1 until its first line of text). */
  let block: { parent: number; indent: number } | undefined;
  /** The flow collections left open at the end of a line: how many, and the indentation of the line that opened them. */
  let flow: { depth: number; indent: number } | undefined;
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
      if (flow && indent <= flow.indent) flow = undefined;
      if (first > spaces) code = 'tab-indentation';
      else {
        const read = readLine(src, first, end, start, flow?.depth);
        if (read?.kind === 'quote') code = 'unclosed-quote';
        else if (read?.kind === 'stray') code = 'stray-bracket';
        else if (read?.kind === 'block') block = read;
        // A line set aside reads as blank: the collections open before it stay open.
        if (!code) flow = read?.kind === 'open' ? { depth: read.depth, indent: flow?.indent ?? indent } : undefined;
      }
    }
    if (code) {
      text += src.slice(copied, start) + ' '.repeat(end - start);
      copied = end;
      lines.push({ start, end, code });
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return { text: lines.length > 0 ? text + src.slice(copied) : src, lines };
}

/**
 * A text without tabs, quotes, a closing bracket followed on its line by another bracket, and a
 * closing bracket where a value may start (after a space, `:` or `-`, or first on its line) has no
 * line to set aside. Lab files have none of these: most texts skip the line-by-line reading.
 */
const MAY_SET_ASIDE = /["'\t]|[\]}][ \t]*[[\]{}]|(?:^|[ \t:-])[\]}]/m;

/** What of a line's tokens matters to setAsideLines (readLine). */
type LineReading =
  /** A quoted string that does not end on its line: where it starts, and inside how many flow collections. */
  | { kind: 'quote'; quote: number; depth: number }
  /** A block scalar's header ends the line: its parent's column, and its indentation when the header gives it (else -1). */
  | { kind: 'block'; parent: number; indent: number }
  /** A stray bracket outside flow collections (setAsideLines): where it is. */
  | { kind: 'stray'; at: number }
  /** Flow collections left open at the end of the line. */
  | { kind: 'open'; depth: number };

/**
 * Where to put the quote that closes the unclosed quoted string on the line
 * starting at `lineStart`, and which quote: at the end of the line, or in a
 * flow collection (`[a, "b]`) before the next `,`, `]` or `}`. Undefined when
 * the line has no unclosed quote, or when that quote would not close it (after
 * a `\` that escapes it).
 */
export function closingQuote(text: string, lineStart: number): { at: number; quote: string } | undefined {
  const newline = text.indexOf('\n', lineStart);
  let end = newline < 0 ? text.length : newline;
  if (text.charCodeAt(end - 1) === 13) end--;
  let first = lineStart;
  while (first < end && text.charCodeAt(first) === 32) first++;
  const read = first < end ? readLine(text, first, end, lineStart) : undefined;
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
 * (setAsideLines): the bracket and what follows it up to a comment, with the
 * spaces before it. Undefined when the line, read alone, has none.
 */
export function strayBracket(text: string, lineStart: number): { start: number; end: number } | undefined {
  const newline = text.indexOf('\n', lineStart);
  let end = newline < 0 ? text.length : newline;
  if (text.charCodeAt(end - 1) === 13) end--;
  let first = lineStart;
  while (first < end && text.charCodeAt(first) === 32) first++;
  const read = first < end ? readLine(text, first, end, lineStart) : undefined;
  if (read?.kind !== 'stray') return undefined;
  const comment = /[ \t]#/.exec(text.slice(read.at, end));
  let to = comment ? read.at + comment.index : end;
  while (to > read.at && isBlank(text, to - 1)) to--;
  let from = read.at;
  while (from > first && isBlank(text, from - 1)) from--;
  return { start: from, end: to };
}

/**
 * Reads the tokens of one line outside block scalars, from its first character
 * (`from`) to `end`, inside `depth` flow collections left open by the lines
 * before it (LineReading says what it finds); undefined when nothing on it
 * matters. Quotes inside a plain scalar (`it's`) and in comments are text.
 */
function readLine(src: string, from: number, end: number, lineStart: number, depth = 0): LineReading | undefined {
  /** A flow collection or a quoted string has just ended outside any flow collection: no bracket may follow it. */
  let ended = false;
  let dash = -1;
  let key = -1;
  let token = -1;
  let i = from;
  // `---` and `...` start and end documents; what follows on their line is read as any value.
  if (
    i === lineStart &&
    (src.startsWith('---', i) || src.startsWith('...', i)) &&
    (i + 3 === end || isBlank(src, i + 3))
  )
    i += 3;
  while (i < end) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
    } else if (c === 35) {
      break; // A comment: at a token's start, so after a space.
    } else if (c === 34 || c === 39) {
      const close = quoteEnd(src, i, end);
      if (close < 0) return { kind: 'quote', quote: i, depth };
      token = i;
      i = close + 1;
      ended = depth === 0;
    } else if (
      (c === 45 || c === 63 || c === 58) &&
      (i + 1 === end || isBlank(src, i + 1) || (depth > 0 && c === 58))
    ) {
      // `- `, `? `, `: ` (in a flow collection `:` may touch its value).
      if (c === 45) dash = i;
      if (c === 58 && depth === 0) key = token;
      ended = false;
      i++;
    } else if (c === 91 || c === 123) {
      if (ended) return { kind: 'stray', at: i };
      depth++;
      i++;
    } else if (c === 93 || c === 125) {
      if (depth === 0) return { kind: 'stray', at: i };
      depth--;
      ended = depth === 0;
      i++;
    } else if (c === 44) {
      ended = false;
      i++;
    } else if ((c === 124 || c === 62) && depth === 0) {
      const header = /^[|>](?:[1-9][-+]?|[-+][1-9]?)?[ \t]*(?:#.*)?$/.exec(src.slice(i, end));
      if (!header) return undefined;
      const parent = (key >= 0 ? key : dash >= 0 ? dash : i - 1) - lineStart;
      const explicit = /[1-9]/.exec(header[0].slice(1, 3));
      return { kind: 'block', parent, indent: explicit ? Math.max(parent, 0) + Number(explicit[0]) : -1 };
    } else {
      // A plain scalar (or an anchor, tag or alias): to a `: `, a ` #`, or in a flow collection an indicator.
      ended = false;
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
  return depth > 0 ? { kind: 'open', depth } : undefined;
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
