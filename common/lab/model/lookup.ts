/**
 * Questions the editor asks of a lab model: which node or network has a name,
 * which interfaces links use, what link an offset is in. Each scans the
 * elements as read (LabDocument.forEachAsRead) and moves only what it returns,
 * so asking after an edit does not copy the whole lab. Offset lookups count
 * the end of a range as inside, so a cursor just after `r1:` is on that endpoint.
 */
import { shiftElement } from '../parse/shift';
import type { ElementKind, ElementOf, LabDocument, LabLink, LabNetwork, LabNode, LinkEndpoint } from './types';

export interface EndpointUse {
  link: LabLink;
  endpoint: LinkEndpoint;
  /** The endpoint's position in link.endpoints. */
  endpointIndex: number;
}

export function findNode(doc: LabDocument, name: string): LabNode | undefined {
  return firstOf(doc, 'nodes', (node) => node.name === name);
}

export function findNetwork(doc: LabDocument, name: string): LabNetwork | undefined {
  return firstOf(doc, 'networks', (network) => network.name === name);
}

/**
 * The interfaces of a node that links use, each with its first use; the
 * endpoint starting at offset `except` (one being edited) does not count.
 */
export function interfacesInUse(doc: LabDocument, node: string, except = -1): Map<string, EndpointUse> {
  const used = new Map<string, EndpointUse>();
  doc.forEachAsRead('links', (asRead, delta, indexShift) => {
    let link: LabLink | undefined;
    asRead.endpoints.forEach((endpoint, endpointIndex) => {
      if (endpoint.node !== node || !endpoint.interface || used.has(endpoint.interface)) return;
      if (endpoint.range.start + delta === except) return;
      link ??= shiftElement('links', asRead, delta, indexShift);
      used.set(endpoint.interface, { link, endpoint: link.endpoints[endpointIndex], endpointIndex });
    });
  });
  return used;
}

/** What `entry` makes of each node, network or link as read, in document order (nothing else is copied). */
export function mapAsRead<K extends ElementKind, T>(
  doc: LabDocument,
  kind: K,
  entry: (element: ElementOf[K], delta: number, indexShift: number) => T,
): T[] {
  const entries: T[] = [];
  doc.forEachAsRead(kind, (element, delta, indexShift) => entries.push(entry(element, delta, indexShift)));
  return entries;
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
  const link = lastStartingAtOrBefore(doc, 'links', offset);
  if (!link || offset > link.range.end) return undefined;
  const endpointIndex = link.endpoints.findIndex((e) => offset >= e.range.start && offset <= e.range.end);
  if (endpointIndex < 0) return { link };
  const endpoint = link.endpoints[endpointIndex];
  const found: LinkAt = { link, endpoint, endpointIndex };
  if (endpoint.nodeRange && endpoint.interfaceRange) {
    found.part =
      offset <= endpoint.nodeRange.end && endpoint.nodeRange.end < endpoint.interfaceRange.start ? 'node' : 'interface';
  }
  return found;
}

/** The last node, network or link whose range starts at or before `offset`: the one a line below it belongs to. */
export function lastStartingAtOrBefore<K extends ElementKind>(
  doc: LabDocument,
  kind: K,
  offset: number,
): ElementOf[K] | undefined {
  let found: ElementOf[K] | undefined;
  let foundDelta = 0;
  let foundShift = 0;
  doc.forEachAsRead(kind, (element, delta, indexShift) => {
    if (element.range.start + delta > offset) return;
    found = element;
    foundDelta = delta;
    foundShift = indexShift;
  });
  return found && shiftElement(kind, found, foundDelta, foundShift);
}

function firstOf<K extends ElementKind>(
  doc: LabDocument,
  kind: K,
  match: (element: ElementOf[K]) => boolean,
): ElementOf[K] | undefined {
  let found: ElementOf[K] | undefined;
  doc.forEachAsRead(kind, (element, delta, indexShift) => {
    if (found === undefined && match(element)) found = shiftElement(kind, element, delta, indexShift);
  });
  return found;
}
