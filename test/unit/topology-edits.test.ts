/**
 * The topology view's edits change only the lines that must change: a
 * position's numbers, one inserted line, one link item's lines; and what they
 * produce reads back as the change asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../common/lab/parse/parse';
import type { TopologyChange } from '../../common/protocol';
import { applyEdits } from '../../common/lab/model/line-edits';
import { topologyEdits } from '../../server/topology-edits';

const SAMPLE = readFileSync(join(__dirname, '..', '..', '..', 'samples', 'campus.lab.yaml'), 'utf8');

function applied(text: string, change: TopologyChange): string {
  const outcome = topologyEdits(parseLab(text), change);
  assert.ok('edits' in outcome, `refused: ${'error' in outcome ? outcome.error : ''}`);
  const after = applyEdits(text, outcome.edits);
  assert.ok(after !== undefined, 'the edits overlap');
  return after;
}

function refusal(text: string, change: TopologyChange): string {
  const outcome = topologyEdits(parseLab(text), change);
  assert.ok('error' in outcome, 'the change was not refused');
  return outcome.error;
}

/** The lines of `after` that differ from `before`, and how many lines were added (negative: removed). */
function lineDiff(before: string, after: string): { changed: string[]; added: number } {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { changed: b.slice(head, b.length - tail), added: b.length - a.length };
}

test('moving a node with a flow position changes its one position line, numbers only', () => {
  const after = applied(SAMPLE, { kind: 'position', node: 'r1', x: 300.4, y: 222 });
  assert.deepEqual(lineDiff(SAMPLE, after), { changed: ['    position: {x: 300, y: 222}'], added: 0 });
  assert.deepEqual(parseLab(after).nodes.find((n) => n.name === 'r1')?.resolved.position, { x: 300, y: 222 });
});

test("a position keeps the user's own spacing and block style", () => {
  const spaced = 'nodes:\n  r1:\n    template: vios\n    position: { x: 1, y: 2 }   # here\n';
  assert.equal(
    applied(spaced, { kind: 'position', node: 'r1', x: 10, y: 2 }),
    'nodes:\n  r1:\n    template: vios\n    position: { x: 10, y: 2 }   # here\n',
  );
  const block = 'nodes:\n  r1:\n    position:\n      x: 1\n      y: 2\n    template: vios\n';
  assert.equal(
    applied(block, { kind: 'position', node: 'r1', x: 5, y: 6 }),
    'nodes:\n  r1:\n    position:\n      x: 5\n      y: 6\n    template: vios\n',
  );
});

test('a node without a position gets one line after its last setting, at its settings’ indent', () => {
  const text =
    'nodes:\n   r1:\n      template: vios\n      ethernet: 4   # four\n   r2:\n      template: vios\nlinks: []\n';
  const after = applied(text, { kind: 'position', node: 'r1', x: 7, y: 8 });
  assert.equal(
    after,
    'nodes:\n   r1:\n      template: vios\n      ethernet: 4   # four\n      position: {x: 7, y: 8}\n   r2:\n      template: vios\nlinks: []\n',
  );
  assert.deepEqual(lineDiff(text, after), { changed: ['      position: {x: 7, y: 8}'], added: 1 });
});

test('a flow-map node and an empty node get their position in place', () => {
  assert.equal(
    applied('nodes:\n  r1: {template: vios}\n', { kind: 'position', node: 'r1', x: 1, y: 2 }),
    'nodes:\n  r1: {template: vios, position: {x: 1, y: 2}}\n',
  );
  assert.equal(
    applied('nodes:\n  r1:\n  r2: {}\n', { kind: 'position', node: 'r1', x: 1, y: 2 }),
    'nodes:\n  r1:\n    position: {x: 1, y: 2}\n  r2: {}\n',
  );
});

