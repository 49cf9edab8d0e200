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
  sameValue,
  type ComparedNodeField,
  type TopoLink,
  type TopoNetwork,
  type TopoNode,
  type Topology,
} from './topology';

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

export function diffToEmulator(desired: Topology, observed: Topology | undefined, prune: boolean): Diff {
  const linkDeletes: Change[] = [];
  const nodeDeletes: Change[] = [];
  const networkDeletes: Change[] = [];
  const labChanges: Change[] = [];
  const networkChanges: Change[] = [];
  const nodeChanges: Change[] = [];
  const linkCreates: Change[] = [];
  const kept: TopoLink[] = [];
  let unchanged = 0;

  if (!observed) {
    labChanges.push({ kind: 'lab', op: 'create', name: desired.name, fields: ['name', 'description'] });
  } else {
    const fields = [
      desired.name !== observed.name ? 'name' : '',
      (desired.description ?? '') !== (observed.description ?? '') ? 'description' : '',
    ].filter(Boolean);
    if (fields.length) labChanges.push({ kind: 'lab', op: 'update', name: desired.name, fields });
  }
  const live = observed ?? {
    nodes: new Map<string, TopoNode>(),
    networks: new Map<string, TopoNetwork>(),
    links: new Map<string, TopoLink>(),
  };

  // Nodes: a template cannot change in place, so such a node is replaced.
  const replaced = new Set<string>();
  for (const node of [...desired.nodes.values()].sort(byName)) {
    const current = live.nodes.get(node.name);
    if (!current) {
      nodeChanges.push({ kind: 'node', op: 'create', name: node.name, after: node, fields: nodeCreateFields(node) });
    } else if (current.template !== node.template) {
      replaced.add(node.name);
      const reason = `template changes from ${current.template} to ${node.template}, so the node is replaced`;
      nodeDeletes.push({ kind: 'node', op: 'delete', name: node.name, before: current, fields: [], reason });
      nodeChanges.push({
        kind: 'node',
        op: 'create',
        name: node.name,
        after: node,
        fields: nodeCreateFields(node),
        reason,
      });
    } else {
      const fields = changedNodeFields(node, current);
      if (fields.length)
        nodeChanges.push({ kind: 'node', op: 'update', name: node.name, after: node, before: current, fields });
      else unchanged++;
    }
  }
  const deletedNodes = new Set<string>();
  if (prune) {
    for (const node of [...live.nodes.values()].sort(byName)) {
      if (desired.nodes.has(node.name)) continue;
      deletedNodes.add(node.name);
      nodeDeletes.push({
        kind: 'node',
        op: 'delete',
        name: node.name,
        before: node,
        fields: [],
        reason: 'not in the document (prune)',
      });
    }
  }

  const deletedNetworks = new Set<string>();
  for (const network of [...desired.networks.values()].sort(byName)) {
    const current = live.networks.get(network.name);
    if (!current)
      networkChanges.push({ kind: 'network', op: 'create', name: network.name, after: network, fields: ['type'] });
    else if (current.type !== network.type)
      networkChanges.push({
        kind: 'network',
        op: 'update',
        name: network.name,
        after: network,
        before: current,
        fields: ['type'],
      });
    else unchanged++;
  }
  if (prune) {
    for (const network of [...live.networks.values()].sort(byName)) {
      if (desired.networks.has(network.name)) continue;
      deletedNetworks.add(network.name);
      networkDeletes.push({
        kind: 'network',
        op: 'delete',
        name: network.name,
        before: network,
        fields: [],
        reason: 'not in the document (prune)',
      });
    }
  }

  // Links: identity is the sorted endpoint pair.
  const wantedInterfaces = new Set([...desired.links.values()].flatMap(interfaceKeys));
  for (const link of [...live.links.values()].sort(byName)) {
    if (desired.links.has(link.name) && !linkTouches(link, replaced)) {
      unchanged++;
      continue;
    }
    const reason = removalReason(link, { prune, replaced, deletedNodes, deletedNetworks, wantedInterfaces, desired });
    if (reason) linkDeletes.push({ kind: 'link', op: 'delete', name: link.name, link, fields: [], reason });
    else kept.push(link);
  }
  for (const link of [...desired.links.values()].sort(byName)) {
    if (!live.links.has(link.name) || linkTouches(link, replaced))
      linkCreates.push({ kind: 'link', op: 'create', name: link.name, link, fields: ['endpoints'] });
  }

  return {
    changes: [
      ...linkDeletes,
      ...nodeDeletes,
      ...networkDeletes,
      ...labChanges,
      ...networkChanges,
      ...nodeChanges,
      ...linkCreates,
    ],
    unchanged,
    kept,
  };
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
  return c.prune ? 'not in the document (prune)' : undefined;
}

/** Changes to the document that make it describe the live lab. */
export function diffFromEmulator(desired: Topology, observed: Topology): Diff {
  const deletes: Change[] = [];
  const networkChanges: Change[] = [];
  const nodeChanges: Change[] = [];
  const linkCreates: Change[] = [];
  let unchanged = 0;

  for (const link of [...desired.links.values()].sort(byName)) {
    if (observed.links.has(link.name)) unchanged++;
    else deletes.push({ kind: 'link', op: 'delete', name: link.name, link, fields: [], reason: 'not in the live lab' });
  }
  for (const node of [...desired.nodes.values()].sort(byName)) {
    if (!observed.nodes.has(node.name))
      deletes.push({
        kind: 'node',
        op: 'delete',
        name: node.name,
        before: node,
        fields: [],
        reason: 'not in the live lab',
      });
  }
  for (const network of [...desired.networks.values()].sort(byName)) {
    if (!observed.networks.has(network.name))
      deletes.push({
        kind: 'network',
        op: 'delete',
        name: network.name,
        before: network,
        fields: [],
        reason: 'not in the live lab',
      });
  }
  for (const network of [...observed.networks.values()].sort(byName)) {
    const current = desired.networks.get(network.name);
    if (!current)
      networkChanges.push({ kind: 'network', op: 'create', name: network.name, after: network, fields: ['type'] });
    else if (current.type !== network.type)
      networkChanges.push({
        kind: 'network',
        op: 'update',
        name: network.name,
        before: current,
        after: network,
        fields: ['type'],
      });
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
    if (fields.length)
      nodeChanges.push({ kind: 'node', op: 'update', name: node.name, before: current, after: node, fields });
    else unchanged++;
  }
  for (const link of [...observed.links.values()].sort(byName)) {
    if (!desired.links.has(link.name))
      linkCreates.push({ kind: 'link', op: 'create', name: link.name, link, fields: ['endpoints'] });
  }
  // Nodes before networks: a new document then lists its sections in the usual order.
  return { changes: [...deletes, ...nodeChanges, ...networkChanges, ...linkCreates], unchanged, kept: [] };
}
