/** Read-only views of a live lab: node status, lab state, inspection (decisions §4, §7). */
import { createHash } from 'node:crypto';
import type { InspectionData, LabState, NodeState, NodeStatus } from '../../common/api/contract';
import { EmuNodeStatus, type EmuLab, type EmuNode } from '../emulator/backend';
import { observedTopology } from './observed';

const STATE_OF_STATUS: Record<EmuNodeStatus, NodeState> = {
  [EmuNodeStatus.stopped]: 'stopped',
  [EmuNodeStatus.starting]: 'starting',
  [EmuNodeStatus.running]: 'running',
  [EmuNodeStatus.stopping]: 'stopping',
};

export function nodeState(node: EmuNode): NodeState {
  return STATE_OF_STATUS[node.status] ?? 'stopped';
}

export function nodeStatus(node: EmuNode): NodeStatus {
  return {
    name: node.name,
    id: node.id,
    template: node.template,
    image: node.image,
    state: nodeState(node),
    status: node.status,
    console: node.console,
  };
}

export function labState(lab: EmuLab | undefined): LabState {
  if (!lab) return 'absent';
  const running = lab.nodes.filter((n) => n.status === EmuNodeStatus.running).length;
  if (lab.nodes.length > 0 && running === lab.nodes.length) return 'running';
  return lab.nodes.every((n) => n.status === EmuNodeStatus.stopped) ? 'stopped' : 'partial';
}

/**
 * The opaque `state` clients keep beside the document (decisions §1):
 * the lab path, a revision of the topology and the node ids by name.
 */
export function projectState(lab: EmuLab): { lab: string; revision: string; nodes: Record<string, number> } {
  const topology = observedTopology(lab);
  const digest = createHash('sha256')
    .update(
      JSON.stringify([...topology.nodes.values(), [...topology.networks.values()], [...topology.links.keys()].sort()]),
    )
    .digest('hex');
  return {
    lab: lab.path,
    revision: digest.slice(0, 16),
    nodes: Object.fromEntries(lab.nodes.map((n) => [n.name, n.id])),
  };
}

export function inspection(lab: EmuLab, observedAt: string): InspectionData {
  const networkById = new Map(lab.networks.map((n) => [n.id, n]));
  /** Who else is on each network: "node:interface" entries. */
  const members = new Map<number, string[]>();
  for (const node of lab.nodes) {
    for (const i of node.interfaces) {
      if (i.networkId) members.set(i.networkId, [...(members.get(i.networkId) ?? []), `${node.name}:${i.name}`]);
    }
  }
  const topology = observedTopology(lab);
  return {
    lab: lab.path,
    exists: true,
    cached: false,
    observed_at: observedAt,
    nodes: lab.nodes.map((node) => ({
      ...nodeStatus(node),
      cpu: node.cpu,
      ram: node.ram,
      ethernet: node.ethernet,
      icon: node.icon,
      interfaces: node.interfaces.map((i) => {
        const network = networkById.get(i.networkId);
        const self = `${node.name}:${i.name}`;
        const base = { name: i.name, index: i.index };
        if (!network) return base;
        const peer = network.visibility ? network.name : (members.get(network.id) ?? []).find((m) => m !== self);
        return { ...base, network: network.name, ...(peer ? { peer } : {}) };
      }),
    })),
    networks: lab.networks.filter((n) => n.visibility).map((n) => ({ name: n.name, type: n.type, id: n.id })),
    links: [...topology.links.values()].map((l) => {
      const text = (e: typeof l.a) => ('network' in e ? e.network : `${e.node}:${e.iface}`);
      return { a: text(l.a), b: text(l.b) };
    }),
  };
}
