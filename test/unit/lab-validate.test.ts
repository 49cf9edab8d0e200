import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import { LineIndex } from '../../common/lab/model/positions';
import type { TextChange } from '../../common/lab/model/types';
import { LabChecks, validateLab, validateLabUpTo, type LocalDiagnostic } from '../../common/lab/rules/validate';
import { generateLab } from '../support/generate-lab';
import { TypingSimulator } from '../support/typing';

/** The diagnostics as `code @ text-under-range`, so every assertion also checks the range. */
function findings(text: string): string[] {
  return validateLab(parseLab(text)).map(
    (d: LocalDiagnostic) => `${d.code} @ ${text.slice(d.range.start, d.range.end)}`,
  );
}

function only(text: string, code: string): LocalDiagnostic {
  const all = validateLab(parseLab(text)).filter((d) => d.code === code);
  assert.equal(all.length, 1, JSON.stringify(validateLab(parseLab(text)), null, 1));
  return all[0];
}

const lab = (body: string) =>
  `name: t\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nnetworks:\n  mgmt:\n    type: pnet1\n${body}`;

test('the sample lab has no local findings', () => {
  const text = readFileSync(join(__dirname, '../../../samples/campus.lab.yaml'), 'utf8');
  assert.deepEqual(findings(text), []);
});

test('a generated 300-node lab has no local findings', () => {
  assert.deepEqual(findings(generateLab(300, { seed: 4 })), []);
});

test('a YAML syntax error is reported at its place', () => {
  const text = 'name: t\nnodes:\n  r1: {template: vios\n';
  const d = only(text, 'yaml-syntax');
  assert.equal(d.severity, 'error');
  assert.ok(d.range.start >= text.indexOf('{') && d.range.end <= text.length);
  assert.match(d.message, /^YAML syntax: /);
});

test('an unknown key is reported on the key, naming the accepted keys', () => {
  const text = lab('links: []\ncolour: red\n');
  const d = only(text, 'unknown-key');
  assert.equal(text.slice(d.range.start, d.range.end), 'colour');
  assert.match(d.message, /name, description, defaults, nodes, networks, links and tests/);
  assert.deepEqual(d.path, ['colour']);
});

test('a node without a template is reported on its name', () => {
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    image: x\n'), ['missing-template @ r1']);
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n'), ['missing-template @ r1']);
});

test('a template under defaults satisfies every node', () => {
  assert.deepEqual(findings('name: t\ndefaults:\n  template: vios\nnodes:\n  r1:\n    image: x\n'), []);
});

test('an interface used twice is reported at both uses, naming the other link', () => {
  const text = lab('links:\n  - endpoints: [r1:Gi0/0, r2:Gi0/0]\n  - endpoints: [r1:Gi0/0, mgmt]\n');
  const all = validateLab(parseLab(text)).filter((d) => d.code === 'interface-in-use');
  assert.deepEqual(
    all.map((d) => text.slice(d.range.start, d.range.end)),
    ['Gi0/0', 'Gi0/0'],
  );
  assert.deepEqual(
    all.map((d) => d.path),
    [
      ['links', 0, 'endpoints', 0],
      ['links', 1, 'endpoints', 0],
    ],
  );
  assert.match(all[0].message, /r1:Gi0\/0 is also used by the link r1:Gi0\/0 -- mgmt/);
  assert.match(all[1].message, /r1:Gi0\/0 -- r2:Gi0\/0/);
  assert.equal(findings(text).length, 2);
});

test('an endpoint naming an unknown node or network is reported on the name', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r9:Gi0/0, r2:Gi0/0]\n')), ['unknown-node @ r9']);
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, lan9]\n')), ['unknown-network @ lan9']);
  assert.match(
    only(lab('links:\n  - endpoints: [r9:Gi0/0, r2:Gi0/0]\n'), 'unknown-node').message,
    /r9 is not a node of this lab.*did you mean r1 or r2\?/,
  );
});

test('a network written as node:interface, or a node without interface, says how to write it', () => {
  assert.match(
    only(lab('links:\n  - endpoints: [r1:Gi0/0, mgmt:eth0]\n'), 'unknown-node').message,
    /mgmt is a network.*write just mgmt/,
  );
  assert.match(
    only(lab('links:\n  - endpoints: [r1:Gi0/0, r2]\n'), 'unknown-network').message,
    /r2 is a node; name one of its interfaces/,
  );
});

test('a half-typed endpoint lacks its interface, reported on the endpoint', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, r2:]\n')), ['missing-interface @ r2:']);
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, :Gi0/1]\n')), ['missing-node @ :Gi0/1']);
});

