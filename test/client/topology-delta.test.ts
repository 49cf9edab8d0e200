/**
 * The topology view's updates as differences (graph-delta.ts): whatever
 * sequence of drawings the host sends, the webview's replica ends up with the
 * drawing itself; and the element list's window (row-window.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphReplica, GraphSender, type GraphChange } from '../../client/topology/graph-delta';
import type { GraphData, GraphLink, GraphNode, HostMessage } from '../../client/topology/messages';
import { rowWindow, scrollToShow } from '../../client/topology/row-window';

/** A small deterministic random source (a linear congruential generator), so a failure can be run again. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

const STATES = [undefined, 'running', 'stopped', 'missing'];
const DRIFTS = [undefined, 'create', 'update', 'delete'] as const;

function node(name: string, pick: (n: number) => number): GraphNode {
  const state = STATES[pick(STATES.length)];
  const drift = DRIFTS[pick(DRIFTS.length)];
  return {
    id: `${pick(5) === 0 ? 'network' : 'node'}:${name}`,
    kind: 'node',
    name,
    symbol: 'router',
    detail: 'vios',
    ...(pick(2) === 0 ? { position: { x: pick(1000), y: pick(1000) } } : {}),
    ...(state ? { state } : {}),
    ...(drift ? { drift } : {}),
    actions: pick(2) === 0 ? ['start'] : [],
  };
}

/** The next drawing: some elements changed, some gone, some new, some moved in the order. */
function evolve(graph: GraphData, pick: (n: number) => number, serial: number): GraphData {
  const nodes = graph.nodes.flatMap((n): GraphNode[] => {
    const roll = pick(10);
    if (roll === 0) return [];
    if (roll === 1) return [node(n.name, pick)];
    if (roll === 2) return [{ ...n, state: STATES[1 + pick(3)] ?? 'running' }];
    return [n];
  });
  for (let i = pick(4); i > 0; i--) nodes.splice(pick(nodes.length + 1), 0, node(`n${serial}-${i}`, pick));
  if (nodes.length > 2 && pick(4) === 0) nodes.push(...nodes.splice(pick(nodes.length), 1));
  const ids = nodes.map((n) => n.id);
  const links: GraphLink[] = [];
  const count = ids.length < 2 ? 0 : pick(2 * ids.length);
  for (let i = 0; i < count; i++) {
    const old = graph.links[i];
    links.push(
      old && pick(4) !== 0 && ids.includes(old.source) && ids.includes(old.target)
        ? old
        : {
            id: `link:${i}`,
            index: i,
            source: ids[pick(ids.length)],
            target: ids[pick(ids.length)],
            sourceLabel: `e${pick(9)}`,
            targetLabel: '',
            ...(pick(3) === 0 ? { drift: 'create' as const } : {}),
          },
    );
  }
  return {
    title: pick(8) === 0 ? `lab ${serial}` : graph.title,
    nodes,
    links,
    notes: pick(5) === 0 ? [`note ${serial}`] : graph.notes,
    liveSummary: pick(3) === 0 ? `Live: ${serial}` : graph.liveSummary,
  };
}

function send(replica: GraphReplica, message: HostMessage | undefined): GraphChange | 'resync' | undefined {
  if (message === undefined) return undefined;
  assert.ok(message.type === 'graph' || message.type === 'graphDelta');
  // As postMessage delivers it: a copy.
  return replica.receive(structuredClone(message));
}

test('any sequence of drawings sent as deltas leaves the webview with each drawing, and names what changed', () => {
  let compared = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const pick = random(seed);
    const sender = new GraphSender();
    const replica = new GraphReplica();
    let graph: GraphData = { title: 'lab', nodes: [], links: [], notes: [], liveSummary: '' };
    for (let step = 0; step < 30; step++) {
      const before =
        replica.graph.nodes.length + replica.graph.links.length > 0 ? structuredClone(replica.graph) : undefined;
      graph = evolve(graph, pick, step);
      const change = send(replica, sender.message(graph));
      assert.notEqual(change, 'resync');
      assert.deepEqual(replica.graph, graph, `seed ${seed}, step ${step}`);
      if (change === undefined || change === 'resync' || change.full || before === undefined) continue;
      // What the change names is exactly what differs.
      const ids = (g: GraphData): string[] => [...g.nodes, ...g.links].map((e) => e.id);
      const now = new Set(ids(graph));
      assert.deepEqual(
        [...change.removed].sort(),
        ids(before)
          .filter((id) => !now.has(id))
          .sort(),
      );
      const old = new Map([...before.nodes, ...before.links].map((e) => [e.id, JSON.stringify(e)]));
      const differing = [...graph.nodes, ...graph.links].filter((e) => old.get(e.id) !== JSON.stringify(e));
      assert.deepEqual([...change.nodes, ...change.links].map((e) => e.id).sort(), differing.map((e) => e.id).sort());
      compared++;
    }
  }
  // The other steps sent the whole drawing (or had none before): 185 of the 1,200 steps send a delta to compare.
  assert.ok(compared >= 150, `${compared} deltas compared`);
});

