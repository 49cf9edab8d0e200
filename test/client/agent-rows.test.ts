/** The sidebar views group rows under their agent, and stay flat with the default agent alone. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentOfRow, agentRow, groupByAgent, isFlat, type AgentGroup } from '../../client/model/agent-rows';
import type { TreeRow } from '../../client/model/tree-row';

function row(id: string, children?: TreeRow<{ uri: string }>[]): TreeRow<{ uri: string }> {
  return { id, label: id, icon: 'beaker', collapsible: children ? 'collapsed' : 'none', children, data: { uri: id } };
}
const data = () => ({ uri: '' });

test('the default agent alone: the rows as they were', () => {
  const rows = [row('a.lab.yaml'), row('b.lab.yaml')];
  assert.equal(groupByAgent([{ agent: 'default', state: 'connected', rows }], data), rows);
});

test('several agents: one expanded row per agent with its state, its rows under it with ids of their own', () => {
  const groups: AgentGroup<{ uri: string }>[] = [
    { agent: 'default', state: 'connected', baseUrl: 'https://127.0.0.1:8787', username: 'lab', rows: [row('a')] },
    {
      agent: 'linux',
      state: 'unreachable',
      baseUrl: 'https://127.0.0.1:8788',
      problem: 'Cannot reach the agent',
      rows: [row('b', [row('b#n1')])],
    },
    { agent: 'eve', state: 'loggedOut', rows: [] },
    { agent: 'gone', state: undefined, rows: [row('c')] },
  ];
  const rows = groupByAgent(groups, data);
  assert.deepEqual(
    rows.map((r) => [r.id, r.label, r.description, r.icon, r.contextValue, r.collapsible]),
    [
      ['agent:default', 'default', 'lab@127.0.0.1:8787 · connected', 'vm-connect', 'agent', 'expanded'],
      ['agent:linux', 'linux', '127.0.0.1:8788 · unreachable', 'debug-disconnect', 'agent', 'expanded'],
      ['agent:eve', 'eve', 'logged out', 'debug-disconnect', 'agent', 'expanded'],
      ['agent:gone', 'gone', 'not configured', 'error', 'agent', 'expanded'],
    ],
  );
  assert.equal(rows[0]?.iconColor, undefined);
  assert.equal(rows[1]?.iconColor, 'list.warningForeground');
  assert.match(rows[1]?.tooltip ?? '', /Agent "linux": unreachable\nhttps:\/\/127.0.0.1:8788\nCannot reach the agent/);
  // Ids stay unique when two agents show a row of the same id (a template both have).
  assert.equal(rows[1]?.children?.[0]?.id, 'agent:linux/b');
  assert.equal(rows[1]?.children?.[0]?.children?.[0]?.id, 'agent:linux/b#n1');
  // What the rows carry (the lab's URI for the commands) is unchanged.
  assert.deepEqual(rows[1]?.children?.[0]?.data, { uri: 'b' });
  assert.deepEqual(rows[2]?.children, []);
});

test('the default agent alone but a lab bound to an agent that is not configured: grouped, so it shows', () => {
  const rows = groupByAgent(
    [
      { agent: 'default', state: 'connected', rows: [row('a')] },
      { agent: 'eve', state: undefined, rows: [row('b')] },
    ],
    data,
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    ['agent:default', 'agent:eve'],
  );
});

test('an agent row without its rows leaves them to be asked for when it is expanded, and names its agent', () => {
  const linux = agentRow({ agent: 'linux', state: 'connected', baseUrl: 'https://127.0.0.1:8788' }, { uri: '' });
  assert.equal(linux.children, undefined);
  assert.equal(linux.collapsible, 'expanded');
  assert.equal(agentOfRow(linux), 'linux');
  assert.equal(agentOfRow(row('a.lab.yaml')), undefined);
  assert.equal(isFlat([{ agent: 'default', state: 'connected' }]), true);
  assert.equal(
    isFlat([
      { agent: 'default', state: 'connected' },
      { agent: 'eve', state: undefined },
    ]),
    false,
  );
});