test('a link whose two ends are the same is reported once, on the second end', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, r1:Gi0/0]\n')), ['same-endpoints @ r1:Gi0/0']);
  assert.equal(
    only(lab('links:\n  - endpoints: [r1:Gi0/0, r1:Gi0/0]\n'), 'same-endpoints').range.start,
    lab('links:\n  - endpoints: [r1:Gi0/0, ').length,
  );
});

test('a link joining a node to itself on two interfaces is fine', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0, r1:Gi0/1]\n')), []);
});

test('a value of the wrong type says what is accepted', () => {
  const text = 'name: t\nnodes:\n  r1:\n    template: vios\n    cpu: two\n';
  const [d] = validateLab(parseLab(text));
  assert.equal(d.code, 'wrong-type');
  assert.equal(text.slice(d.range.start, d.range.end), 'two');
  assert.equal(d.message, 'cpu must be a whole number, e.g. cpu: 2');
  assert.deepEqual(d.path, ['nodes', 'r1', 'cpu']);
});

test('out-of-range numbers, bad consoles and bad names are reported at the value', () => {
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    template: vios\n    ethernet: 0\n    console: ssh\n'), [
    'bad-console @ ssh',
    'out-of-range @ 0',
  ]);
  assert.match(
    only('name: t\nnodes:\n  r1:\n    template: vios\n    console: ssh\n', 'bad-console').message,
    /telnet, vnc or rdp/,
  );
  assert.match(
    only('name: t\nnodes:\n  r1:\n    template: vios\n    ethernet: 65\n', 'out-of-range').message,
    /between 1 and 64/,
  );
  assert.deepEqual(findings('name: t\ndefaults:\n  cpu: 0\nnodes: {}\n'), ['out-of-range @ 0']);
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    template: vios\n    position: {x: -5, y: 3}\n'), [
    'out-of-range @ {x: -5, y: 3}',
  ]);
  assert.deepEqual(findings('name: a/b\nnodes: {}\n'), ['invalid-lab-name @ a/b']);
  assert.deepEqual(findings('name: t\nnodes:\n  "r 1":\n    template: vios\n'), ['invalid-node-name @ "r 1"']);
  assert.deepEqual(findings('name: t\nnetworks:\n  "lan.1": {type: bridge}\n'), ['invalid-network-name @ "lan.1"']);
});

test('a config path must stay inside the lab folder', () => {
  for (const path of ['/etc/r1.cfg', '../r1.cfg', 'configs/../../r1.cfg', 'C:/r1.cfg', 'configs\\r1.cfg']) {
    assert.deepEqual(
      findings(`name: t\nnodes:\n  r1:\n    template: vios\n    config: ${path}\n`),
      [`invalid-config-path @ ${path}`],
      path,
    );
  }
  assert.deepEqual(findings('name: t\nnodes:\n  r1:\n    template: vios\n    config: configs/r1.cfg\n'), []);
});

test('a lab without a name gets a warning on the first line', () => {
  const d = only('nodes: {}\n', 'missing-name');
  assert.equal(d.severity, 'warning');
  assert.deepEqual(d.range, { start: 0, end: 'nodes: {}'.length });
});

test('a link needs exactly two endpoints and at most one network', () => {
  assert.deepEqual(findings(lab('links:\n  - endpoints: [r1:Gi0/0]\n')), ['endpoint-count @ - endpoints: [r1:Gi0/0]']);
  assert.match(
    only(lab('links:\n  - endpoints: [r1:Gi0/0, r2:Gi0/0, mgmt]\n'), 'endpoint-count').message,
    /exactly two endpoints; this one has 3/,
  );
  assert.deepEqual(findings(lab('links:\n  - {}\n')), ['endpoint-count @ - {}']);
  const text = lab('links:\n  - endpoints: [mgmt, mgmt]\n');
  assert.deepEqual(findings(text), ['two-networks @ - endpoints: [mgmt, mgmt]']);
});

test('diagnostics carry the path the agent uses for the same value', () => {
  const text = lab('links:\n  - endpoints: [r1:Gi0/0, r9:Gi0/0]\n');
  const doc = parseLab(text);
  for (const d of validateLab(doc)) {
    assert.ok(d.path, d.code);
    const range = doc.rangeOfPath(d.path);
    assert.ok(
      range && range.start <= d.range.start && d.range.end <= range.end,
      `${d.code} at ${JSON.stringify(d.path)}`,
    );
  }
});

test('half-typed documents never throw and still validate what they can', () => {
  const text = lab('links:\n  - endpoints: [r1:');
  for (let i = 0; i <= text.length; i++) assert.doesNotThrow(() => validateLab(parseLab(text.slice(0, i))));
  assert.ok(findings(text).includes('missing-interface @ r1:'));
});

