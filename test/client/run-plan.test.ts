/** Which tests a run of the Testing view runs: one test, a lab's all, or every lab's (Run All), less the excluded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRun, type ListedLab } from '../../client/testing/run-plan';

const LABS: ListedLab[] = [
  { id: 'ospf', tests: ['h1 reaches h2', 'r2 neighbours', 'r1 route'] },
  { id: 'failing', tests: ['h1 reaches h2', 'r1 two neighbours'] },
];

test('Run All plans every lab with all its tests, marked as not named (the controller skips labs not deployed)', () => {
  assert.deepEqual(planRun(LABS, undefined, []), [
    { id: 'ospf', tests: ['h1 reaches h2', 'r2 neighbours', 'r1 route'], named: false },
    { id: 'failing', tests: ['h1 reaches h2', 'r1 two neighbours'], named: false },
  ]);
});

test("one test runs alone; a lab runs all its tests in the file's order, once even when its tests are named too", () => {
  assert.deepEqual(planRun(LABS, [{ lab: 'failing', test: 'r1 two neighbours' }], []), [
    { id: 'failing', tests: ['r1 two neighbours'], named: true },
  ]);
  assert.deepEqual(planRun(LABS, [{ lab: 'ospf', test: 'r1 route' }, { lab: 'ospf' }], []), [
    { id: 'ospf', tests: ['h1 reaches h2', 'r2 neighbours', 'r1 route'], named: true },
  ]);
  assert.deepEqual(
    planRun(
      LABS,
      [
        { lab: 'ospf', test: 'r1 route' },
        { lab: 'ospf', test: 'h1 reaches h2' },
      ],
      [],
    ),
    [{ id: 'ospf', tests: ['h1 reaches h2', 'r1 route'], named: true }],
  );
});

test('excluded tests and labs stay out; a lab left with no test is not planned', () => {
  assert.deepEqual(planRun(LABS, undefined, [{ lab: 'ospf' }, { lab: 'failing', test: 'h1 reaches h2' }]), [
    { id: 'failing', tests: ['r1 two neighbours'], named: false },
  ]);
  assert.deepEqual(
    planRun(LABS, [{ lab: 'failing', test: 'h1 reaches h2' }], [{ lab: 'failing', test: 'h1 reaches h2' }]),
    [],
  );
});

test('a test or lab no longer listed (the file changed meanwhile) is not planned', () => {
  assert.deepEqual(planRun(LABS, [{ lab: 'gone' }, { lab: 'ospf', test: 'renamed' }], []), []);
});
