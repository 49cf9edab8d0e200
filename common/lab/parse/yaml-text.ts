/**
 * Parsing YAML text with the `yaml` package the one way the lab model needs:
 * with source tokens (for `-` and `?` positions), without pretty errors (their
 * code frames cost time and we place errors ourselves), and with duplicate
 * keys left to the model, which reports them per node and per setting.
 */
import { parseDocument, type Document } from 'yaml';
import type { SyntaxError } from '../model/types';

export function parseYaml(src: string): Document.Parsed {
  // Each syntax error is an Error, and text broken while typing has hundreds: their stack traces, which
  // nobody reads (only messages and offsets are kept), were half the cost of parsing it.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parseDocument(src, { keepSourceTokens: true, prettyErrors: false, uniqueKeys: false });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
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
      return { message: error.message, range: { start: base + start, end: base + end } };
    })
    .sort((a, b) => a.range.start - b.range.start);
}
