/**
 * The drawing sent as differences: after a first full message, the host sends
 * only the elements that changed since the message the webview has, keyed by
 * element id, so that a one-line edit of a 2,000-node lab costs the webview
 * work for one element, not for 6,000. The host's side (GraphSender) and the
 * webview's (GraphReplica) are pure, so that applying any sequence of deltas
 * is tested to give the full drawing. No `vscode` import, no runtime
 * dependency: the webview bundle compiles against it too.
 */
import type { GraphData, GraphDelta, GraphLink, GraphNode, HostMessage, Splice } from './messages';
import { sameValue } from '../../common/same-value';

/** What a message changed in the drawing: the renderers and the element list redo only this. */
export interface GraphChange {
  /** A whole drawing: everything may have changed (`nodes` and `links` are all of them). */
  full: boolean;
  /** Nodes and links new or changed. */
  nodes: GraphNode[];
  links: GraphLink[];
  /** Ids of the elements gone. */
  removed: string[];
  /** An order changed: elements came, went or moved. */
  reordered: boolean;
}

/** The host's side: the message that brings the webview from what it has to `graph`. */
export class GraphSender {
  private sent: { version: number; graph: GraphData } | undefined;
  private version = 0;

  /** The message for `graph`: a delta from the last one sent, or the whole drawing; undefined when nothing changed. */
  message(graph: GraphData): HostMessage | undefined {
    const before = this.sent;
    if (before !== undefined && uniqueIds(graph)) {
      const delta = graphDelta(before.graph, graph);
      if (delta === undefined) return undefined;
      this.sent = { version: ++this.version, graph };
      return { type: 'graphDelta', base: before.version, version: this.version, delta };
    }
    this.sent = { version: ++this.version, graph };
    return { type: 'graph', version: this.version, graph };
  }

  /** The webview has nothing (it was loaded again) or must be set back to the drawing: the next message is whole. */
  reset(): void {
    this.sent = undefined;
  }
}

/** The differences from `before` to `after` (both with unique ids); undefined when there are none. */
function graphDelta(before: GraphData, after: GraphData): GraphDelta | undefined {
  const delta: GraphDelta = {
    nodes: changedOf(before.nodes, after.nodes),
    links: changedOf(before.links, after.links),
  };
  const nodeOrder = orderSplice(before.nodes, after.nodes);
  const linkOrder = orderSplice(before.links, after.links);
  if (nodeOrder) delta.nodeOrder = nodeOrder;
  if (linkOrder) delta.linkOrder = linkOrder;
  if (before.title !== after.title) delta.title = after.title;
  if (!sameValue(before.notes, after.notes)) delta.notes = after.notes;
  if (before.liveSummary !== after.liveSummary) delta.liveSummary = after.liveSummary;
  const empty =
    delta.nodes.length + delta.links.length === 0 &&
    !nodeOrder &&
    !linkOrder &&
    delta.title === undefined &&
    delta.notes === undefined &&
    delta.liveSummary === undefined;
  return empty ? undefined : delta;
}

/** The webview's side: the drawing as the messages received so far make it. */
export class GraphReplica {
  readonly graph: GraphData = { title: '', nodes: [], links: [], notes: [], liveSummary: '' };
  private version: number | undefined;
  private readonly nodeAt = new Map<string, number>();
  private readonly linkAt = new Map<string, number>();

  node(id: string): GraphNode | undefined {
    const at = this.nodeAt.get(id);
    return at === undefined ? undefined : this.graph.nodes[at];
  }

  link(id: string): GraphLink | undefined {
    const at = this.linkAt.get(id);
    return at === undefined ? undefined : this.graph.links[at];
  }

