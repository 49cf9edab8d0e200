/**
 * Fit: a small lab in a narrow view is drawn closer together so its names stay
 * readable (the OSPF sample beside an editor is the case the issue saw: five
 * nodes 160 apart in a view under 300 px wide); never so close that nodes crowd;
 * a large lab or a wide view is drawn as placed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitView, readableSpread } from '../../client/topology/fit-view';

/** The OSPF sample's nodes: a row from x 60 to 700 at y 200. */
const OSPF_ROW = [60, 220, 380, 540, 700].map((x) => ({ x, y: 200 }));
/** What Cytoscape draws a name at (11 px font) under a zoom, and the smallest size it draws at all. */
const namePixels = (zoom: number): number => 11 * zoom;
const spreadOut = (spread: number) => OSPF_ROW.map((p) => ({ x: p.x * spread, y: p.y * spread }));

for (const [width, readable] of [
  [480, 9.5],
  // The drawing beside the element list in a topology view beside the editor (the e2e test's).
  [280, 9],
])
  test(`the OSPF sample in a ${width} px wide view: drawn closer, names readable, every node in view`, () => {
    const height = 600;
    const asPlaced = fitView(OSPF_ROW, width, height, 0.02);
    assert.ok(
      asPlaced && namePixels(asPlaced.zoom) < readable,
      'as placed, Fit would draw names too small (the issue)',
    );
    const spread = readableSpread(OSPF_ROW, width, height);
    assert.ok(spread < 1, `spread ${spread}`);
    const view = fitView(spreadOut(spread), width, height, 0.02);
    assert.ok(view);
    assert.ok(namePixels(view.zoom) >= readable, `names ${namePixels(view.zoom).toFixed(1)} px high`);
    for (const p of spreadOut(spread)) {
      const x = p.x * view.zoom + view.pan.x;
      assert.ok(x >= 0 && x <= width, `a node is drawn at x ${x}, outside the view`);
    }
    const gap = (OSPF_ROW[1].x - OSPF_ROW[0].x) * spread;
    assert.ok(gap >= 64 - 1e-6, `nodes ${gap.toFixed(1)} apart (44 wide each) crowd each other`);
  });

test('a view too narrow even for nodes side by side: nodes never overlap, the lab is zoomed out instead', () => {
  const spread = readableSpread(OSPF_ROW, 150, 600);
  const view = fitView(spreadOut(spread), 150, 600, 0.02);
  assert.ok(view);
  assert.ok((OSPF_ROW[1].x - OSPF_ROW[0].x) * spread >= 64 - 1e-6, `spread ${spread} packs nodes too close`);
  assert.ok(view.zoom < 0.9, 'the lab does not fit without zooming out');
});

test('a wide view, a single node or a large lab: drawn as placed', () => {
  assert.equal(readableSpread(OSPF_ROW, 1200, 600), 1);
  assert.equal(readableSpread([{ x: 0, y: 0 }], 100, 100), 1);
  const large = Array.from({ length: 61 }, (_, i) => ({ x: (i % 10) * 150, y: Math.floor(i / 10) * 150 }));
  assert.equal(readableSpread(large, 300, 300), 1);
});

test('nodes on one spot (not yet placed apart) do not make the spread collapse or become NaN', () => {
  const spread = readableSpread(
    [
      { x: 5, y: 5 },
      { x: 5, y: 5 },
      { x: 900, y: 5 },
    ],
    300,
    300,
  );
  assert.ok(Number.isFinite(spread) && spread > 0 && spread <= 1, `spread ${spread}`);
});
