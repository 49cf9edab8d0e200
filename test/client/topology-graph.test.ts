/**
 * The topology drawing from the language server's topology, the live status
 * and the plan: what is drawn, how state and drift mark it, and what is said
 * about what cannot be drawn.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CapabilitiesData, PlanData, ProjectStatusData } from '../../common/api/contract';
import type { TopologyData, TopologyEndpoint } from '../../common/protocol';
import { buildGraph, planLinkName, symbolOf, type LiveInfo } from '../../client/topology/graph-model';

const R = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
const end = (text: string): TopologyEndpoint => {
  const colon = text.indexOf(':');
  return colon < 0
    ? { text, range: R, network: text }
    : { text, range: R, node: text.slice(0, colon), interface: text.slice(colon + 1) };
};

const topology: TopologyData = {
  uri: 'file:///campus.lab.yaml',
  version: 3,
  name: 'campus',
  nodes: [
    { name: 'r1', template: 'vios', icon: 'Router.png', position: { x: 10, y: 20 }, range: R, nameRange: R },
    { name: 'sw1', template: 'viosl2', range: R, nameRange: R },
  ],
  networks: [{ name: 'mgmt', type: 'pnet1', range: R, nameRange: R }],
  links: [
    { index: 0, range: R, endpoints: [end('r1:Gi0/0'), end('sw1:Gi0/0')] },
    { index: 1, range: R, endpoints: [end('r1:Gi0/1'), end('mgmt')] },
    { index: 2, range: R, endpoints: [end('r9:Gi0/0'), end('mgmt')] },
    { index: 3, range: R, endpoints: [end('sw1:Gi0/1')] },
  ],
  problems: [{ message: 'unknown key tempalte', line: 6 }],
  problemCount: 2,
};

const caps: CapabilitiesData = {
  features: { status: true, plan: true, consoles: true, exec: true, console_exec: true, console_stream: true },
  projectModes: {
    managed: { console: true, lifecycle: { start: true, stop: true, wipe: true } },
  },
};

const offline: LiveInfo = { connected: false, mode: 'managed' };

test('nodes, networks and links are drawn with their symbols, positions and interface labels', () => {
  const graph = buildGraph(topology, offline);
  assert.equal(graph.title, 'campus');
  assert.deepEqual(
    graph.nodes.map((n) => [n.id, n.symbol, n.position, n.state]),
    [
      ['node:r1', 'router', { x: 10, y: 20 }, undefined],
      ['node:sw1', 'switch', undefined, undefined],
      ['network:mgmt', 'cloud', undefined, undefined],
    ],
  );
  assert.deepEqual(
    graph.links.map((l) => [l.id, l.source, l.target, l.sourceLabel, l.targetLabel]),
    [
      ['link:0', 'node:r1', 'node:sw1', 'Gi0/0', 'Gi0/0'],
      ['link:1', 'node:r1', 'network:mgmt', 'Gi0/1', ''],
    ],
  );
  assert.match(graph.liveSummary, /Not logged in/);
});

test('what cannot be drawn is said: problems in the file and links with unknown or missing ends', () => {
  const [problems, links] = buildGraph(topology, offline).notes;
  assert.match(problems, /2 problems; the drawing shows what could be read\. Line 7: unknown key tempalte/);
  assert.match(links, /Not drawn: links 3 \(r9:Gi0\/0, mgmt\); 4 \(sw1:Gi0\/1\)/);
});

test('live state colours nodes; a deployed lab without a node marks it missing; live-only nodes are added', () => {
  const status: ProjectStatusData = {
    exists: true,
    state: 'partial',
    running: 1,
    total: 2,
    nodes: [
      { name: 'r1', state: 'running' },
      { name: 'old', state: 'stopped', template: 'linux' },
    ],
  };
  const graph = buildGraph(topology, { connected: true, caps, mode: 'managed', status });
  const byName = new Map(graph.nodes.map((n) => [n.name, n]));
  assert.equal(byName.get('r1')?.state, 'running');
  assert.deepEqual(byName.get('r1')?.actions, ['stop', 'wipe', 'console', 'consoleExec']);
  assert.equal(byName.get('sw1')?.state, 'missing');
  assert.deepEqual(byName.get('sw1')?.actions, []);
  assert.equal(byName.get('old')?.liveOnly, true);
  assert.equal(byName.get('old')?.symbol, 'server');
  assert.match(graph.liveSummary, /Live: partial \(1\/2 up\)/);
});

test('the to_emu plan marks what it would create, change or delete, live-only links included', () => {
  const plan: PlanData = {
    summary: { create: 1, update: 1, delete: 2 },
    actions: [
      { op: 'update', kind: 'node', name: 'r1', fields: ['position'] },
      { op: 'create', kind: 'link', name: planLinkName(['sw1:Gi0/0', 'r1:Gi0/0']) },
      { op: 'delete', kind: 'node', name: 'gone' },
      { op: 'delete', kind: 'link', name: 'r1:Gi0/3 -- sw1:Gi0/3' },
    ],
  };
  const graph = buildGraph(topology, { connected: true, caps, mode: 'managed', plan, status: { exists: false } });
  const node = (name: string) => graph.nodes.find((n) => n.name === name);
  assert.equal(node('r1')?.drift, 'update');
  assert.equal(node('sw1')?.drift, undefined);
  assert.equal(node('gone')?.drift, 'delete');
  assert.equal(node('gone')?.liveOnly, true);
  assert.equal(graph.links.find((l) => l.id === 'link:0')?.drift, 'create');
  const liveOnly = graph.links.find((l) => l.index === undefined);
  assert.deepEqual(liveOnly && [liveOnly.source, liveOnly.target, liveOnly.sourceLabel, liveOnly.drift], [
    'node:r1',
    'node:sw1',
    'Gi0/3',
    'delete',
  ]);
  assert.match(graph.liveSummary, /Not deployed\. Drift: \+1 ~1 −2 to push\./);
});

test('symbols come from the icon first, then the template', () => {
  assert.equal(symbolOf('Switch.png', 'vios'), 'switch');
  assert.equal(symbolOf(undefined, 'vpcs'), 'host');
  assert.equal(symbolOf(undefined, 'asav'), 'firewall');
  assert.equal(symbolOf(undefined, 'mystery'), 'generic');
});

test('a link offers capture on its first node end only when the agent can capture, enabled while that node runs', () => {
  const status: ProjectStatusData = { exists: true, state: 'partial', nodes: [{ name: 'r1', state: 'running' }] };
  const without = buildGraph(topology, { connected: true, caps, mode: 'managed', status });
  assert.deepEqual(
    without.links.map((l) => l.capture),
    [undefined, undefined],
  );
  const capturing = { ...caps, features: { ...caps.features, capture: true } };
  const graph = buildGraph(topology, { connected: true, caps: capturing, mode: 'managed', status });
  assert.deepEqual(
    graph.links.map((l) => l.capture),
    [{ target: 'r1:Gi0/0' }, { target: 'r1:Gi0/1' }],
  );
  const stopped = buildGraph(topology, {
    connected: true,
    caps: capturing,
    mode: 'managed',
    status: { ...status, nodes: [{ name: 'r1', state: 'stopped' }] },
  });
  assert.match(stopped.links[0].capture?.disabled ?? '', /r1 must be deployed and running/);
});
