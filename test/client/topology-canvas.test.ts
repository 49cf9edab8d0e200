/**
 * The pure parts of the topology drawing: which renderer draws a lab, where
 * nodes are placed, and which element is under the pointer in the canvas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GraphNode } from '../../client/topology/messages';
import { NodeBuckets, distanceToSegment, segmentAt } from '../../client/topology/hit-test';
import { CELL, Placement } from '../../client/topology/placement';
import { DETAILED_LINKS_MAX, rendererFor } from '../../client/topology/renderer-choice';

const node = (name: string, position?: { x: number; y: number }): GraphNode => ({
  id: `node:${name}`,
  kind: 'node',
  name,
  symbol: 'router',
  detail: 'vios',
  ...(position ? { position } : {}),
  actions: [],
});

test('labs up to the threshold are drawn by Cytoscape, larger ones on the canvas', () => {
  assert.equal(rendererFor(0), 'cytoscape');
  assert.equal(rendererFor(DETAILED_LINKS_MAX), 'cytoscape');
  assert.equal(rendererFor(DETAILED_LINKS_MAX + 1), 'canvas');
  assert.equal(rendererFor(4000), 'canvas');
});

test('nodes without a position take free grid cells below the placed ones, and keep them', () => {
  const nodes = [node('r1', { x: 100, y: 50 }), node('r2', { x: 300, y: 250 }), node('a'), node('b'), node('c')];
  const placement = new Placement(nodes);
  assert.deepEqual(placement.at(nodes[0]), { x: 100, y: 50 });
  assert.deepEqual(placement.at(nodes[2]), { x: 100, y: 250 + CELL });
  assert.deepEqual(placement.at(nodes[3]), { x: 100 + CELL, y: 250 + CELL });
  assert.deepEqual(placement.at(nodes[4]), { x: 100 + 2 * CELL, y: 250 + CELL });
  // Stable: asked again, in any order, a node gets the cell it has.
  assert.deepEqual(placement.at(nodes[3]), { x: 100 + CELL, y: 250 + CELL });
  // A node that gets a position frees its cell, which the next new node takes.
  assert.deepEqual(placement.at(node('a', { x: 0, y: 0 })), { x: 0, y: 0 });
  assert.deepEqual(placement.at(node('d')), { x: 100, y: 250 + CELL });
  assert.deepEqual(placement.at(nodes[4]), { x: 100 + 2 * CELL, y: 250 + CELL });
});

test('the grid is as wide as the square of the unplaced nodes, at least six columns', () => {
  const nodes = Array.from({ length: 100 }, (_, i) => node(`n${i}`));
  const placement = new Placement(nodes);
  const at = nodes.map((n) => placement.at(n));
  assert.deepEqual(at[9], { x: 9 * CELL, y: 0 });
  assert.deepEqual(at[10], { x: 0, y: CELL });
  const small = new Placement([node('x')]);
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6].map((i) => small.place(`n${i}`).y),
    [0, 0, 0, 0, 0, 0, CELL],
  );
});

test('a node is hit inside its box, the nearest one wins, and a moved node is found where it went', () => {
  const buckets = new NodeBuckets(CELL);
  const half = { x: 22, y: 22 };
  buckets.set('a', { x: 0, y: 0 });
  buckets.set('b', { x: 30, y: 0 });
  buckets.set('c', { x: 139, y: 139 });
  assert.equal(
    buckets.at({ x: 10, y: 5 }, () => half),
    'a',
  );
  assert.equal(
    buckets.at({ x: 20, y: 5 }, () => half),
    'b',
  );
  assert.equal(
    buckets.at({ x: -23, y: 0 }, () => half),
    undefined,
  );
  // Across a bucket border.
  assert.equal(
    buckets.at({ x: 141, y: 141 }, () => half),
    'c',
  );
  assert.equal(
    buckets.at({ x: 0, y: 21 }, (id) => (id === 'a' ? { x: 22, y: 20 } : half)),
    undefined,
  );
  buckets.set('c', { x: 1000, y: -500 });
  assert.equal(
    buckets.at({ x: 141, y: 141 }, () => half),
    undefined,
  );
  assert.equal(
    buckets.at({ x: 1010, y: -490 }, () => half),
    'c',
  );
  buckets.delete('a');
  assert.equal(
    buckets.at({ x: 0, y: 0 }, () => half),
    undefined,
  );
});

test('a link is hit near its segment, not beyond its ends', () => {
  assert.equal(distanceToSegment({ x: 5, y: 3 }, { x: 0, y: 0 }, { x: 10, y: 0 }), 3);
  assert.equal(distanceToSegment({ x: 13, y: 4 }, { x: 0, y: 0 }, { x: 10, y: 0 }), 5);
  assert.equal(distanceToSegment({ x: 3, y: 4 }, { x: 0, y: 0 }, { x: 0, y: 0 }), 5);
  const links = [
    { id: 'link:0', from: { x: 0, y: 0 }, to: { x: 100, y: 0 } },
    { id: 'link:1', from: { x: 0, y: 10 }, to: { x: 100, y: 10 } },
  ];
  assert.equal(segmentAt({ x: 50, y: 3 }, links, 4), 'link:0');
  assert.equal(segmentAt({ x: 50, y: 7 }, links, 4), 'link:1');
  assert.equal(segmentAt({ x: 50, y: 20 }, links, 4), undefined);
  assert.equal(segmentAt({ x: 106, y: 0 }, links, 4), undefined);
});