test('a one-line edit sends one element, and nothing is sent when nothing changed', () => {
  const nodes: GraphNode[] = Array.from({ length: 100 }, (_, i) => ({
    id: `node:r${i}`,
    kind: 'node',
    name: `r${i}`,
    symbol: 'router',
    detail: 'vios',
    position: { x: i, y: 0 },
    actions: [],
  }));
  const graph: GraphData = { title: 'lab', nodes, links: [], notes: [], liveSummary: '' };
  const sender = new GraphSender();
  assert.equal(sender.message(graph)?.type, 'graph');
  assert.equal(sender.message(structuredClone(graph)), undefined);
  const edited = structuredClone(graph);
  edited.nodes[40].position = { x: 400, y: 0 };
  const message = sender.message(edited);
  assert.deepEqual(message, {
    type: 'graphDelta',
    base: 1,
    version: 2,
    delta: { nodes: [edited.nodes[40]], links: [] },
  });
});

test('a delta from a drawing the webview does not have asks for the whole one, which the host then sends', () => {
  const sender = new GraphSender();
  const graph = (title: string): GraphData => ({ title, nodes: [], links: [], notes: [], liveSummary: '' });
  sender.message(graph('a'));
  // The webview was loaded again and missed the first drawing.
  const replica = new GraphReplica();
  assert.equal(send(replica, sender.message(graph('b'))), 'resync');
  sender.reset();
  const whole = sender.message(graph('b'));
  assert.equal(whole?.type, 'graph');
  assert.equal((send(replica, whole) as GraphChange).full, true);
  assert.equal(replica.graph.title, 'b');
  assert.notEqual(send(replica, sender.message(graph('c'))), 'resync');
  assert.equal(replica.graph.title, 'c');
});

test('a drawing with an id twice is sent whole', () => {
  const sender = new GraphSender();
  const link: GraphLink = { id: 'link:0', source: 'a', target: 'b', sourceLabel: '', targetLabel: '' };
  const graph: GraphData = { title: 'lab', nodes: [], links: [link], notes: [], liveSummary: '' };
  sender.message(graph);
  assert.equal(sender.message({ ...graph, links: [link, { ...link, sourceLabel: 'x' }] })?.type, 'graph');
});

test("the list's window: the rows in view and a few more each side, none when the list is out of view", () => {
  const list = { top: 30, count: 1000, rowHeight: 20 };
  assert.deepEqual(rowWindow({ scrollTop: 0, height: 200 }, list, 0), { start: 0, end: 9 });
  assert.deepEqual(rowWindow({ scrollTop: 0, height: 200 }, list, 5), { start: 0, end: 14 });
  assert.deepEqual(rowWindow({ scrollTop: 1030, height: 200 }, list, 5), { start: 45, end: 65 });
  assert.deepEqual(rowWindow({ scrollTop: 30 + 995 * 20, height: 200 }, list, 5), { start: 990, end: 1000 });
  // A list further down, or above and scrolled past.
  assert.deepEqual(rowWindow({ scrollTop: 0, height: 200 }, { ...list, top: 500 }, 5), { start: 0, end: 0 });
  assert.deepEqual(rowWindow({ scrollTop: 30_000, height: 200 }, list, 5), { start: 0, end: 0 });
  assert.deepEqual(rowWindow({ scrollTop: 0, height: 200 }, { ...list, count: 0 }), { start: 0, end: 0 });
});

test('scrolling to a row moves the list the least that shows it', () => {
  const view = { scrollTop: 100, height: 200 };
  assert.equal(scrollToShow(view, 150, 20), 100);
  assert.equal(scrollToShow(view, 40, 20), 40);
  assert.equal(scrollToShow(view, 290, 20), 110);
  assert.equal(scrollToShow({ scrollTop: 0, height: 10 }, 0, 20), 0);
});