test('positions are whole numbers within the format’s limits; unknown nodes are refused', () => {
  const after = applied(SAMPLE, { kind: 'position', node: 'r1', x: -20, y: 1e9 });
  assert.deepEqual(parseLab(after).nodes.find((n) => n.name === 'r1')?.resolved.position, { x: 0, y: 100000 });
  assert.match(refusal(SAMPLE, { kind: 'position', node: 'nope', x: 1, y: 1 }), /no node nope/);
});

test('a new link is one line after the last link, at its indent', () => {
  const after = applied(SAMPLE, { kind: 'addLink', endpoints: ['r1:Gi0/3', 'srv1:e2'] });
  const { changed, added } = lineDiff(SAMPLE, after);
  assert.equal(added, 1);
  assert.deepEqual(changed, ['  - endpoints: [r1:Gi0/3, srv1:e2]']);
  const links = parseLab(after).links;
  assert.deepEqual(
    links[links.length - 1].endpoints.map((e) => e.text),
    ['r1:Gi0/3', 'srv1:e2'],
  );
});

test('a new link starts the links section when there is none, or fills an empty one', () => {
  assert.equal(
    applied('nodes:\n  a: {}\n  b: {}\n', { kind: 'addLink', endpoints: ['a:e0', 'b:e0'] }),
    'nodes:\n  a: {}\n  b: {}\nlinks:\n  - endpoints: [a:e0, b:e0]\n',
  );
  assert.equal(
    applied('nodes:\n  a: {}\nlinks:   # none yet\nnetworks:\n  m: {}\n', {
      kind: 'addLink',
      endpoints: ['a:e0', 'm'],
    }),
    'nodes:\n  a: {}\nlinks:   # none yet\n  - endpoints: [a:e0, m]\nnetworks:\n  m: {}\n',
  );
  assert.equal(
    applied('nodes:\n  a: {}\nlinks: []\n', { kind: 'addLink', endpoints: ['a:e0', 'a:e1'] }),
    'nodes:\n  a: {}\nlinks:\n  - endpoints: [a:e0, a:e1]\n',
  );
});

test('a new link must name nodes and networks of the lab; a flow list of links is refused', () => {
  assert.match(refusal(SAMPLE, { kind: 'addLink', endpoints: ['r9:Gi0/0', 'mgmt'] }), /no node r9/);
  assert.match(refusal(SAMPLE, { kind: 'addLink', endpoints: ['r1:Gi0/3', 'wan'] }), /no network wan/);
  assert.match(refusal(SAMPLE, { kind: 'addLink', endpoints: ['r1:a b', 'mgmt'] }), /not an interface name/);
  assert.match(
    refusal('nodes:\n  a: {}\nlinks: [{endpoints: [a:e0, a:e1]}]\n', { kind: 'addLink', endpoints: ['a:e2', 'a:e3'] }),
    /flow list/,
  );
});

test('deleting a link removes exactly its lines, comments around it stay', () => {
  const doc = parseLab(SAMPLE);
  const blockIndex = doc.links.length - 1;
  const after = applied(SAMPLE, { kind: 'deleteLink', index: blockIndex });
  assert.equal(after, SAMPLE.replace('  - endpoints:\n      - srv1:e1\n      - mgmt\n', ''));
  const first = applied(SAMPLE, { kind: 'deleteLink', index: 0 });
  assert.equal(first, SAMPLE.replace('  - endpoints: [edge1:Gi1, r1:Gi0/0]\n', ''));
  assert.ok(first.includes('  # WAN edge to the core\n'));
  assert.equal(parseLab(first).links.length, doc.links.length - 1);
});

test('deleting the last line of a file without a final line break, and refusals', () => {
  assert.equal(
    applied('links:\n  - endpoints: [a:e0, m]\n  - endpoints: [a:e1, m]', { kind: 'deleteLink', index: 1 }),
    'links:\n  - endpoints: [a:e0, m]',
  );
  assert.match(refusal(SAMPLE, { kind: 'deleteLink', index: 99 }), /no link 100/);
  assert.match(refusal('links: [{endpoints: [a:e0, m]}]\n', { kind: 'deleteLink', index: 0 }), /shares its line/);
});
