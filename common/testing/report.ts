/**
 * A test run as CI reads it: TAP 13 (one line per test, the failure as a YAML
 * block) or JUnit XML (one testcase per test, its failure with expected,
 * actual and the last output).
 */
import type { TestResult } from './runner';

export function toTap(results: readonly TestResult[]): string {
  const lines = ['TAP version 13', `1..${results.length}`];
  results.forEach((result, index) => {
    lines.push(`${result.passed ? 'ok' : 'not ok'} ${index + 1} - ${tapDescription(result.name)}`);
    if (result.passed) return;
    lines.push('  ---');
    lines.push(`  message: ${yamlString(result.message.split('\n')[0])}`);
    if (result.node) lines.push(`  node: ${yamlString(result.node)}`);
    if (result.check) lines.push(`  check: ${result.check}`);
    lines.push(`  expected: ${yamlString(result.expected)}`, `  actual: ${yamlString(result.actual)}`);
    if (result.command) lines.push(`  command: ${yamlString(result.command)}`);
    lines.push(`  attempts: ${result.attempts}`);
    if (result.output)
      lines.push(
        '  output: |-',
        ...result.output
          .replace(/\s+$/, '')
          .split('\n')
          .map((l) => `    ${l}`),
      );
    lines.push('  ...');
  });
  return lines.join('\n') + '\n';
}

export function toJUnit(suite: string, results: readonly TestResult[]): string {
  const failures = results.filter((r) => !r.passed).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, r) => sum + r.durationMs, 0);
  const cases = results.map((result) => {
    const open = `  <testcase classname="${xml(suite)}" name="${xml(result.name)}" time="${seconds(result.durationMs)}"`;
    if (result.passed) return `${open}/>`;
    return [
      `${open}>`,
      `    <failure message="${xml(`expected ${result.expected}; actual ${result.actual}`)}" type="${xml(result.check ?? 'not-run')}">${xml(result.message)}</failure>`,
      '  </testcase>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="${xml(suite)}" tests="${results.length}" failures="${failures}" errors="0" time="${seconds(total)}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}

/** A TAP description cannot hold `#` (it starts a directive) or a line break. */
function tapDescription(name: string): string {
  return name.replace(/[\r\n]+/g, ' ').replace(/#/g, '\\#');
}

function yamlString(value: string): string {
  return JSON.stringify(value);
}

/** Text for XML attributes and content. */
function xml(value: string): string {
  // Characters XML 1.0 cannot hold (controls but tab and line ends, lone surrogates) are dropped.
  const kept = [...value].filter((c) => {
    const code = c.codePointAt(0) ?? 0;
    return (
      code === 9 ||
      code === 10 ||
      code === 13 ||
      (code >= 0x20 && (code < 0xd800 || code > 0xdfff) && code !== 0xfffe && code !== 0xffff)
    );
  });
  return kept.join('').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
