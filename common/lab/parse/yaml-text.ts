/**
 * Parsing YAML text with the `yaml` package the one way the lab model needs:
 * with source tokens (for `-` and `?` positions), without pretty errors (their
 * code frames cost time and we place errors ourselves), and with duplicate
 * keys left to the model, which reports them per node and per setting.
 */
import { parseDocument, YAMLParseError, type Document } from 'yaml';
import type { SyntaxError } from '../model/types';

/**
 * Lines with a tab in their indentation are set aside first (see setAsideTabbedLines), each with
 * one error of its own. Every text the lab model reads (a whole lab, a piece, a window) starts at a
 * line's start and is read here, so setting aside a line is the same in a part as in the whole.
 */
export function parseYaml(src: string): Document.Parsed {
  const { text, lines } = setAsideTabbedLines(src);
  // Each syntax error is an Error, and text broken while typing has hundreds: their stack traces, which
  // nobody reads (only messages and offsets are kept), were half the cost of parsing it.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const doc = parseDocument(text, { keepSourceTokens: true, prettyErrors: false, uniqueKeys: false });
    for (const line of lines)
      doc.errors.push(new TabInIndentation([line.start, line.end], 'TAB_AS_INDENT', TAB_MESSAGE));
    return doc;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** The error of a line set aside for a tab in its indentation. */
class TabInIndentation extends YAMLParseError {}

const TAB_MESSAGE =
  'a tab in indentation: YAML indents with spaces, so this line is not read; replace its tabs with spaces';

/**
 * `src` with each line whose indentation holds a tab (spaces and tabs, at least
 * one tab, then something other than a comment) replaced by as many spaces, and
 * where those lines were (without their line break). The `yaml` package ends a
 * line's indentation at its first tab and reads the rest of the line as an entry
 * further left, which changes how everything after it reads, often to the end of
 * the lab: one tab typed near the top made the whole rest of a 2,000-node lab one
 * broken node (#29). Set aside, the line is one clear error and the rest reads as
 * it would without that line. Offsets do not move. The rule is the same inside
 * block scalars (docs/lab-format.md), so that it needs no context: a tab there
 * belongs after the text's indentation of spaces.
 */
function setAsideTabbedLines(src: string): { text: string; lines: { start: number; end: number }[] } {
  let tab = src.indexOf('\t');
  if (tab < 0) return { text: src, lines: [] };
  const lines: { start: number; end: number }[] = [];
  let text = '';
  let copied = 0;
  while (tab >= 0) {
    const lineStart = src.lastIndexOf('\n', tab - 1) + 1;
    const newline = src.indexOf('\n', tab);
    const lineEnd = newline < 0 ? src.length : newline;
    let first = lineStart;
    while (first < lineEnd && (src.charCodeAt(first) === 32 || src.charCodeAt(first) === 9)) first++;
    // The first tab of the line: before its first other character, and that is content, not a comment or a CR.
    if (tab < first && first < lineEnd && src[first] !== '#' && src[first] !== '\r') {
      const end = src.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
      text += src.slice(copied, lineStart) + ' '.repeat(end - lineStart);
      copied = end;
      lines.push({ start: lineStart, end });
    }
    tab = newline < 0 ? -1 : src.indexOf('\t', newline);
  }
  return { text: lines.length > 0 ? text + src.slice(copied) : src, lines };
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
      return error instanceof TabInIndentation
        ? { message: error.message, range, code: 'tab-indentation' as const }
        : { message: error.message, range };
    })
    .sort((a, b) => a.range.start - b.range.start);
}
