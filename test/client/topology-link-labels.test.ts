/**
 * Interface labels at both ends of a link are shown only where the link, as drawn, is long
 * enough for both: at Fit a small lab in a narrow view is drawn closer together (fit-view.ts),
 * down to node centres 64 apart, where the two labels of a link overlapped (the issue).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readableSpread } from '../../client/topology/fit-view';
import { linkLabelsFit } from '../../client/topology/link-labels';

/** The OSPF sample's nodes: a row 160 apart; its links join neighbours, with names such as eth1. */
const OSPF_ROW = [60, 220, 380, 540, 700].map((x) => ({ x, y: 200 }));

test('at the closest Fit draws them, two labels of a horizontal link would overlap: they are not shown', () => {
  const spread = readableSpread(OSPF_ROW, 280, 600);
  const gap = 160 * spread;
  assert.equal(gap, 64, `Fit drew the row ${gap} apart`);
  assert.equal(linkLabelsFit(gap, 0, 'eth1', 'eth2'), false);
});

test('as placed, the same link has room for both labels', () => {
  assert.equal(linkLabelsFit(160, 0, 'eth1', 'eth2'), true);
});

test('a vertical link needs less room than a horizontal one (labels are as high as a line, not as wide as a name)', () => {
  const names = ['GigabitEthernet0/1', 'GigabitEthernet0/2'] as const;
  assert.equal(linkLabelsFit(130, 0, ...names), false);
  assert.equal(linkLabelsFit(0, 130, ...names), true);
});

test('a link with a label at one end only (a network) needs room for that one', () => {
  assert.equal(linkLabelsFit(100, 0, 'eth1', ''), true);
  assert.equal(linkLabelsFit(100, 0, 'eth1', 'eth2'), false);
});

test('nodes on top of each other leave no room', () => {
  assert.equal(linkLabelsFit(0, 0, 'a', 'b'), false);
});
