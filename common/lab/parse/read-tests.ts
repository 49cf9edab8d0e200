/**
 * Reading the `tests:` section: a map from test names to one check each
 * (`ping`, `command`, …, see test-checks.ts) and an optional `timeout`.
 * Whatever does not fit becomes a FormatIssue, as everywhere in the format;
 * what only the lab as a whole can tell (unknown nodes, checks a node's
 * console cannot run, patterns that do not compile) is validate-tests.ts's.
 */
import { listInProse } from '../rules/format';
import type { OutlineEntry } from './outline';
import { isEmpty, missingValue, readText, readWholeNumber, uniqueEntries, unknownKey, wrongType } from './read-values';
import { CHECK_KINDS, CHECKS, TEST_KEYS, TEST_TIMEOUT_LIMITS, isCheckKind, type CheckKind } from '../rules/test-checks';
import type { FormatIssue, LabCheck, LabTest, Located } from '../model/types';

const TESTS_SHAPE =
  'tests must be a map from test names to one check each, e.g. tests: {h1 reaches h2: {ping: {from: h1, to: h2}}}';

export function readTests(entry: OutlineEntry, issues: FormatIssue[]): LabTest[] {
  const value = entry.value;
  if (isEmpty(value)) return [];
  if (value?.kind !== 'map') {
    wrongType(entry, ['tests'], issues, TESTS_SHAPE);
    return [];
  }
  const tests: LabTest[] = [];
  for (const testEntry of uniqueEntries(value, ['tests'], 'tests', issues)) tests.push(readTest(testEntry, issues));
  return tests;
}

function readTest(entry: OutlineEntry, issues: FormatIssue[]): LabTest {
  const name = entry.key;
  const path = ['tests', name];
  const test: LabTest = { name, nameRange: entry.keyRange, range: entry.range };
  const value = entry.value;
  const checks = listInProse(CHECK_KINDS);
  if (value?.kind !== 'map') {
    if (isEmpty(value)) missingValue(entry, path, issues, `${name}: {${CHECKS.ping.example}}`);
    else
      wrongType(
        entry,
        path,
        issues,
        `test "${name}" must be a map with one check (${checks}), e.g. ${CHECKS.ping.example}`,
      );
    return test;
  }
  for (const field of uniqueEntries(value, path, `test "${name}"`, issues)) {
    const fieldPath = [...path, field.key];
    if (field.key === 'timeout') {
      const timeout = readWholeNumber(field, fieldPath, issues, 'timeout', 'timeout: 60');
      if (timeout && outOfRange(timeout, TEST_TIMEOUT_LIMITS, fieldPath, 'seconds', issues)) test.timeout = timeout;
    } else if (isCheckKind(field.key)) {
      if (test.check) {
        issues.push({
          code: 'two-checks',
          range: field.keyRange,
          path: fieldPath,
          message: `test "${name}" already has the check ${test.check.kind}; a test has one check: write this one as a test of its own`,
        });
        continue;
      }
      test.check = readCheck(field, field.key, fieldPath, issues);
    } else {
      unknownKey(field, fieldPath, issues, `test "${name}"`, [...CHECK_KINDS, ...TEST_KEYS]);
    }
  }
  if (!test.check)
    issues.push({
      code: 'missing-check',
      range: entry.keyRange,
      path,
      message: `test "${name}" has no check; add one of ${checks}, e.g. ${CHECKS.ping.example}`,
    });
  return test;
}

function readCheck(entry: OutlineEntry, kind: CheckKind, path: (string | number)[], issues: FormatIssue[]): LabCheck {
  const spec = CHECKS[kind];
  const check: LabCheck = { kind, keyRange: entry.keyRange, range: entry.range, params: {} };
  const value = entry.value;
  if (value?.kind !== 'map') {
    if (isEmpty(value)) missingValue(entry, path, issues, spec.example);
    else wrongType(entry, path, issues, `${kind} takes a map of settings, e.g. ${spec.example}`);
    return check;
  }
  for (const field of uniqueEntries(value, path, kind, issues)) {
    const fieldPath = [...path, field.key];
    const param = spec.params[field.key];
    if (!param) {
      unknownKey(field, fieldPath, issues, `the ${kind} check`, Object.keys(spec.params));
      continue;
    }
    if (param.type === 'number') {
      const number = readWholeNumber(field, fieldPath, issues, field.key, `${field.key}: ${param.min ?? 1}`);
      if (number && outOfRange(number, { min: param.min ?? 0, max: param.max ?? Infinity }, fieldPath, '', issues))
        check.params[field.key] = number;
    } else {
      const text = readText(field, fieldPath, issues, `${field.key}: ${exampleOf(param.type)}`);
      if (text) check.params[field.key] = text;
    }
  }
  const missing = Object.entries(spec.params).filter(([name, param]) => param.required && !(name in check.params));
  // A required setting written without a value has its own issue already.
  const unwritten = missing.filter(([name]) => !value.entries.some((e) => e.key === name));
  if (unwritten.length > 0)
    issues.push({
      code: 'missing-key',
      range: entry.keyRange,
      path,
      message: `${kind} needs ${listInProse(
        unwritten.map(([name]) => name),
        'and',
      )}, e.g. ${spec.example}`,
    });
  return check;
}

function outOfRange(
  number: Located<number>,
  limits: { min: number; max: number },
  path: (string | number)[],
  unit: string,
  issues: FormatIssue[],
): boolean {
  if (number.value >= limits.min && number.value <= limits.max) return true;
  const key = String(path[path.length - 1]);
  issues.push({
    code: 'out-of-range',
    range: number.range,
    path,
    message: `${key} must be from ${limits.min} to ${limits.max}${unit ? ` ${unit}` : ''}`,
  });
  return false;
}

function exampleOf(type: string): string {
  return type === 'node' ? 'r1' : type === 'target' ? 'h2:eth0' : type === 'pattern' ? '^O>\\*' : 'text';
}
