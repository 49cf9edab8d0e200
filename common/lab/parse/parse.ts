/**
 * parseLab builds the lab model from text; updateLab applies an edit to a model,
 * re-reading only the piece or the few pieces around the edit when it can (see
 * incremental.ts) and the whole text otherwise, with the same result either
 * way. Neither ever throws: a broken or half-typed document yields what could
 * be read plus syntax errors.
 */
import { ParsedLab } from '../model/document';
import { PieceList } from '../model/pieces';
import { MAX_LAB_TEXT_LENGTH } from '../rules/format';
import { reparse } from './incremental';
import { ItemsAsRead, layoutOf } from './layout';
import { lineStartOf } from '../../text-lines';
import { buildOutline, type OutlineValue } from './outline';
import { readPlainOutline, type PlainReading } from './plain-outline';
import type { FormatIssue, LabDocument, SyntaxError, TextChange } from '../model/types';
import { unsettledRegions } from './unsettled';
import { parseYaml, syntaxErrorsOf } from './yaml-text';

export function parseLab(text: string): LabDocument {
  const source = typeof text === 'string' ? text : '';
  try {
    return parseWhole(source);
  } catch (error) {
    // The yaml package or a bug of ours failed; the editor must keep working.
    const reason = error instanceof Error ? error.message : String(error);
    return unreadable(source, `the lab file could not be read (${reason}); check it for unusual structure`);
  }
}

/** The model after `change`; offsets are into previous.text and are clamped to it. */
export function updateLab(previous: LabDocument, change: TextChange): LabDocument {
  const inserted = typeof change?.text === 'string' ? change.text : '';
  if (previous instanceof ParsedLab) {
    // The text in parts: the reparse reads around the edit, and nothing here copies the whole text.
    const source = previous.source;
    const start = clampOffset(change?.start, source.length, 0);
    const end = Math.max(start, clampOffset(change?.end, source.length, start));
    const text = source.edited(start, end, inserted);
    try {
      const updated = reparse(previous, { start, end, text: inserted }, text);
      if (updated) return updated;
    } catch {
      // A failed shortcut only costs time: the full parse below is always right.
    }
    return parseLab(text.toString());
  }
  const oldText = typeof previous?.text === 'string' ? previous.text : '';
  const start = clampOffset(change?.start, oldText.length, 0);
  const end = Math.max(start, clampOffset(change?.end, oldText.length, start));
  return parseLab(oldText.slice(0, start) + inserted + oldText.slice(end));
}

/** The length of a model's text, without making the whole text of an updated one (see edited-text.ts). */
export function textLengthOf(doc: LabDocument): number {
  return doc instanceof ParsedLab ? doc.source.length : doc.text.length;
}

function clampOffset(value: unknown, length: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(Math.trunc(value), 0), length);
}

function parseWhole(text: string): ParsedLab {
  if (text.length > MAX_LAB_TEXT_LENGTH) {
    const megabytes = (text.length / (1024 * 1024)).toFixed(1);
    return unreadable(
      text,
      `the lab file has ${megabytes} million characters; lab files over ${MAX_LAB_TEXT_LENGTH / (1024 * 1024)} MB are not read`,
    );
  }
  const longFlow = longFlowLine(text);
  if (longFlow !== undefined) {
    const megabytes = ((longFlow.end - longFlow.start) / (1024 * 1024)).toFixed(1);
    return unreadable(
      text,
      `a flow collection ({…} or […]) of ${megabytes} million characters on one line; flow collections over ${MAX_FLOW_LINE_LENGTH / (1024 * 1024)} MB on one line are not read: write it in block style, one entry a line`,
      { start: longFlow.start, end: longFlow.start },
    );
  }
  // Plain YAML (nearly every lab) is read directly, its items as they come; anything else by the `yaml` package.
  const read = new ItemsAsRead();
  const plain = readPlainOutline(text, read);
  if (plain.root) return fromOutline(text, plain.root, [], false, read);
  if (plain.refusedAt !== undefined && text.length >= READ_AROUND_MIN_LENGTH) {
    const around = readAround(text, plain.refusedAt);
    if (around) return around;
  }
  const build = { src: text, base: 0, sawAlias: false };
  const doc = parseYaml(text);
  return fromOutline(text, buildOutline(doc.contents, build), syntaxErrorsOf(doc, text.length, 0), build.sawAlias);
}

