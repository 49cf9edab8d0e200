import { test } from 'node:test';
import assert from 'node:assert/strict';
import { awayMessage, runningNodes, stoppedWhileAway } from '../../client/model/away-report';

const status = (running: string[], stopped: string[]) => ({
  nodes: [
    ...running.map((name) => ({ name, state: 'running' })),
    ...stopped.map((name) => ({ name, state: 'stopped' })),
  ],
});

test('nodes that ran before the agent went away and do not run now are named', () => {
  const before = runningNodes(status(['r1', 'r2', 'h1'], ['r3']));
  assert.deepEqual(before, ['r1', 'r2', 'h1']);
  assert.deepEqual(stoppedWhileAway(before, status(['r1'], ['r2', 'h1', 'r3'])), ['r2', 'h1']);
  assert.deepEqual(stoppedWhileAway(before, status(['r1', 'r2', 'h1'], [])), []);
  assert.deepEqual(stoppedWhileAway(before, undefined), ['r1', 'r2', 'h1']);
});

test('the message says the lab, how many and (when few) which', () => {
  assert.equal(awayMessage('ospf', ['r2']), 'ospf: 1 node (r2) stopped while the agent was away.');
  assert.equal(
    awayMessage('ospf', ['r1', 'r2', 'r3', 'h1', 'h2', 'sw']),
    'ospf: 6 nodes stopped while the agent was away.',
  );
});
