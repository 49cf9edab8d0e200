import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../common/lab/parse';
import { validateLab, type LocalDiagnostic } from '../../common/lab/validate';

/** The diagnostics as `code @ text-under-range`, so every assertion also checks the range. */
function findings(text: string): string[] {
  return validateLab(parseLab(text)).map((d: LocalDiagnostic) => `${d.code} @ ${text.slice(d.range.start, d.range.end)}`);
}

const lab = (body: string) => `name: t\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nnetworks:\n  mgmt:\n    type: pnet1\n${body}`;

test('the sample lab has no local findings', () => {
  const text = readFileSync(join(__dirname, '../../../samples/campus.lab.yaml'), 'utf8');
  assert.deepEqual(findings(text), []);
});

test('a YAML syntax error is reported at its place', () => {
  const text = 'name: t\nnodes:\n  r1: {template: vios\n';
  const all = validateLab(parseLab(text));
  assert.ok(all.some((d) => d.code === 'yaml-syntax' && d.severity === 'error'), JSON.stringify(all));
});

test('an unknown key is reported on the key, naming the accepted keys', () => {
  const text = lab('links: []\ncolour: red\n');
  const d = validateLab(parseLab(text)).find((x) => x.code === 'unknown-key');
  assert.ok(d);
  assert.equal(text.slice(d.range.start, d.range.end), 'colour');
  assert.match(d.message, /nodes/);
});

test('a node without a template is reported on its name', () => {
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    image: x\n'), ['missing-template @ r1']);
});

test('a template under defaults satisfies every node', () => {
  assert.deepEqual(findings('name: t\ndefaults:\n  template: vios\nnodes:\n  r1:\n    image: x\n'), []);
});

test('an interface used twice is reported at both uses', () => {
  const got = findings(lab('links:\n  - endpoints: [r1:Gi0/0, r2:Gi0/0]\n  - endpoints: [r1:Gi0/0, mgmt]\n'));
  assert.deepEqual(got.sort(), ['interface-in-use @ Gi0/0', 'interface-in-use @ Gi0/0']);
});

test('an endpoint naming an unknown node or network is reported on the name', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r9:Gi0/0, r2:Gi0/0]\n')), ['unknown-node @ r9']);
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, lan9]\n')), ['unknown-network @ lan9']);
});

test('a link whose two ends are the same is reported', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, r1:Gi0/0]\n')), ['same-endpoints @ r1:Gi0/0']);
});

test('a value of the wrong type says what is accepted', () => {
  const text = 'name: t\nnodes:\n  r1:\n    template: vios\n    cpu: two\n';
  const [d] = validateLab(parseLab(text));
  assert.equal(d.code, 'wrong-type');
  assert.equal(text.slice(d.range.start, d.range.end), 'two');
  assert.match(d.message, /whole number/);
  assert.deepEqual(d.path, ['nodes', 'r1', 'cpu']);
});

test('out-of-range numbers, bad consoles and bad names are reported at the value', () => {
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    template: vios\n    ethernet: 0\n    console: ssh\n'),
    ['bad-console @ ssh', 'out-of-range @ 0']);
  assert.deepEqual(findings('name: a/b\nnodes: {}\n'), ['invalid-lab-name @ a/b']);
});

test('a link needs exactly two endpoints and at most one network', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0]\n')).map((f) => f.split(' @')[0]), ['endpoint-count']);
  const text = lab('networks2: x\n').replace('networks2: x\n', '') + 'links:\n  - endpoints: [mgmt, mgmt2]\n';
  assert.ok(findings(text).some((f) => f.startsWith('two-networks') || f.startsWith('unknown-network')));
});

test('half-typed documents never throw and still validate what they can', () => {
  const text = lab('links:\n  - endpoints: [r1:');
  assert.doesNotThrow(() => validateLab(parseLab(text)));
  for (let i = 0; i <= text.length; i++) assert.doesNotThrow(() => validateLab(parseLab(text.slice(0, i))));
});
