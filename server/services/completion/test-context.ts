/**
 * What the cursor is on inside `tests:`, for completion: a test's keys (its
 * check and `timeout`), a check's settings, or a setting's value. Tests are
 * mostly written in flow style (`ping: {from: h1, to: h|}`), which does not
 * parse while it is being typed, so the section's keys are read from the
 * indentation of the lines above and the cursor's line is scanned as far as
 * the cursor, flow maps and all.
 */
import type { LabDocument, Range } from '../../../common/lab/model/types';
import { CHECKS, isCheckKind, type CheckKind, type ParamType } from '../../../common/lab/rules/test-checks';
import { lineStartOf } from '../../../common/text-lines';

export type TestsCompletionContext =
  /** A key of the test `test`: its check or `timeout`. */
  | { kind: 'test-key'; test: string; replace: Range; present: ReadonlySet<string>; colonFollows: boolean }
  /** A setting of the check `check`. */
  | { kind: 'check-key'; check: CheckKind; replace: Range; present: ReadonlySet<string>; colonFollows: boolean }
  /** The value of a node setting (`from`, `node`) or of a ping's `to` (`nodePart`: only the node before a colon). */
  | { kind: 'check-node'; type: Extract<ParamType, 'node' | 'target'>; replace: Range; needsSpace: boolean }
  /** The interface after `node:` in a ping's `to`. */
  | { kind: 'check-interface'; node: string; replace: Range };

const KEY_CHAR = /[A-Za-z0-9_-]/;
/** `key:` at the start of a line (after its indentation): the key may hold spaces and quotes, as test names do. */
const KEY_LINE = /^( *)("[^"]*"|'[^']*'|[^\s#{}[\],:][^#{}[\]:]*?)\s*:(?:\s|$)/;

/**
 * The context in the `tests:` section, undefined when nothing is offered there, or null when the
 * cursor is not in `tests:` (the rest of the format's completion applies).
 */
export function testsCompletionContext(doc: LabDocument, offset: number): TestsCompletionContext | undefined | null {
  const text = doc.text;
  const lineStart = lineStartOf(text, offset);
  const indent = spacesAt(text, lineStart, offset);
  if (indent === 0) return null;
  const keys = enclosingKeys(text, lineStart, indent);
  if (keys === undefined) return null;
  if (text[lineStart + indent] === '#') return undefined;
  return scanLine(doc, keys, lineStart + indent, offset);
}

/**
 * The keys whose values enclose a line indented by `indent`, from the top level down
 * (`['tests', 'h1 reaches h2']`), read from the less indented lines above it; undefined when
 * they are not under `tests:`.
 */
function enclosingKeys(text: string, lineStart: number, indent: number): string[] | undefined {
  const keys: string[] = [];
  let deepest = indent;
  let end = lineStart - 1;
  while (end > 0) {
    const start = lineStartOf(text, end);
    const line = text.slice(start, end).replace(/\r$/, '');
    end = start - 1;
    const spaces = line.length - line.trimStart().length;
    if (line.trim() === '' || line.trimStart().startsWith('#') || spaces >= deepest) continue;
    const key = KEY_LINE.exec(line);
    if (!key) return undefined;
    keys.unshift(unquote(key[2]));
    deepest = spaces;
    if (spaces === 0) break;
  }
  return deepest === 0 && keys[0] === 'tests' ? keys : undefined;
}

/** Scans the cursor's line up to the cursor: which map it is in (flow maps included) and whether a key or a value is typed. */
function scanLine(doc: LabDocument, keys: string[], from: number, offset: number): TestsCompletionContext | undefined {
  const text = doc.text;
  const stack = [...keys];
  let inValue = false;
  let valueKey: string | undefined;
  let tokenStart = from;
  let flowDepth = 0;
  for (let at = from; at < offset; at++) {
    const c = text[at];
    if (c === '#' && (at === from || text[at - 1] === ' ')) return undefined;
    if (!inValue) {
      if (c === ':' && (at + 1 >= text.length || /[\s{]/.test(text[at + 1]))) {
        valueKey = unquote(text.slice(tokenStart, at).trim());
        inValue = true;
        tokenStart = at + 1;
      } else if (c === ',' && flowDepth > 0) {
        tokenStart = at + 1;
      } else if (c === '}' && flowDepth > 0) {
        stack.pop();
        flowDepth--;
        tokenStart = at + 1;
      }
    } else if (c === '{' && text.slice(tokenStart, at).trim() === '' && valueKey !== undefined) {
      stack.push(valueKey);
      flowDepth++;
      inValue = false;
      tokenStart = at + 1;
    } else if ((c === ',' || c === '}') && flowDepth > 0) {
      if (c === '}') {
        stack.pop();
        flowDepth--;
      }
      inValue = false;
      tokenStart = at + 1;
    }
  }
  if (inValue) return valueContext(doc, stack, valueKey ?? '', tokenStart, offset);
  return keyContext(doc, stack, tokenStart, offset);
}

function keyContext(
  doc: LabDocument,
  stack: readonly string[],
  tokenStart: number,
  offset: number,
): TestsCompletionContext | undefined {
  const text = doc.text;
  let start = tokenStart;
  while (start < offset && text[start] === ' ') start++;
  if (!/^[A-Za-z0-9_-]*$/.test(text.slice(start, offset))) return undefined;
  let end = offset;
  while (end < text.length && KEY_CHAR.test(text[end])) end++;
  const replace = { start, end };
  const colonFollows = /^[ \t]*:/.test(text.slice(end, end + 80));
  const typed = text.slice(start, end);
  const test = stack.length >= 2 ? doc.tests.find((t) => t.name === stack[1]) : undefined;
  if (stack.length === 2) {
    const present = new Set<string>();
    if (test?.check && test.check.kind !== typed) for (const kind of Object.keys(CHECKS)) present.add(kind);
    if (test?.timeout && typed !== 'timeout') present.add('timeout');
    return { kind: 'test-key', test: stack[1], replace, present, colonFollows };
  }
  if (stack.length === 3 && isCheckKind(stack[2])) {
    const written = test?.check?.kind === stack[2] ? Object.keys(test.check.params) : [];
    return {
      kind: 'check-key',
      check: stack[2],
      replace,
      present: new Set(written.filter((key) => key !== typed)),
      colonFollows,
    };
  }
  return undefined;
}

function valueContext(
  doc: LabDocument,
  stack: readonly string[],
  key: string,
  tokenStart: number,
  offset: number,
): TestsCompletionContext | undefined {
  const check = stack[2];
  if (stack.length !== 3 || !isCheckKind(check)) return undefined;
  const type = CHECKS[check].params[key]?.type;
  if (type !== 'node' && type !== 'target') return undefined;
  const text = doc.text;
  let start = tokenStart;
  while (start < offset && text[start] === ' ') start++;
  let end = offset;
  while (end < text.length && !/[\s,}#]/.test(text[end])) end++;
  const written = text.slice(start, end);
  const colon = written.indexOf(':');
  if (type === 'target' && colon > 0 && start + colon < offset) {
    return { kind: 'check-interface', node: written.slice(0, colon), replace: { start: start + colon + 1, end } };
  }
  return {
    kind: 'check-node',
    type,
    replace: { start, end: colon >= 0 ? start + colon : end },
    needsSpace: start === tokenStart && text[offset - 1] === ':',
  };
}

function spacesAt(text: string, from: number, limit: number): number {
  let at = from;
  while (at < limit && text[at] === ' ') at++;
  return at - from;
}

function unquote(key: string): string {
  return /^(["']).*\1$/.test(key) ? key.slice(1, -1) : key;
}
