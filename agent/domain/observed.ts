/**
 * The topology of a live emulator lab, in the same shape as the desired one.
 * EVE-NG has no link objects: a node-to-node link is a hidden bridge network
 * with two members, and a node-to-network link is an interface attached to a
 * visible network. This module turns those back into links.
 */
import type { EmuLab, EmuNode } from '../emulator/backend';
import { normaliseConfig } from './desired';
import { makeLink, sharedNodeFields, type TopoLink, type TopoNetwork, type TopoNode, type Topology } from './topology';

export interface ObservedTopology extends Topology {
  lab: EmuLab;
  /** Live nodes by their name in the topology. */
  liveNodes: Map<string, EmuNode>;
  /** Network ids by name (visible networks). */
  networkIds: Map<string, number>;
  /** For node-to-node links: the hidden network that carries the link. */
  hiddenNetworkOf: Map<string, number>;
}

export function observedTopology(lab: EmuLab): ObservedTopology {
  const nodes = new Map<string, TopoNode>();
  const liveNodes = new Map<string, EmuNode>();
  for (const node of lab.nodes) {
    // Names should be unique; a lab edited by hand may repeat one, so keep later ones apart.
    const name = liveNodes.has(node.name) ? `${node.name}_${node.id}` : node.name;
    liveNodes.set(name, node);
    nodes.set(name, {
      name,
      ...sharedNodeFields(node),
      console: node.console,
      ...(node.config !== undefined ? { config: normaliseConfig(node.config) } : {}),
      position: { x: node.left, y: node.top },
    });
  }

  const members = new Map<number, { node: string; index: number; iface: string }[]>();
  for (const [name, node] of liveNodes) {
    for (const i of node.interfaces) {
      if (!i.networkId) continue;
      const list = members.get(i.networkId) ?? [];
      list.push({ node: name, index: i.index, iface: i.name });
      members.set(i.networkId, list);
    }
  }

  const networks = new Map<string, TopoNetwork>();
  const networkIds = new Map<string, number>();
  const hiddenNetworkOf = new Map<string, number>();
  const links = new Map<string, TopoLink>();
  for (const network of lab.networks) {
    const ends = members.get(network.id) ?? [];
    if (!network.visibility && ends.length === 2) {
      const link = makeLink(ends[0], ends[1]);
      links.set(link.name, link);
      hiddenNetworkOf.set(link.name, network.id);
      continue;
    }
    // A visible network, or a hidden one that is not a plain two-member link: show it as a network.
    const name = networks.has(network.name) ? `${network.name}_${network.id}` : network.name;
    networks.set(name, { name, type: network.type });
    networkIds.set(name, network.id);
    for (const end of ends) {
      const link = makeLink(end, { network: name });
      links.set(link.name, link);
    }
  }

  return {
    name: lab.name,
    description: lab.description,
    nodes,
    networks,
    links,
    lab,
    liveNodes,
    networkIds,
    hiddenNetworkOf,
  };
}
