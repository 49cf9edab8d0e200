/**
 * What differs between a desired and an observed topology, as a list of
 * changes in the order they can be applied: deletes first (links, nodes,
 * networks), then the lab, networks, nodes and finally links.
 *
 * to_emu: changes to make in the emulator. Extra live objects are deleted only
 * with prune, except links that stand in the way of the desired ones (an
 * interface has one link) or that cannot survive a change (their node is
 * replaced, their interface removed).
 * from_emu: changes to make in the document so it describes the live lab.
 */
import {
  COMPARED_NODE_FIELDS,
  interfaceKeys,
  type ComparedNodeField,
  type TopoLink,
  type TopoNetwork,
  type TopoNode,
  type Topology,
} from './topology';
import { sameValue } from '../../common/same-value';

/**
 * A change to a node or a network, said the same way in both directions: `before` is the
 * object as the side being changed has it (the emulator for to_emu, the document for
 * from_emu), `after` what it becomes there. Each operation carries exactly what it needs.
 */
type ObjectChange<K extends 'node' | 'network', T> =
  | { kind: K; op: 'create'; name: string; after: T; fields: string[]; reason?: string }
  | { kind: K; op: 'update'; name: string; before: T; after: T; fields: string[]; reason?: string }
  | { kind: K; op: 'delete'; name: string; before: T; fields: string[]; reason?: string };

export type Change =
  | { kind: 'lab'; op: 'create' | 'update'; name: string; fields: string[] }
  | ObjectChange<'node', TopoNode>
  | ObjectChange<'network', TopoNetwork>
  | { kind: 'link'; op: 'create' | 'delete'; name: string; link: TopoLink; fields: string[]; reason?: string };

