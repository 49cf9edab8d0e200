/**
 * The loop of a live view (paced-refresh.ts) on mocked timers: it loads again
 * at the pacer's delays, follows an action at the settling pace, and waits
 * while its view is hidden.
 */
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { PacedRefresh } from '../../client/model/paced-refresh';
import { FOLLOW_ACTION_MS, MAX_IDLE_FACTOR, SETTLING_MS } from '../../client/model/refresh-pacer';

const INTERVAL_MS = 10_000;

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

/** A view whose loads show `fingerprint` (settling or not) and are counted. */
function view(options: { fingerprint?: () => string; settling?: () => boolean } = {}) {
  const state = { visible: true, loads: 0 };
  const paced: PacedRefresh = new PacedRefresh({
    intervalMs: () => INTERVAL_MS,
    visible: () => state.visible,
    load: () => {
      state.loads++;
      paced.loaded(options.fingerprint?.() ?? 'same', options.settling?.() ?? false);
    },
  });
  return { state, paced };
}

/** The moments (ms after the first load) of the loads in `ms`. */
function loadTimes(loads: () => number, ms: number, step = 500): number[] {
  const times: number[] = [];
  let seen = loads();
  for (let t = step; t <= ms; t += step) {
    mock.timers.tick(step);
    if (loads() !== seen) times.push(t);
    seen = loads();
  }
  return times;
}

test('an idle view loads at the interval, then ever more slowly, up to the bound', () => {
  const { state, paced } = view();
  paced.loaded('same', false);
  const times = loadTimes(() => state.loads, 400_000);
  const gaps = times.map((t, i) => t - (i === 0 ? 0 : times[i - 1]));
  assert.deepEqual(gaps.slice(0, 6), [10_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  assert.equal(Math.max(...gaps), INTERVAL_MS * MAX_IDLE_FACTOR);
});

test('a view that sees changes keeps loading at the interval', () => {
  let n = 0;
  const { state, paced } = view({ fingerprint: () => String(n++) });
  paced.loaded('first', false);
  assert.deepEqual(
    loadTimes(() => state.loads, 50_000),
    [10_000, 20_000, 30_000, 40_000, 50_000],
  );
});

test('after an action the view follows at the settling pace, then slows down again', () => {
  const { state, paced } = view();
  paced.followAction();
  paced.loaded('same', false);
  const times = loadTimes(() => state.loads, FOLLOW_ACTION_MS + 30_000);
  const following = times.filter((t) => t <= FOLLOW_ACTION_MS);
  assert.equal(following.length, FOLLOW_ACTION_MS / SETTLING_MS);
  assert.ok(times.length - following.length <= 2, `after following: ${times.join(', ')}`);
});

test('nodes in transition are followed at the settling pace', () => {
  const { state, paced } = view({ settling: () => true });
  paced.loaded('same', true);
  assert.deepEqual(
    loadTimes(() => state.loads, 10_000),
    [2000, 4000, 6000, 8000, 10_000],
  );
});

test('a hidden view loads nothing; shown again, it loads at once if a load came due', () => {
  const { state, paced } = view();
  paced.loaded('same', false);
  state.visible = false;
  mock.timers.tick(120_000);
  assert.equal(state.loads, 0);
  state.visible = true;
  paced.shown();
  assert.equal(state.loads, 1);
  paced.shown();
  assert.equal(state.loads, 1, 'a second show without a due load loads nothing');
});

test('cancel stops the loop until the next load ends', () => {
  const { state, paced } = view();
  paced.loaded('same', false);
  paced.cancel();
  mock.timers.tick(600_000);
  assert.equal(state.loads, 0);
});
