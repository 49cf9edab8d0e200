/**
 * The desired topology a lab document describes, with every default filled in
 * the way the emulator would fill it (template defaults, EVE's default image),
 * so that it compares equal to what the emulator reports after a deploy.
 * Parts of the document that do not validate are left out; validate reports them.
 */
import { DEFAULT_NETWORK_TYPE } from '../../common/lab/rules/format';
import type { LabDocument } from '../../common/lab/model/types';
import type { Catalogue } from './catalogue';
import { makeLink, type Endpoint, type TopoLink, type TopoNetwork, type TopoNode, type Topology } from './topology';

/** Config text compared without line-ending and trailing-newline noise. */
export function normaliseConfig(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}

export function desiredTopology(
  doc: LabDocument,
  files: Record<string, string>,
  catalogue: Catalogue,
  fallbackName: string,
): Topology {
  const nodes = new Map<string, TopoNode>();
  for (const node of doc.nodes) {
    if (nodes.has(node.name)) continue;
    const r = node.resolved;
    const template = r.template ? catalogue.templates.get(r.template) : undefined;
    if (!template) continue;
    // A template without startup configs ignores them (deploy reports it as unsupported).
    const configText = r.config && template.configSupported ? files[r.config] : undefined;
    nodes.set(node.name, {
      name: node.name,
      template: template.id,
      image: r.image ?? template.defaultImage,
      icon: r.icon ?? template.defaults.icon,
      cpu: r.cpu ?? template.defaults.cpu,
      ram: r.ram ?? template.defaults.ram,
      ethernet: r.ethernet ?? template.defaults.ethernet,
      console: r.console ?? template.defaults.console,
      ...(configText !== undefined ? { config: normaliseConfig(configText) } : {}),
      ...(r.position ? { position: { x: r.position.x, y: r.position.y } } : {}),
    });
  }

  const networks = new Map<string, TopoNetwork>();
  for (const network of doc.networks) {
    if (!networks.has(network.name))
      networks.set(network.name, { name: network.name, type: network.type?.value ?? DEFAULT_NETWORK_TYPE });
  }

  const links = new Map<string, TopoLink>();
  for (const link of doc.links) {
    if (link.endpoints.length !== 2) continue;
    const ends = link.endpoints.map((e): Endpoint | undefined => {
      if (e.network !== undefined) return networks.has(e.network) ? { network: e.network } : undefined;
      if (!e.node || !e.interface) return undefined;
      const node = nodes.get(e.node);
      const template = node && catalogue.templates.get(node.template);
      if (!node || !template) return undefined;
      const index = catalogue.ethFormat(template).indexOf(e.interface, node.ethernet);
      return index === undefined ? undefined : { node: e.node, index, iface: e.interface };
    });
    const [a, b] = ends;
    if (!a || !b || ('network' in a && 'network' in b)) continue;
    const made = makeLink(a, b);
    if (!links.has(made.name)) links.set(made.name, made);
  }

  return { name: doc.name?.value ?? fallbackName, description: doc.description?.value, nodes, networks, links };
}
