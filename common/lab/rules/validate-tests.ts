/**
 * The checks of a lab's tests that need the rest of the lab: nodes that exist,
 * checks the node's console family can run, patterns that compile, settings
 * that only make sense together. They run with validateLab, before anything
 * runs on the agent; docs/lab-format.md "Tests" lists the codes.
 */
import { listInProse } from './format';
import { findNode } from '../model/lookup';
import {
  ADDRESS_FAMILIES,
  CHECKS,
  FAMILY_CHECKS,
  FAMILY_NAMES,
  consoleFamilyOf,
  parsePingTarget,
  type ConsoleFamily,
} from './test-checks';
import type { LabDocument, LabNode, LabTest, LocalDiagnostic, Located } from '../model/types';

export function validateTests(doc: LabDocument): LocalDiagnostic[] {
  const tests = doc.tests;
  if (tests.length === 0) return [];
  const out: LocalDiagnostic[] = [];
  for (const test of tests) checkTest(doc, test, out);
  return out;
}

function checkTest(doc: LabDocument, test: LabTest, out: LocalDiagnostic[]): void {
  const check = test.check;
  if (!check) return;
  const spec = CHECKS[check.kind];
  const path = ['tests', test.name, check.kind];
  const nodeParam = check.params[spec.nodeParam] as Located<string> | undefined;
  const node = nodeParam && knownNode(doc, nodeParam, [...path, spec.nodeParam], out);
  if (node) {
    const family = consoleFamilyOf(node.resolved.template);
    if (!family) {
      if (check.kind !== 'command')
        out.push({
          range: check.keyRange,
          severity: 'warning',
          code: 'test-unknown-console',
          path,
          message: `the console of ${node.name} (template ${node.resolved.template ?? 'not set'}) is not one the ${check.kind} check knows (FRR, Linux, Cisco-like); a command check runs on any console`,
        });
    } else if (!FAMILY_CHECKS[family].includes(check.kind)) {
      out.push({
        range: check.keyRange,
        severity: 'error',
        code: 'test-unsupported-check',
        path,
        message: `the console of ${node.name} is ${FAMILY_NAMES[family]}, which cannot run the ${check.kind} check (it runs ${listInProse(FAMILY_CHECKS[family], 'and')})${unsupportedHint(family, check.kind)}`,
      });
    }
  }
  const to = check.params.to as Located<string> | undefined;
  if (check.kind === 'ping' && to) {
    const target = parsePingTarget(to.value);
    if ('node' in target) {
      const targetNode = knownNode(doc, { ...to, value: target.node }, [...path, 'to'], out);
      const family = targetNode && consoleFamilyOf(targetNode.resolved.template);
      if (targetNode && (!family || !ADDRESS_FAMILIES.includes(family)))
        out.push({
          range: to.range,
          severity: 'error',
          code: 'test-target-address',
          path: [...path, 'to'],
          message: `the address of ${targetNode.name} cannot be read from its console (${family ? FAMILY_NAMES[family] : `template ${targetNode.resolved.template ?? 'not set'}`}); write the address to ping, e.g. to: 10.0.2.10`,
        });
      if (target.interface === '')
        out.push({
          range: to.range,
          severity: 'error',
          code: 'missing-interface',
          path: [...path, 'to'],
          message: `write the interface after the colon, e.g. ${target.node}:eth0, or the node alone`,
        });
    }
  }
  if (check.kind === 'command') {
    const { contains, matches, count } = check.params;
    const pattern = matches as Located<string> | undefined;
    if (pattern) {
      const problem = patternProblem(pattern.value);
      if (problem)
        out.push({
          range: pattern.range,
          severity: 'error',
          code: 'test-bad-pattern',
          path: [...path, 'matches'],
          message: `this regular expression does not compile: ${problem}`,
        });
    }
    if (count && !pattern)
      out.push({
        range: count.keyRange,
        severity: 'error',
        code: 'test-count-without-matches',
        path: [...path, 'count'],
        message: 'count is the number of lines that match; write the pattern in matches, e.g. matches: ^O>',
      });
    if (!contains && !pattern && !check.params['not-contains'] && check.params.run)
      out.push({
        range: check.keyRange,
        severity: 'error',
        code: 'test-no-expectation',
        path,
        message: 'say what the output must show: contains, not-contains or matches (with count), e.g. contains: Full',
      });
  }
}

function knownNode(
  doc: LabDocument,
  name: Located<string>,
  path: (string | number)[],
  out: LocalDiagnostic[],
): LabNode | undefined {
  const node = findNode(doc, name.value);
  if (!node)
    out.push({
      range: name.range,
      severity: 'error',
      code: 'unknown-node',
      path,
      message: `the lab has no node ${name.value}${suggestion(doc)}`,
    });
  return node;
}

function suggestion(doc: LabDocument): string {
  const names = [...doc.namesOf('nodes')].slice(0, 8);
  return names.length === 0 ? '' : `; its nodes are ${listInProse(names)}${doc.namesOf('nodes').size > 8 ? ', …' : ''}`;
}

function unsupportedHint(family: ConsoleFamily, kind: string): string {
  if (family === 'frr' && kind === 'ping') return ': vtysh pings without a count; ping from a Linux host instead';
  if (family === 'cisco')
    return ': write it as a command check, e.g. command: {node: r1, run: show ip ospf neighbor, matches: FULL}';
  return '';
}

/** Why a pattern does not compile as the runner compiles it, or undefined. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'm');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