export interface Diff {
  /** In apply order. */
  changes: Change[];
  /** Nodes, networks and links that are the same on both sides. */
  unchanged: number;
  /** Live links left alone because prune is off (to_emu only). */
  kept: TopoLink[];
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Fields of a node that differ; config and position count only when the desired side states them. */
export function changedNodeFields(desired: TopoNode, observed: TopoNode): ComparedNodeField[] {
  return COMPARED_NODE_FIELDS.filter((field) => {
    if ((field === 'config' || field === 'position') && desired[field] === undefined) return false;
    return !sameValue(desired[field], observed[field]);
  });
}

/** The reason of a delete that only prune asks for. */
export const PRUNED_REASON = 'not in the document (prune)';

/** A config change carries what it does to the node (node-configs.ts), from the observed side. */
function configReason(fields: string[], observed: TopoNode): { reason?: string } {
  return fields.includes('config') && observed.configNote ? { reason: observed.configNote } : {};
}

/** A node's update from `before` to `after`; a config change carries the note the emulator's side (`observed`) has on it. */
function nodeUpdate(before: TopoNode, after: TopoNode, fields: string[], observed: TopoNode): Change {
  return { kind: 'node', op: 'update', name: after.name, before, after, fields, ...configReason(fields, observed) };
}

export function diffToEmulator(desired: Topology, observed: Topology | undefined, prune: boolean): Diff {
  const live = observed ?? {
    nodes: new Map<string, TopoNode>(),
    networks: new Map<string, TopoNetwork>(),
    links: new Map<string, TopoLink>(),
  };
  const nodes = nodesToEmulator(desired, live, prune);
  const networks = networksToEmulator(desired, live, prune);
  const links = linksToEmulator(desired, live, {
    prune,
    replaced: nodes.replaced,
    deletedNodes: nodes.deleted,
    deletedNetworks: networks.deleted,
  });
  return {
    changes: [
      ...links.deletes,
      ...nodes.deletes,
      ...networks.deletes,
      ...labChanges(desired, observed),
      ...networks.changes,
      ...nodes.changes,
      ...links.creates,
    ],
    unchanged: nodes.unchanged + networks.unchanged + links.unchanged,
    kept: links.kept,
  };
}

/** The lab itself: created when there is no live lab, else updated where its name or description differ. */
function labChanges(desired: Topology, observed: Topology | undefined): Change[] {
  if (!observed) return [{ kind: 'lab', op: 'create', name: desired.name, fields: ['name', 'description'] }];
  const fields = [
    desired.name !== observed.name ? 'name' : '',
    (desired.description ?? '') !== (observed.description ?? '') ? 'description' : '',
  ].filter(Boolean);
  return fields.length ? [{ kind: 'lab', op: 'update', name: desired.name, fields }] : [];
}

/** What one side lists and the other does not, in name order. */
function onlyIn<T extends { name: string }>(side: Map<string, T>, other: Map<string, unknown>): T[] {
  return [...side.values()].sort(byName).filter((o) => !other.has(o.name));
}

/** Nodes: a template cannot change in place, so such a node is replaced (deleted, then created). */
function nodesToEmulator(desired: Topology, live: Pick<Topology, 'nodes'>, prune: boolean) {
  const deletes: Change[] = [];
  const changes: Change[] = [];
  const replaced = new Set<string>();
  const deleted = new Set<string>();
  let unchanged = 0;
  for (const node of [...desired.nodes.values()].sort(byName)) {
    const current = live.nodes.get(node.name);
    if (!current) {
      changes.push({ kind: 'node', op: 'create', name: node.name, after: node, fields: nodeCreateFields(node) });
    } else if (current.template !== node.template) {
      replaced.add(node.name);
      const reason = `template changes from ${current.template} to ${node.template}, so the node is replaced`;
      deletes.push({ kind: 'node', op: 'delete', name: node.name, before: current, fields: [], reason });
      changes.push({
        kind: 'node',
        op: 'create',
        name: node.name,
        after: node,
        fields: nodeCreateFields(node),
        reason,
      });
    } else {
      const fields = changedNodeFields(node, current);
      if (fields.length) changes.push(nodeUpdate(current, node, fields, current));
      else unchanged++;
    }
  }
  if (prune) {
    for (const node of onlyIn(live.nodes, desired.nodes)) {
      deleted.add(node.name);
      deletes.push({ kind: 'node', op: 'delete', name: node.name, before: node, fields: [], reason: PRUNED_REASON });
    }
  }
  return { deletes, changes, replaced, deleted, unchanged };
}

/** A network the changed side lacks or has with another type; undefined when both agree. */
function networkChange(current: TopoNetwork | undefined, wanted: TopoNetwork): Change | undefined {
  if (!current) return { kind: 'network', op: 'create', name: wanted.name, after: wanted, fields: ['type'] };
  if (current.type === wanted.type) return undefined;
  return { kind: 'network', op: 'update', name: wanted.name, before: current, after: wanted, fields: ['type'] };
}

function networksToEmulator(desired: Topology, live: Pick<Topology, 'networks'>, prune: boolean) {
  const deletes: Change[] = [];
  const changes: Change[] = [];
  const deleted = new Set<string>();
  let unchanged = 0;
  for (const network of [...desired.networks.values()].sort(byName)) {
    const change = networkChange(live.networks.get(network.name), network);
    if (change) changes.push(change);
    else unchanged++;
  }
  if (prune) {
    for (const network of onlyIn(live.networks, desired.networks)) {
      deleted.add(network.name);
      deletes.push({
        kind: 'network',
        op: 'delete',
        name: network.name,
        before: network,
        fields: [],
        reason: PRUNED_REASON,
      });
    }
  }
  return { deletes, changes, deleted, unchanged };
}

/**
 * Links: identity is the sorted endpoint pair. A live link is deleted when it is in the way or
 * cannot survive (removalReason), and kept otherwise; a link on a replaced node is made again.
 */
function linksToEmulator(
  desired: Topology,
  live: Pick<Topology, 'links'>,
  context: { prune: boolean; replaced: Set<string>; deletedNodes: Set<string>; deletedNetworks: Set<string> },
) {
  const deletes: Change[] = [];
  const creates: Change[] = [];
  const kept: TopoLink[] = [];
  let unchanged = 0;
  const wantedInterfaces = new Set([...desired.links.values()].flatMap(interfaceKeys));
  for (const link of [...live.links.values()].sort(byName)) {
    if (desired.links.has(link.name) && !linkTouches(link, context.replaced)) {
      unchanged++;
      continue;
    }
    const reason = removalReason(link, { ...context, wantedInterfaces, desired });
    if (reason) deletes.push({ kind: 'link', op: 'delete', name: link.name, link, fields: [], reason });
    else kept.push(link);
  }
  for (const link of [...desired.links.values()].sort(byName)) {
    if (!live.links.has(link.name) || linkTouches(link, context.replaced))
      creates.push({ kind: 'link', op: 'create', name: link.name, link, fields: ['endpoints'] });
  }
  return { deletes, creates, kept, unchanged };
}

function nodeCreateFields(node: TopoNode): string[] {
  return ['template', ...COMPARED_NODE_FIELDS.filter((f) => node[f] !== undefined && node[f] !== '')];
}

function linkTouches(link: TopoLink, nodes: Set<string>): boolean {
  return [link.a, link.b].some((e) => 'node' in e && nodes.has(e.node));
}

function removalReason(
  link: TopoLink,
  c: {
    prune: boolean;
    replaced: Set<string>;
    deletedNodes: Set<string>;
    deletedNetworks: Set<string>;
    wantedInterfaces: Set<string>;
    desired: Topology;
  },
): string | undefined {
  for (const e of [link.a, link.b]) {
    if ('network' in e) {
      if (c.deletedNetworks.has(e.network)) return `network ${e.network} is deleted`;
      continue;
    }
    if (c.replaced.has(e.node)) return `node ${e.node} is replaced`;
    if (c.deletedNodes.has(e.node)) return `node ${e.node} is deleted`;
    const ethernet = c.desired.nodes.get(e.node)?.ethernet;
    if (ethernet !== undefined && e.index >= ethernet)
      return `${e.node}:${e.iface} no longer exists (ethernet: ${ethernet})`;
    if (c.wantedInterfaces.has(`${e.node}#${e.index}`))
      return `${e.node}:${e.iface} is needed by a link in the document`;
  }
  return c.prune ? PRUNED_REASON : undefined;
}

/** Changes to the document that make it describe the live lab. */
export function diffFromEmulator(desired: Topology, observed: Topology): Diff {
  const deletes: Change[] = [];
  const networkChanges: Change[] = [];
  const nodeChanges: Change[] = [];
  const linkCreates: Change[] = [];
  let unchanged = 0;

  const gone = 'not in the live lab';
  for (const link of [...desired.links.values()].sort(byName)) {
    if (observed.links.has(link.name)) unchanged++;
    else deletes.push({ kind: 'link', op: 'delete', name: link.name, link, fields: [], reason: gone });
  }
  for (const node of onlyIn(desired.nodes, observed.nodes))
    deletes.push({ kind: 'node', op: 'delete', name: node.name, before: node, fields: [], reason: gone });
  for (const network of onlyIn(desired.networks, observed.networks))
    deletes.push({ kind: 'network', op: 'delete', name: network.name, before: network, fields: [], reason: gone });
  for (const network of [...observed.networks.values()].sort(byName)) {
    const change = networkChange(desired.networks.get(network.name), network);
    if (change) networkChanges.push(change);
    else unchanged++;
  }
  for (const node of [...observed.nodes.values()].sort(byName)) {
    const current = desired.nodes.get(node.name);
    if (!current) {
      nodeChanges.push({ kind: 'node', op: 'create', name: node.name, after: node, fields: nodeCreateFields(node) });
      continue;
    }
    const fields: string[] = current.template !== node.template ? ['template'] : [];
    fields.push(...changedNodeFields(current, node));
    if (fields.length) nodeChanges.push(nodeUpdate(current, node, fields, node));
    else unchanged++;
  }
  for (const link of [...observed.links.values()].sort(byName)) {
    if (!desired.links.has(link.name))
      linkCreates.push({ kind: 'link', op: 'create', name: link.name, link, fields: ['endpoints'] });
  }
  // Nodes before networks: a new document then lists its sections in the usual order.
  return { changes: [...deletes, ...nodeChanges, ...networkChanges, ...linkCreates], unchanged, kept: [] };
}
