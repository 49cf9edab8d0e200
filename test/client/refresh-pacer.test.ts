import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  actionTaken,
  afterLoad,
  FOLLOW_ACTION_MS,
  initialPace,
  intervalMsOf,
  SETTLING_MS,
  type PaceState,
} from '../../client/model/refresh-pacer';

const settings = { intervalMs: 10_000 };

function delays(loads: { fingerprint: string; settling?: boolean }[], from: PaceState = initialPace, now = 0) {
  let state = from;
  return loads.map((l) => {
    const next = afterLoad(state, { fingerprint: l.fingerprint, settling: l.settling ?? false }, now, settings);
    state = next.state;
    return next.delayMs;
  });
}

test('nothing changes: the pace slows down to a bound', () => {
  assert.deepEqual(
    delays(Array.from({ length: 7 }, () => ({ fingerprint: 'same' }))),
    [10_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000],
  );
});

test('a change brings the pace back to the interval', () => {
  assert.deepEqual(
    delays([
      { fingerprint: 'a' },
      { fingerprint: 'a' },
      { fingerprint: 'a' },
      { fingerprint: 'b' },
      { fingerprint: 'b' },
    ]),
    [10_000, 10_000, 20_000, 10_000, 10_000],
  );
});

test('nodes in transition are followed at the settling pace until they settle', () => {
  assert.deepEqual(
    delays([
      { fingerprint: 'a', settling: true },
      { fingerprint: 'a', settling: true },
      { fingerprint: 'b' },
      { fingerprint: 'b' },
    ]),
    [SETTLING_MS, SETTLING_MS, 10_000, 10_000],
  );
});

test('after an action the view follows at the settling pace for a while, then slows down', () => {
  const followed = actionTaken(initialPace, 1000);
  const during = afterLoad(followed, { fingerprint: 'a', settling: false }, 1000 + FOLLOW_ACTION_MS - 1, settings);
  assert.equal(during.delayMs, SETTLING_MS);
  const after = afterLoad(during.state, { fingerprint: 'a', settling: false }, 1000 + FOLLOW_ACTION_MS, settings);
  assert.equal(after.delayMs, 10_000);
});

test('the setting is read within bounds', () => {
  assert.equal(intervalMsOf(undefined), 10_000);
  assert.equal(intervalMsOf('fast'), 10_000);
  assert.equal(intervalMsOf(0.5), 2000);
  assert.equal(intervalMsOf(30), 30_000);
  assert.equal(intervalMsOf(1e9), 600_000);
});
