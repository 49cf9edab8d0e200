/**
 * Reading single values and maps out of the outline, with the issue to report
 * when a value does not fit: shared by the readers of the lab's elements
 * (read.ts) and of its tests (read-tests.ts).
 */
import { listInProse } from '../rules/format';
import type { OutlineEntry, OutlineMap, OutlineValue } from './outline';
import type { FormatIssue, Located } from '../model/types';

type Path = (string | number)[];

export function readWholeNumber(
  entry: OutlineEntry,
  path: Path,
  issues: FormatIssue[],
  name: string,
  example: string,
): Located<number> | undefined {
  const value = entry.value;
  if (isEmpty(value)) {
    missingValue(entry, path, issues, example);
    return undefined;
  }
  if (value?.kind === 'scalar' && typeof value.value === 'number' && Number.isInteger(value.value)) {
    return { value: value.value, range: value.range, keyRange: entry.keyRange };
  }
  wrongType(entry, path, issues, `${name} must be a whole number, e.g. ${example}`);
  return undefined;
}

export function readText(
  entry: OutlineEntry,
  path: Path,
  issues: FormatIssue[],
  example: string,
): Located<string> | undefined {
  const value = entry.value;
  if (isEmpty(value) || (value?.kind === 'scalar' && value.text.trim() === '')) {
    missingValue(entry, path, issues, example);
    return undefined;
  }
  if (value?.kind === 'scalar') return { value: value.text, range: value.range, keyRange: entry.keyRange };
  wrongType(entry, path, issues, `${entry.key} must be text, e.g. ${example}`);
  return undefined;
}

/** The entries of a map, reporting keys that are written twice (the first one counts) and keys that are not plain words. */
export function uniqueEntries(map: OutlineMap, path: Path, owner: string, issues: FormatIssue[]): OutlineEntry[] {
  const seen = new Set<string>();
  const result: OutlineEntry[] = [];
  for (const entry of map.entries) {
    if (!checkKey(entry, [...path, entry.key], issues, 'keys are plain words such as template or cpu')) continue;
    if (seen.has(entry.key)) {
      issues.push({
        code: 'duplicate-key',
        range: entry.keyRange,
        path: [...path, entry.key],
        message: `${entry.key} is set twice in ${owner}; keep one`,
      });
      continue;
    }
    seen.add(entry.key);
    result.push(entry);
  }
  return result;
}

export function checkKey(entry: OutlineEntry, path: Path, issues: FormatIssue[], hint: string): boolean {
  if (!entry.oddKey) return true;
  issues.push({
    code: 'bad-key',
    range: entry.keyRange.start === entry.keyRange.end ? entry.range : entry.keyRange,
    path,
    message: `this key cannot be read; ${hint}`,
  });
  return false;
}

export function unknownKey(
  entry: OutlineEntry,
  path: Path,
  issues: FormatIssue[],
  owner: string,
  accepted: readonly string[],
): void {
  issues.push({
    code: 'unknown-key',
    range: entry.keyRange,
    path,
    message: `${owner} has no setting "${entry.key}"; ${accepted.length === 1 ? `the only key is ${accepted[0]}` : `the keys are ${listInProse(accepted, 'and')}`}`,
  });
}

export function missingValue(entry: OutlineEntry, path: Path, issues: FormatIssue[], example: string): void {
  issues.push({
    code: 'missing-value',
    range: entry.range,
    path,
    message: `${entry.key} has no value; write e.g. ${example}`,
  });
}

export function wrongType(entry: OutlineEntry, path: Path, issues: FormatIssue[], message: string): void {
  const value = entry.value;
  if (value?.kind === 'opaque') {
    issues.push({
      code: value.reason === 'alias' ? 'unsupported-alias' : 'too-deep',
      range: value.range,
      path,
      message:
        value.reason === 'alias'
          ? 'aliases (*name) are not supported in lab files; write the value out (use defaults for values every node shares)'
          : 'this value is nested far deeper than a lab file needs; ' + message,
    });
    return;
  }
  issues.push({ code: 'wrong-type', range: value?.range ?? entry.range, path, message });
}

export function isEmpty(value: OutlineValue | undefined): boolean {
  return value === undefined || (value.kind === 'scalar' && value.value === null);
}