test('validateLabUpTo gives the first findings of validateLab and counts them all', () => {
  const nodes = Array.from({ length: 300 }, (_, i) => `  r${i}:\n    templat: vios\n`).join('');
  const links = Array.from({ length: 200 }, (_, i) => `  - endpoints: [r${i}:e0, x${i}:e0]\n`).join('');
  const broken = 'name: lab\nnodes:\n  r0:\n    template: [vios\n';
  for (const text of [`nodes:\n${nodes}links:\n${links}`, `${broken}${nodes.slice(6)}links:\n${links}`]) {
    const doc = parseLab(text);
    const all = validateLab(doc);
    assert.ok(all.length > 400, `${all.length} findings`);
    for (const limit of [0, 1, 50, 299, 300, 301, all.length - 1, all.length, all.length + 5]) {
      const { shown, total } = validateLabUpTo(doc, limit);
      assert.equal(total, all.length, `total with limit ${limit}`);
      assert.deepEqual(shown, all.slice(0, limit), `shown with limit ${limit}`);
    }
  }
});

test('LabChecks over the versions of a typing run finds exactly what validateLab finds in each', () => {
  // Typing makes and mends unknown nodes, repeated interfaces, broken links and renamed nodes; every so often the
  // model is parsed afresh (every element new), and a limit cuts the findings mid-element.
  const typing = new TypingSimulator(generateLab(120, { seed: 3 }), 11);
  let doc = parseLab(typing.text);
  const checks = new LabChecks();
  const limited = new LabChecks();
  const seen = new Set<string>();
  for (let step = 0; step < 1500; step++) {
    const change = typing.next();
    doc = step % 500 === 499 ? parseLab(typing.text) : updateLab(doc, changeIn(doc.text, change));
    assert.equal(doc.text, typing.text, `step ${step}: the model follows the typing`);
    const expected = validateLabUpTo(doc, Infinity);
    assert.deepStrictEqual(checks.check(doc, Infinity), expected, `step ${step}`);
    assert.deepStrictEqual(limited.check(doc, 40), validateLabUpTo(doc, 40), `step ${step}, at most 40`);
    for (const finding of expected.shown) seen.add(finding.code);
  }
  for (const code of ['unknown-node', 'missing-interface', 'endpoint-count', 'yaml-syntax'])
    assert.ok(seen.has(code), `the run made ${code} findings (made: ${[...seen].join(', ')})`);
});

test('LabChecks follows interfaces used twice, and names that come and go, from version to version', () => {
  let doc = parseLab(generateLab(30, { seed: 4 }));
  const checks = new LabChecks();
  const step = (what: string, change: { start: number; end: number; text: string }, codes: string[]) => {
    doc = updateLab(doc, change);
    const found = checks.check(doc, Infinity);
    assert.deepStrictEqual(found, validateLabUpTo(doc, Infinity), what);
    assert.deepStrictEqual([...new Set(found.shown.map((d) => d.code))], codes, what);
  };
  assert.deepStrictEqual(checks.check(doc, Infinity), { shown: [], total: 0 });
  const link = /^ {2}- endpoints: .*\n/m.exec(doc.text);
  assert.ok(link);
  const end = doc.text.length;
  step('a link copied to the end', { start: end, end, text: link[0] }, ['interface-in-use']);
  step('the copy removed', { start: end, end: end + link[0].length, text: '' }, []);
  const node = doc.text.indexOf(`  ${doc.nodes[0].name}:`) + 2;
  step('the first node renamed', { start: node, end: node, text: 'x' }, ['unknown-node']);
  step('its name back', { start: node, end: node + 1, text: '' }, []);
  step('the copy again, above the others', { start: link.index, end: link.index, text: link[0] }, ['interface-in-use']);
  step('and a third one', { start: link.index, end: link.index, text: link[0] }, ['interface-in-use']);
  step('one of them removed', { start: link.index, end: link.index + link[0].length, text: '' }, ['interface-in-use']);
  const [a] = doc.links[0].endpoints.map((e) => e.text);
  const three = `  - endpoints: [${a}, x9:Gi0/0, ${a}]\n`;
  const last = doc.text.length;
  step('a link with three ends, one of them twice', { start: last, end: last, text: three }, [
    'endpoint-count',
    'unknown-node',
    'interface-in-use',
  ]);
});

/** An LSP change as a change of `text`'s offsets. */
function changeIn(text: string, change: TextDocumentContentChangeEvent): TextChange {
  if (!('range' in change)) return { start: 0, end: text.length, text: change.text };
  return { ...new LineIndex(text).toRange(change.range), text: change.text };
}
