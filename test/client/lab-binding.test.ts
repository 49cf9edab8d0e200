/**
 * Which agent a lab file belongs to: its own choice, else its folder's
 * setting, else the default agent; a lab bound to an agent that is not
 * configured says so and is never handed to another one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentLabel, bindLab, choicesAfterMove, moveTargets } from '../../client/model/lab-binding';

const agents = ['default', 'eve', 'workstation'];

test('a lab with no choice and no folder setting belongs to the default agent', () => {
  assert.deepEqual(bindLab({ agents }), { agent: 'default', source: 'default' });
  assert.deepEqual(bindLab({ agents, folderSetting: '  ', fileChoice: '' }), { agent: 'default', source: 'default' });
});

test("the folder's setting binds the labs in it", () => {
  assert.deepEqual(bindLab({ agents, folderSetting: 'eve' }), { agent: 'eve', source: 'folder' });
  assert.deepEqual(bindLab({ agents, folderSetting: ' eve ' }), { agent: 'eve', source: 'folder' });
});

test("a file's own choice wins over its folder's setting", () => {
  assert.deepEqual(bindLab({ agents, folderSetting: 'eve', fileChoice: 'workstation' }), {
    agent: 'workstation',
    source: 'file',
  });
  assert.deepEqual(bindLab({ agents, folderSetting: 'eve', fileChoice: 'default' }), {
    agent: 'default',
    source: 'file',
  });
});

test('an agent that is not configured keeps the lab and says what to do; no other agent is chosen', () => {
  const byFolder = bindLab({ agents, folderSetting: 'lab-server-2' });
  assert.equal(byFolder.agent, 'lab-server-2');
  assert.equal(byFolder.source, 'folder');
  assert.match(
    byFolder.problem ?? '',
    /"lab-server-2" \(named by its folder's setting labAgent.agent\), which is not configured/,
  );
  assert.match(byFolder.problem ?? '', /Add Agent.*Move Lab to Another Agent/);
  const byFile = bindLab({ agents: ['default'], fileChoice: 'eve', folderSetting: 'default' });
  assert.equal(byFile.agent, 'eve');
  assert.match(byFile.problem ?? '', /\(chosen for this file\)/);
});

test('moving: every other agent is a target; the choice is kept per file, even where the folder agrees', () => {
  const binding = bindLab({ agents, folderSetting: 'eve' });
  assert.deepEqual(moveTargets(binding, agents), ['default', 'workstation']);
  assert.deepEqual(moveTargets(bindLab({ agents: ['default'] }), ['default']), []);
  const before = { 'file:///w/a.lab.yaml': 'eve' };
  const after = choicesAfterMove(before, 'file:///w/b.lab.yaml', 'workstation');
  assert.deepEqual(after, { 'file:///w/a.lab.yaml': 'eve', 'file:///w/b.lab.yaml': 'workstation' });
  assert.deepEqual(before, { 'file:///w/a.lab.yaml': 'eve' }, 'the stored choices are not changed in place');
  const moved = choicesAfterMove(after, 'file:///w/a.lab.yaml', 'eve');
  // After the move, the file's choice binds it whatever its folder says later.
  assert.deepEqual(bindLab({ agents, fileChoice: moved['file:///w/a.lab.yaml'], folderSetting: 'default' }), {
    agent: 'eve',
    source: 'file',
  });
});

test('the agent is named once there are several agents, or the lab is not on the default one', () => {
  assert.equal(agentLabel({ agent: 'default', source: 'default' }, 1), undefined);
  assert.equal(agentLabel({ agent: 'default', source: 'default' }, 2), 'default');
  assert.equal(agentLabel({ agent: 'eve', source: 'folder', problem: 'x' }, 1), 'eve');
});