/** Refused lines set aside at most before a text goes to the `yaml` package whole. */
const MAX_SET_ASIDE = 4;
/** Below this size the `yaml` package reads a whole broken text in about a tenth of a second. */
const READ_AROUND_MIN_LENGTH = 64 * 1024;
/** Line ends with nothing but spaces and comments before them (or nothing at all). */
const ONLY_BLANK_LINES = /^(?: *(?:#[^\n]*)?\n)*$/;

/**
 * A big text that the plain reader refuses at a line (nearly always a syntax
 * error being typed): read without that line's text, and without the next few
 * it then refuses, and then with each put back by the incremental reparse,
 * which reads a broken stretch on its own. The `yaml` package on a whole
 * 10,000-node lab with one unclosed bracket takes seconds and a few hundred
 * MB. The reparse gives what the `yaml` package reads in the whole text (it
 * re-reads to the end where the break changes how the rest reads). Undefined
 * when that does not work out, and for a text without errors (a multi-line
 * scalar, say): only the whole parse is exact for it.
 */
function readAround(text: string, refusedAt: number): ParsedLab | undefined {
  const setAside: TextChange[] = [];
  let rest = text;
  let reading: PlainReading = { refusedAt };
  let read: ItemsAsRead | undefined;
  while (reading.root === undefined) {
    const start = reading.refusedAt;
    if (start === undefined || setAside.length === MAX_SET_ASIDE) return undefined;
    const end = rest.indexOf('\n', start);
    const lineEnd = end < 0 ? rest.length : end;
    setAside.push({ start, end: start, text: rest.slice(start, lineEnd) });
    rest = rest.slice(0, start) + rest.slice(lineEnd);
    read = new ItemsAsRead();
    reading = readPlainOutline(rest, read);
    // Refused again at the next line (a key indented too far refuses each sibling after it): a break over many
    // lines, which the `yaml` package reads better; and each read more would cost a read of the text up to it.
    if (reading.refusedAt !== undefined && ONLY_BLANK_LINES.test(rest.slice(start, reading.refusedAt)))
      return undefined;
  }
  try {
    let lab: ParsedLab | undefined = fromOutline(rest, reading.root, [], false, read);
    // Last set aside first: each offset is into the text as it was when that line was taken out.
    for (let i = setAside.length - 1; i >= 0 && lab; i--) {
      const line = setAside[i];
      lab = reparse(lab, line, lab.source.edited(line.start, line.start, line.text));
    }
    return lab && lab.syntaxErrors.length > 0 ? lab : undefined;
  } catch {
    // A failed shortcut only costs time, as in updateLab.
    return undefined;
  }
}

function fromOutline(
  text: string,
  root: OutlineValue | undefined,
  syntaxErrors: SyntaxError[],
  sawAlias: boolean,
  /**
   * The items a plain reading read as they came, leaving their heads in `root`: it starts at its first line with
   * content, after blank and comment lines only, and has no errors, so all its pieces can be read alone (sliceable).
   */
  read?: ItemsAsRead,
): ParsedLab {
  if (root?.kind !== 'map') {
    const rootIssues: FormatIssue[] = [];
    if (root && !(root.kind === 'scalar' && root.value === null)) {
      rootIssues.push({
        code: 'wrong-type',
        range: root.range,
        path: [],
        message:
          'a lab file is a map with the keys name, description, defaults, nodes, networks, links and tests, e.g. name: campus',
      });
    }
    return new ParsedLab(text, {
      sliceable: false,
      sections: [],
      pieces: PieceList.of([]),
      root,
      rootIssues,
      syntaxErrors,
    });
  }
  const sliceable =
    !sawAlias && !root.flow && root.entries.length > 0 && isPlainPrefix(text, lineStartOf(text, root.range.start));
  const layout = layoutOf(text, root, sliceable, syntaxErrors, read);
  const unsettled = unsettledRegions(text, layout);
  if (unsettled) layout.unsettled = unsettled;
  return new ParsedLab(text, layout);
}

/**
 * A line longer than this holding a flow collection is not read: the `yaml` package takes minutes
 * and gigabytes on a 7.9 MB one-line map of 300,000 nodes, while a long plain value (a description)
 * costs what its length does.
 */
const MAX_FLOW_LINE_LENGTH = 1024 * 1024;

/** The first line over MAX_FLOW_LINE_LENGTH whose value starts a flow collection. */
function longFlowLine(text: string): { start: number; end: number } | undefined {
  if (text.length <= MAX_FLOW_LINE_LENGTH) return undefined;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    if (
      end - start > MAX_FLOW_LINE_LENGTH &&
      /^\s*(?:-\s+)*(?:[^\s#'"{[][^#'"{[]*:\s+)?[{[]/.test(text.slice(start, start + 1000))
    )
      return { start, end };
    start = end + 1;
  }
  return undefined;
}

function unreadable(text: string, message: string, range = { start: 0, end: text.length }): ParsedLab {
  return new ParsedLab(text, {
    sliceable: false,
    sections: [],
    pieces: PieceList.of([]),
    rootIssues: [],
    syntaxErrors: [{ message, range }],
  });
}

/** Only blank lines, comments and a `---` before the first key: nothing there can change how the rest reads. */
function isPlainPrefix(text: string, end: number): boolean {
  const lines = text.slice(text.charCodeAt(0) === 0xfeff ? 1 : 0, end).split('\n');
  return lines.every((line) => {
    const trimmed = line.trim();
    return trimmed === '' || trimmed.startsWith('#') || trimmed === '---';
  });
}
