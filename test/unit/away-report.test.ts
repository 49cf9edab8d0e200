import { test } from 'node:test';
import assert from 'node:assert/strict';
import { awayMessage, runningNodes, stoppedWhileAway } from '../../client/model/away-report';

const states = (running: string[], stopped: string[]): Record<string, string> =>
  Object.fromEntries([...running.map((n) => [n, 'running']), ...stopped.map((n) => [n, 'stopped'])]);

test('nodes that ran before the agent went away and do not run now are named', () => {
  const before = runningNodes(states(['r1', 'r2', 'h1'], ['r3']));
  assert.deepEqual(before, ['r1', 'r2', 'h1']);
  assert.deepEqual(stoppedWhileAway(before, states(['r1'], ['r2', 'h1', 'r3'])), ['r2', 'h1']);
  assert.deepEqual(stoppedWhileAway(before, { ...states(['r1'], []), r2: 'starting' }), ['r2', 'h1']);
  assert.deepEqual(stoppedWhileAway(before, undefined), ['r1', 'r2', 'h1']);
});

test('nothing is named when every node that ran still runs (nodes added meanwhile do not count)', () => {
  const before = runningNodes(states(['r1', 'r2', 'h1'], []));
  assert.deepEqual(stoppedWhileAway(before, states(['r1', 'r2', 'h1', 'r4'], ['r3'])), []);
  assert.deepEqual(runningNodes(states([], ['r1'])), []);
});

test('the message says the lab, how many and (when few) which', () => {
  assert.equal(awayMessage('ospf', ['r2']), 'ospf: 1 node (r2) stopped while the agent was away.');
  assert.equal(
    awayMessage('ospf', ['r1', 'r2', 'r3', 'h1', 'h2', 'sw']),
    'ospf: 6 nodes stopped while the agent was away.',
  );
});
