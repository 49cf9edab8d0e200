/**
 * One shape for a lab's topology, whether it comes from the document (desired)
 * or from the emulator (observed), so the two can be compared field by field.
 */
import { NODE_FIELD_NAMES, type NodeFieldName } from '../../common/lab/model/types';
import type { EmuNodeSpec } from '../emulator/backend';

/** The settings a node has alike in a lab document and on the emulator, copied as they are both ways. */
type SharedNodeFields = Pick<EmuNodeSpec, 'template' | 'image' | 'icon' | 'cpu' | 'ram' | 'ethernet'>;

export interface TopoNode extends SharedNodeFields {
  name: string;
  /** An EmuConsoleType when observed; whatever the document says when desired. */
  console: string;
  /** Startup config text. In a desired topology, undefined means "the document does not say". */
  config?: string;
  /** Canvas position. In a desired topology, undefined means "the document does not say". */
  position?: { x: number; y: number };
  /** Observed only: what a config change does (node-configs.ts); plans give it as the change's reason. */
  configNote?: string;
}

export interface TopoNetwork {
  name: string;
  type: string;
}

export type Endpoint = { node: string; index: number; iface: string } | { network: string };

export interface TopoLink {
  /** `a -- b`, endpoints sorted (decisions §4). */
  name: string;
  a: Endpoint;
  b: Endpoint;
}

export interface Topology {
  name: string;
  description?: string;
  nodes: Map<string, TopoNode>;
  networks: Map<string, TopoNetwork>;
  links: Map<string, TopoLink>;
}

/** Fields compared between desired and observed nodes, in the order plans list them: all but the template (a new template replaces the node). */
export type ComparedNodeField = Exclude<NodeFieldName, 'template'>;
export const COMPARED_NODE_FIELDS: readonly ComparedNodeField[] = NODE_FIELD_NAMES.filter(
  (field): field is ComparedNodeField => field !== 'template',
);

export function sharedNodeFields(node: SharedNodeFields): SharedNodeFields {
  return {
    template: node.template,
    image: node.image,
    icon: node.icon,
    cpu: node.cpu,
    ram: node.ram,
    ethernet: node.ethernet,
  };
}

export function endpointText(e: Endpoint): string {
  return 'network' in e ? e.network : `${e.node}:${e.iface}`;
}

export function makeLink(a: Endpoint, b: Endpoint): TopoLink {
  const [first, second] = endpointText(a) <= endpointText(b) ? [a, b] : [b, a];
  return { name: `${endpointText(first)} -- ${endpointText(second)}`, a: first, b: second };
}

/** The node-interface endpoints of a link, as `node#index` keys. */
export function interfaceKeys(link: TopoLink): string[] {
  return [link.a, link.b].flatMap((e) => ('network' in e ? [] : [`${e.node}#${e.index}`]));
}
