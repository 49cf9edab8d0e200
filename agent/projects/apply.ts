/**
 * Carries out a to_emu diff against the emulator, one call per change, in the
 * diff's order. Stops between calls when the agent shuts down (the apply
 * journal then marks the lab as interrupted).
 */
import { EmuError, type EmulatorClient, type EmuNodeSpec } from '../emulator/backend';
import type { Change } from './diff';
import type { ObservedTopology } from './observed';
import type { Endpoint, TopoNode, Topology } from './topology';

/** Where nodes without a position go: a grid, in creation order. */
function gridPosition(ordinal: number): { left: number; top: number } {
  return { left: 100 + (ordinal % 8) * 150, top: 100 + Math.floor(ordinal / 8) * 150 };
}

export function nodeSpec(node: TopoNode, ordinal: number): EmuNodeSpec {
  const position = node.position ? { left: node.position.x, top: node.position.y } : gridPosition(ordinal);
  return {
    name: node.name,
    template: node.template,
    image: node.image,
    icon: node.icon,
    cpu: node.cpu,
    ram: node.ram,
    ethernet: node.ethernet,
    console: node.console as EmuNodeSpec['console'],
    ...(node.config !== undefined ? { config: node.config } : {}),
    ...position,
  };
}

/** Ignores "already gone": deleting what a previous step removed with it is fine. */
async function unlessGone(call: Promise<void>): Promise<void> {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
  }
}

export async function applyChanges(input: {
  client: EmulatorClient;
  lab: string;
  changes: Change[];
  desired: Topology;
  observed: ObservedTopology | undefined;
  signal: AbortSignal;
}): Promise<void> {
  const { client, lab, observed, signal } = input;
  const nodeIds = new Map<string, number>();
  for (const [name, node] of observed?.liveNodes ?? []) nodeIds.set(name, node.id);
  const networkIds = new Map(observed?.networkIds ?? []);
  let created = observed?.liveNodes.size ?? 0;

  const nodeId = (name: string): number => {
    const id = nodeIds.get(name);
    if (id === undefined) throw new Error(`apply: node ${name} has no emulator id`);
    return id;
  };
  const networkId = (name: string): number => {
    const id = networkIds.get(name);
    if (id === undefined) throw new Error(`apply: network ${name} has no emulator id`);
    return id;
  };
  const attach = async (end: Endpoint, networkId: number): Promise<void> => {
    if ('node' in end) await client.connectInterface(lab, nodeId(end.node), end.index, networkId);
  };

  for (const change of input.changes) {
    signal.throwIfAborted();
    switch (change.kind) {
      case 'lab':
        if (change.op === 'create')
          await client.createLab(lab, { name: input.desired.name, description: input.desired.description ?? '' });
        else await client.editLab(lab, { name: input.desired.name, description: input.desired.description ?? '' });
        break;
      case 'network':
        if (change.op === 'delete') {
          await unlessGone(client.deleteNetwork(lab, networkId(change.name)));
          networkIds.delete(change.name);
        } else if (change.op === 'create') {
          const network = await client.addNetwork(lab, {
            name: change.name,
            type: change.after.type,
            visibility: true,
            ...gridPosition(networkIds.size),
          });
          networkIds.set(change.name, network.id);
        } else {
          await client.editNetwork(lab, networkId(change.name), { type: change.after.type });
        }
        break;
      case 'node':
        if (change.op === 'delete') {
          const id = nodeId(change.name);
          await client.stopNode(lab, id, 1);
          await unlessGone(client.deleteNode(lab, id));
          nodeIds.delete(change.name);
        } else if (change.op === 'create') {
          const node = await client.addNode(lab, nodeSpec(change.after, created++));
          nodeIds.set(change.name, node.id);
        } else {
          const spec = nodeSpec(change.after, 0);
          const edits: Partial<EmuNodeSpec> = {};
          for (const field of change.fields) {
            if (field === 'position') Object.assign(edits, { left: spec.left, top: spec.top });
            else Object.assign(edits, { [field]: spec[field as keyof EmuNodeSpec] });
          }
          await client.editNode(lab, nodeId(change.name), edits);
        }
        break;
      case 'link': {
        const { a, b } = change.link;
        if (change.op === 'delete') {
          const hidden = observed?.hiddenNetworkOf.get(change.name);
          if (hidden !== undefined) await unlessGone(client.deleteNetwork(lab, hidden));
          else {
            const end = 'node' in a ? a : b;
            if ('node' in end && nodeIds.has(end.node))
              await unlessGone(client.connectInterface(lab, nodeId(end.node), end.index, 0));
          }
        } else if ('node' in a && 'node' in b) {
          // A node-to-node link is a hidden bridge with the two interfaces on it, as EVE-NG draws it.
          const bridge = await client.addNetwork(lab, {
            name: `${a.node}-${b.node}`,
            type: 'bridge',
            visibility: false,
            left: 0,
            top: 0,
          });
          await attach(a, bridge.id);
          await attach(b, bridge.id);
        } else {
          const [end, net] = 'network' in a ? [b, a] : [a, b];
          if ('network' in net) await attach(end, networkId(net.network));
        }
        break;
      }
    }
  }
}
