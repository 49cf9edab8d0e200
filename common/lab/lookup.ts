/**
 * Questions the editor asks of a lab model: which node or network has a name,
 * which link endpoints use an interface, what link or node an offset is in.
 * One-off questions scan the model; LabIndex answers many in constant time.
 * Offset lookups count the end of a range as inside, so a cursor just after
 * `r1:` is on that endpoint.
 */
import type { LabDocument, LabLink, LabNetwork, LabNode, LinkEndpoint, Range } from './types';

export interface EndpointUse {
  link: LabLink;
  endpoint: LinkEndpoint;
  /** The endpoint's position in link.endpoints. */
  endpointIndex: number;
}

export function findNode(doc: LabDocument, name: string): LabNode | undefined {
  return doc.nodes.find((node) => node.name === name);
}

export function findNetwork(doc: LabDocument, name: string): LabNetwork | undefined {
  return doc.networks.find((network) => network.name === name);
}

/** The endpoints written as `node:interface`. */
export function endpointsUsing(doc: LabDocument, node: string, iface: string): EndpointUse[] {
  const uses: EndpointUse[] = [];
  for (const link of doc.links) {
    link.endpoints.forEach((endpoint, endpointIndex) => {
      if (endpoint.node === node && endpoint.interface === iface) uses.push({ link, endpoint, endpointIndex });
    });
  }
  return uses;
}

/** The interfaces of a node that links use, each with its first use. */
export function interfacesInUse(doc: LabDocument, node: string): Map<string, EndpointUse> {
  const used = new Map<string, EndpointUse>();
  for (const link of doc.links) {
    link.endpoints.forEach((endpoint, endpointIndex) => {
      if (endpoint.node === node && endpoint.interface && !used.has(endpoint.interface)) {
        used.set(endpoint.interface, { link, endpoint, endpointIndex });
      }
    });
  }
  return used;
}

export interface LinkAt {
  link: LabLink;
  /** Set when the offset is on one of the link's endpoints. */
  endpoint?: LinkEndpoint;
  endpointIndex?: number;
  /** For a `node:interface` endpoint: whether the offset is on the node part or the interface part (the colon counts as interface). */
  part?: 'node' | 'interface';
}

/** The link (and endpoint) at an offset. */
export function linkAt(doc: LabDocument, offset: number): LinkAt | undefined {
  const link = atOffset(doc.links, offset);
  if (!link) return undefined;
  const endpointIndex = link.endpoints.findIndex((endpoint) => inside(endpoint.range, offset));
  if (endpointIndex < 0) return { link };
  const endpoint = link.endpoints[endpointIndex];
  const found: LinkAt = { link, endpoint, endpointIndex };
  if (endpoint.nodeRange && endpoint.interfaceRange) {
    found.part =
      offset <= endpoint.nodeRange.end && endpoint.nodeRange.end < endpoint.interfaceRange.start ? 'node' : 'interface';
  }
  return found;
}

/** The node whose entry (name through settings) contains an offset. */
export function nodeAt(doc: LabDocument, offset: number): LabNode | undefined {
  return atOffset(doc.nodes, offset);
}

export function networkAt(doc: LabDocument, offset: number): LabNetwork | undefined {
  return atOffset(doc.networks, offset);
}

/** Constant-time lookups over one model; build it once per document version. */
export class LabIndex {
  private readonly nodesByName = new Map<string, LabNode>();
  private readonly networksByName = new Map<string, LabNetwork>();
  private readonly uses = new Map<string, EndpointUse[]>();

  constructor(readonly doc: LabDocument) {
    for (const node of doc.nodes) this.nodesByName.set(node.name, node);
    for (const network of doc.networks) this.networksByName.set(network.name, network);
    for (const link of doc.links) {
      link.endpoints.forEach((endpoint, endpointIndex) => {
        if (endpoint.node === undefined) return;
        const key = useKey(endpoint.node, endpoint.interface ?? '');
        const list = this.uses.get(key);
        if (list) list.push({ link, endpoint, endpointIndex });
        else this.uses.set(key, [{ link, endpoint, endpointIndex }]);
      });
    }
  }

  node(name: string): LabNode | undefined {
    return this.nodesByName.get(name);
  }

  network(name: string): LabNetwork | undefined {
    return this.networksByName.get(name);
  }

  endpointsUsing(node: string, iface: string): EndpointUse[] {
    return this.uses.get(useKey(node, iface)) ?? [];
  }
}

function useKey(node: string, iface: string): string {
  // Node names cannot hold a colon (a colon ends the node part of an endpoint), so this key is unambiguous.
  return `${node}:${iface}`;
}

/** Binary search over items in document order for the one whose range holds `offset`. */
function atOffset<T extends { range: Range }>(items: readonly T[], offset: number): T | undefined {
  let low = 0;
  let high = items.length - 1;
  let candidate = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (items[middle].range.start <= offset) {
      candidate = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return candidate >= 0 && inside(items[candidate].range, offset) ? items[candidate] : undefined;
}

function inside(range: Range, offset: number): boolean {
  return offset >= range.start && offset <= range.end;
}
