import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyBulkResult } from '../../common/api/contract';
import { summarizeBulk } from '../../client/model/bulk-summary';

const zero = emptyBulkResult();

test('a clean start names each outcome and is informational', () => {
  const s = summarizeBulk({ ...zero, requested: 3, started: 2, already_running: 1 }, 'start', 'campus');
  assert.equal(s.text, 'Start campus: 3 nodes requested; 2 started, 1 already running.');
  assert.equal(s.severity, 'info');
});

test('one node, stopped', () => {
  const s = summarizeBulk({ ...zero, requested: 1, stopped: 1 }, 'stop', 'campus/r1');
  assert.equal(s.text, 'Stop campus/r1: 1 node requested; 1 stopped.');
});

test('partial failure is a warning with a hint; total failure an error', () => {
  const partial = summarizeBulk({ ...zero, requested: 3, started: 2, failed: 1 }, 'start', 'campus');
  assert.equal(partial.severity, 'warning');
  assert.match(partial.text, /2 started, 1 failed\./);
  assert.match(partial.text, /refused one node/);
  const total = summarizeBulk({ ...zero, requested: 2, failed: 2 }, 'start', 'campus');
  assert.equal(total.severity, 'error');
  assert.match(total.text, /refused some nodes/);
});

test('an unknown node is reported as not in the deployed lab', () => {
  const s = summarizeBulk({ ...zero, requested: 1, invalid: 1 }, 'wipe', 'campus/zz');
  assert.equal(s.severity, 'error');
  assert.equal(s.text, 'Wipe campus/zz: 1 node requested; 1 not in the deployed lab.');
});

test('nothing to do, and garbage counters count as zero', () => {
  assert.equal(summarizeBulk(zero, 'stop', 'campus').text, 'Stop campus: 0 nodes requested; nothing to do.');
  const odd = summarizeBulk({ requested: 2, started: Number.NaN, wiped: 2 }, 'wipe', 'campus');
  assert.equal(odd.text, 'Wipe campus: 2 nodes requested; 2 wiped.');
});
