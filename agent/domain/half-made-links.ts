/**
 * What an interrupted apply can leave behind besides whole objects: the hidden
 * bridge of a node-to-node link it had made but not yet connected to both
 * ends. Observed, such a bridge is a network (observed.ts); when a push rolls
 * the apply forward, the bridge is deleted instead (which detaches the end on
 * it) and the link is made again if the document has it.
 */
import type { Change } from './diff';
import type { ObservedTopology } from './observed';

const HALF_MADE_REASON = 'a link the interrupted apply left half-made';

/** The observed lab without its half-made link bridges, and the deletes that remove them. */
export function withoutHalfMadeLinks(observed: ObservedTopology): { observed: ObservedTopology; deletes: Change[] } {
  const members = new Map<number, number>();
  for (const node of observed.lab.nodes)
    for (const i of node.interfaces) if (i.networkId) members.set(i.networkId, (members.get(i.networkId) ?? 0) + 1);
  const halfMade = new Set(
    observed.lab.networks.filter((n) => !n.visibility && (members.get(n.id) ?? 0) < 2).map((n) => n.id),
  );
  if (!halfMade.size) return { observed, deletes: [] };
  const names = new Set([...observed.networkIds].filter(([, id]) => halfMade.has(id)).map(([name]) => name));
  const deletes: Change[] = [...names].map((name) => ({
    kind: 'network',
    op: 'delete',
    name,
    before: observed.networks.get(name) ?? { name, type: 'bridge' },
    fields: [],
    reason: HALF_MADE_REASON,
  }));
  const onBridge = (e: { network: string } | object) => 'network' in e && names.has(e.network);
  return {
    observed: {
      ...observed,
      networks: new Map([...observed.networks].filter(([name]) => !names.has(name))),
      links: new Map([...observed.links].filter(([, link]) => !onBridge(link.a) && !onBridge(link.b))),
    },
    deletes,
  };
}