  /** Applies a drawing message; `resync` when it is a delta from a drawing this replica does not have. */
  receive(message: Extract<HostMessage, { type: 'graph' | 'graphDelta' }>): GraphChange | 'resync' {
    if (message.type === 'graph') {
      const { title, nodes, links, notes, liveSummary } = message.graph;
      Object.assign(this.graph, { title, nodes: [...nodes], links: [...links], notes, liveSummary });
      index(this.graph.nodes, this.nodeAt, 0);
      index(this.graph.links, this.linkAt, 0);
      this.version = message.version;
      return { full: true, nodes: this.graph.nodes, links: this.graph.links, removed: [], reordered: true };
    }
    if (message.base !== this.version) return 'resync';
    const { delta } = message;
    const removed = [
      ...splice(this.graph.nodes, this.nodeAt, delta.nodeOrder, delta.nodes),
      ...splice(this.graph.links, this.linkAt, delta.linkOrder, delta.links),
    ];
    for (const node of delta.nodes) this.put(this.graph.nodes, this.nodeAt, node);
    for (const link of delta.links) this.put(this.graph.links, this.linkAt, link);
    if (delta.title !== undefined) this.graph.title = delta.title;
    if (delta.notes !== undefined) this.graph.notes = delta.notes;
    if (delta.liveSummary !== undefined) this.graph.liveSummary = delta.liveSummary;
    this.version = message.version;
    return {
      full: false,
      nodes: delta.nodes,
      links: delta.links,
      removed,
      reordered: delta.nodeOrder !== undefined || delta.linkOrder !== undefined,
    };
  }

  private put<T extends { id: string }>(list: T[], at: Map<string, number>, element: T): void {
    const i = at.get(element.id);
    if (i === undefined) throw new Error(`the drawing's update names ${element.id}, which its order does not have`);
    list[i] = element;
  }
}

function uniqueIds(graph: GraphData): boolean {
  const ids = new Set<string>();
  for (const elements of [graph.nodes, graph.links])
    for (const { id } of elements) {
      if (ids.has(id)) return false;
      ids.add(id);
    }
  return true;
}

/** The elements of `after` that `before` does not have as they are (compared by place first: the common case). */
function changedOf<T extends { id: string }>(before: readonly T[], after: readonly T[]): T[] {
  let old: Map<string, T> | undefined;
  const changed: T[] = [];
  for (let i = 0; i < after.length; i++) {
    const element = after[i];
    let was: T | undefined = before[i];
    if (was?.id !== element.id) was = (old ??= new Map(before.map((e) => [e.id, e]))).get(element.id);
    if (!sameValue(was, element)) changed.push(element);
  }
  return changed;
}

/** The smallest run of ids to replace in `before`'s order to make `after`'s: what lies between their common start and end. */
function orderSplice(before: readonly { id: string }[], after: readonly { id: string }[]): Splice | undefined {
  let start = 0;
  while (start < before.length && start < after.length && before[start].id === after[start].id) start++;
  if (start === before.length && start === after.length) return undefined;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end].id === after[after.length - 1 - end].id
  )
    end++;
  return {
    start,
    deleteCount: before.length - start - end,
    insert: after.slice(start, after.length - end).map((e) => e.id),
  };
}

/**
 * Applies an order's splice to `list` (new ids get a placeholder until their element is put)
 * and re-indexes what moved. Returns the ids the splice removed for good.
 */
function splice<T extends { id: string }>(
  list: T[],
  at: Map<string, number>,
  order: Splice | undefined,
  elements: readonly T[],
): string[] {
  if (order === undefined) return [];
  const given = new Map(elements.map((e) => [e.id, e]));
  const out = list.slice(order.start, order.start + order.deleteCount);
  const kept = new Map(out.map((e) => [e.id, e]));
  const inserted = order.insert.map((id) => {
    const element = given.get(id) ?? kept.get(id);
    if (element === undefined) throw new Error(`the drawing's update puts ${id} in its order without the element`);
    return element;
  });
  list.splice(order.start, order.deleteCount, ...inserted);
  const staying = new Set(order.insert);
  const removed = out.map((e) => e.id).filter((id) => !staying.has(id));
  for (const id of removed) at.delete(id);
  index(list, at, order.start);
  return removed;
}

function index(list: readonly { id: string }[], at: Map<string, number>, from: number): void {
  if (from === 0) at.clear();
  for (let i = from; i < list.length; i++) at.set(list[i].id, i);
}
