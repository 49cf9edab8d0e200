import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CapabilitiesData, ProjectStatusData } from '../../common/api/contract';
import { isSettling, labRow, type LabFileInfo } from '../../client/model/lab-rows';
import { referenceCapabilities } from '../../agent/handlers/connection';

const caps = referenceCapabilities();
const { managed } = caps.projectModes;

const lab: LabFileInfo = {
  uri: 'file:///work/campus.lab.yaml',
  name: 'campus',
  relativePath: 'campus.lab.yaml',
  nodes: [
    { name: 'r1', template: 'vios' },
    { name: 'r2', template: 'vios' },
    { name: 'sw1', template: 'viosl2' },
  ],
  mode: 'managed',
};

const status: ProjectStatusData = {
  lab: '/lab-agent/campus.unl',
  exists: true,
  state: 'partial',
  running: 1,
  total: 3,
  nodes: [
    { name: 'r1', id: 1, template: 'vios', state: 'running' },
    { name: 'r2', id: 2, template: 'vios', state: 'stopped' },
    { name: 'sw1', id: 3, template: 'viosl2', state: 'starting' },
    { name: 'extra', id: 4, template: 'linux', state: 'stopped' },
  ],
};

const tokens = (contextValue: string | undefined): string[] => (contextValue ?? '').split(' ');

test('a deployed lab shows its state and counts, and offers live actions', () => {
  const row = labRow(lab, { status }, caps);
  assert.equal(row.label, 'campus');
  assert.equal(row.description, 'partial (1/3 up)');
  assert.equal(row.icon, 'vm-active');
  assert.equal(row.collapsible, 'collapsed');
  assert.deepEqual(row.data, { uri: lab.uri });
  const t = tokens(row.contextValue);
  assert.equal(t[0], 'lab');
  for (const action of ['plan', 'deploy', 'destroy', 'start', 'stop', 'wipe', 'inspect', 'consoleExec'])
    assert.ok(t.includes(action), action);
});

test('a running lab is not offered start, a stopped one not stop', () => {
  const running = tokens(labRow(lab, { status: { ...status, state: 'running' } }, caps).contextValue);
  assert.ok(!running.includes('start') && running.includes('stop'));
  const stopped = tokens(labRow(lab, { status: { ...status, state: 'stopped' } }, caps).contextValue);
  assert.ok(stopped.includes('start') && !stopped.includes('stop'));
});

test('nodes come in document order with their live state; emulator-only nodes are listed last', () => {
  const nodes = labRow(lab, { status }, caps).children ?? [];
  assert.deepEqual(
    nodes.map((n) => [n.label, n.description, n.icon]),
    [
      ['r1', 'running · vios', 'vm-running'],
      ['r2', 'stopped · vios', 'vm-outline'],
      ['sw1', 'starting · viosl2', 'loading~spin'],
      ['extra', 'stopped · not in the document · linux', 'vm-outline'],
    ],
  );
  assert.deepEqual(nodes[0].data, { uri: lab.uri, node: 'r1' });
});

test('node actions follow the node state', () => {
  const [r1, r2, sw1] = labRow(lab, { status }, caps).children ?? [];
  assert.deepEqual(tokens(r1.contextValue), ['node', 'stop', 'wipe', 'console', 'consoleExec']);
  assert.deepEqual(tokens(r2.contextValue), ['node', 'start', 'wipe']);
  assert.deepEqual(tokens(sw1.contextValue), ['node', 'stop', 'wipe']);
});

test('a lab that is not deployed lists its declared nodes without live actions', () => {
  const row = labRow(lab, { status: { lab: '/lab-agent/campus.unl', exists: false, state: 'absent' } }, caps);
  assert.equal(row.description, 'not deployed');
  const t = tokens(row.contextValue);
  assert.ok(t.includes('deploy') && t.includes('plan'));
  assert.ok(!t.includes('destroy') && !t.includes('start'));
  assert.deepEqual(
    (row.children ?? []).map((n) => [n.label, n.contextValue]),
    [
      ['r1', 'node'],
      ['r2', 'node'],
      ['sw1', 'node'],
    ],
  );
});

test('logged out: the lab and its nodes are listed, no action is offered', () => {
  const row = labRow(lab, {}, undefined);
  assert.equal(row.contextValue, 'lab');
  assert.equal(row.description, '');
  // A file whose name does not say which lab it is shows its path.
  assert.equal(
    labRow({ ...lab, relativePath: 'labs/site-a.lab.yaml' }, {}, undefined).description,
    'labs/site-a.lab.yaml',
  );
  assert.equal(row.children?.length, 3);
});

test('capabilities remove what the agent does not allow', () => {
  const limited: CapabilitiesData = {
    ...caps,
    projectModes: { managed: { ...managed, destroy: false, lifecycle: { start: true } } },
  };
  const row = labRow(lab, { status }, limited);
  const t = tokens(row.contextValue);
  assert.ok(!t.includes('destroy') && !t.includes('stop') && !t.includes('wipe'));
  assert.ok(t.includes('start'));
  const [r1, r2] = row.children ?? [];
  assert.deepEqual(tokens(r1.contextValue), ['node', 'console', 'consoleExec']);
  assert.deepEqual(tokens(r2.contextValue), ['node', 'start']);
});

test('a status error is shown on the lab row', () => {
  const row = labRow(lab, { error: 'The agent cannot reach the emulator.' }, caps);
  assert.equal(row.icon, 'warning');
  assert.match(row.description ?? '', /^status unavailable/);
  assert.match(row.tooltip ?? '', /cannot reach the emulator/);
});

test('a lab with starting or stopping nodes is settling', () => {
  assert.equal(isSettling({ status }), true);
  assert.equal(isSettling({ status: { ...status, nodes: [{ name: 'r1', state: 'running' }] } }), false);
  assert.equal(isSettling({}), false);
});
