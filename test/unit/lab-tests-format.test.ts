/**
 * The tests: section of the lab format: read into the model with ranges,
 * reported before anything runs (unknown node, a check the node's console
 * family cannot run, a pattern that does not compile, shape problems), kept
 * equal by the incremental reparse, and described by the JSON schema exactly
 * as the checks table says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import { CHECKS, CHECK_KINDS } from '../../common/lab/rules/test-checks';
import { validateLab } from '../../common/lab/rules/validate';
import { labTestHover } from '../../server/lab-tests-hover';

const ROOT = join(__dirname, '..', '..', '..');
const OSPF = readFileSync(join(ROOT, 'samples', 'ospf', 'ospf.lab.yaml'), 'utf8');

test("the OSPF sample's tests read with their checks, settings and name ranges, and have no findings", () => {
  const doc = parseLab(OSPF);
  assert.deepEqual(
    doc.tests.map((t) => [t.name, t.check?.kind]),
    [
      ['h1 reaches h2', 'ping'],
      ['h2 reaches h1', 'ping'],
      ['r1 has its OSPF neighbour', 'ospf-neighbors'],
      ['r2 has two OSPF neighbours', 'ospf-neighbors'],
      ['r3 has its OSPF neighbour', 'ospf-neighbors'],
      ["r1 has an OSPF route to h2's network", 'route'],
    ],
  );
  const route = doc.tests[5];
  assert.equal(OSPF.slice(route.nameRange.start, route.nameRange.end), "r1 has an OSPF route to h2's network");
  assert.equal(route.check?.params.nexthop.value, '10.0.12.2');
  assert.equal(doc.tests[3].check?.params.count.value, 2);
  assert.deepEqual(validateLab(doc), []);
});

const BAD = `${OSPF}  r1 pings:
    ping: {from: r1, to: h2}
  to nowhere:
    ping: {from: h1, to: h9}
  typo:
    command: {node: r9, run: show ip route, matches: "O>* (10"}
  two:
    route: {node: h1, prefix: default}
    ping: {from: h1, to: 10.0.2.10}
  none: {}
  slow:
    route: {node: r1}
    timeout: 0
  count alone:
    command: {node: h1, run: ip route, count: 2}
`;

test('bad tests get findings at the right places before anything runs', () => {
  const doc = parseLab(BAD);
  const found = validateLab(doc).map((d) => `${d.code} ${BAD.slice(d.range.start, d.range.end)}`);
  assert.deepEqual(found.sort(), [
    'missing-check none',
    'missing-key route',
    'out-of-range 0',
    'test-bad-pattern "O>* (10"',
    'test-count-without-matches count',
    'test-no-expectation command',
    'test-unsupported-check ping',
    'two-checks ping',
    'unknown-node h9',
    'unknown-node r9',
  ]);
  const unsupported = validateLab(doc).find((d) => d.code === 'test-unsupported-check');
  assert.match(unsupported?.message ?? '', /the console of r1 is FRR's vtysh, which cannot run the ping check/);
});

test('edits inside and around tests give what a full parse gives', () => {
  let doc = parseLab(BAD);
  for (const [find, replace] of [
    ['to: h9', 'to: h2:eth0'],
    ['count: 2}', 'count: 3, matches: default}'],
    ['  none: {}\n', ''],
    ['timeout: 0', 'timeout: 30'],
  ]) {
    const start = doc.text.indexOf(find);
    doc = updateLab(doc, { start, end: start + find.length, text: replace });
    const whole = parseLab(doc.text);
    assert.deepEqual(JSON.parse(JSON.stringify(doc.tests)), JSON.parse(JSON.stringify(whole.tests)), find);
    assert.deepEqual(validateLab(doc), validateLab(whole), find);
  }
});

test('the JSON schema describes each check with the settings of the checks table', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'syntaxes', 'lab.schema.json'), 'utf8'));
  const definition = schema.definitions.test;
  assert.deepEqual(Object.keys(definition.properties), [...CHECK_KINDS, 'timeout']);
  for (const kind of CHECK_KINDS) {
    const check = definition.properties[kind];
    assert.deepEqual(Object.keys(check.properties), Object.keys(CHECKS[kind].params), kind);
    assert.deepEqual(
      check.required,
      Object.entries(CHECKS[kind].params)
        .filter(([, p]) => p.required)
        .map(([n]) => n),
      kind,
    );
    for (const [name, param] of Object.entries(CHECKS[kind].params))
      if (param.type === 'number')
        assert.deepEqual([check.properties[name].minimum, check.properties[name].maximum], [param.min, param.max]);
  }
});

test('hover on a check names what it does, its settings and the consoles that run it', () => {
  const doc = parseLab(OSPF);
  const check = labTestHover(doc, OSPF.indexOf('route: {node: r1') + 2);
  assert.match(
    check?.markdown ?? '',
    /^\*\*route\*\* check: [^]*- `prefix` \(required\)[^]*Runs on FRR's vtysh, a Linux shell\./,
  );
  assert.match(labTestHover(doc, OSPF.indexOf('nexthop') + 1)?.markdown ?? '', /^`nexthop` \(route\): /);
  assert.equal(labTestHover(doc, OSPF.indexOf('h1 reaches h2') + 1), undefined);
});
