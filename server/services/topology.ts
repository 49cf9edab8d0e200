/**
 * The topology view's data: the lab's nodes, networks and links with their
 * source ranges, read from the cached model (never a second parse), the
 * edits behind the view's changes, and a node's free interfaces from the
 * same catalogue answer completion uses.
 */
import { findNode, interfacesInUse, mapAsRead } from '../../common/lab/model/lookup';
import { shiftRange } from '../../common/lab/parse/outline';
import type {
  FreeInterfacesResult,
  TopologyChange,
  TopologyData,
  TopologyEditResult,
  TopologyEndpoint,
} from '../../common/protocol';
import type { Catalogue } from '../catalogue';
import type { LabFile } from '../documents';
import type { RemoteAgent } from '../remote-agent';
import { topologyEdits } from '../topology-edits';

/** Problems listed by name; the rest are counted. */
const LISTED_PROBLEMS = 5;

export function topologyOf(file: LabFile): TopologyData {
  const { model } = file;
  const line = (offset: number): number => file.text.positionAt(offset).line;
  const problems = [
    ...model.syntaxErrors.map((e) => ({ message: e.message, offset: e.range.start })),
    ...model.formatIssues.map((i) => ({ message: i.message, offset: i.range.start })),
  ].sort((a, b) => a.offset - b.offset);
  return {
    uri: file.uri,
    version: file.version,
    ...(model.name ? { name: model.name.value } : {}),
    // Each element as read, moved by its delta: the model's lists would copy every element an edit moved.
    nodes: mapAsRead(model, 'nodes', (node, delta) => ({
      name: node.name,
      ...(node.resolved.template !== undefined ? { template: node.resolved.template } : {}),
      ...(node.resolved.icon !== undefined ? { icon: node.resolved.icon } : {}),
      ...(node.resolved.position !== undefined ? { position: node.resolved.position } : {}),
      range: file.toLspRange(shiftRange(node.range, delta)),
      nameRange: file.toLspRange(shiftRange(node.nameRange, delta)),
    })),
    networks: mapAsRead(model, 'networks', (network, delta) => ({
      name: network.name,
      ...(network.type ? { type: network.type.value } : {}),
      range: file.toLspRange(shiftRange(network.range, delta)),
      nameRange: file.toLspRange(shiftRange(network.nameRange, delta)),
    })),
    links: mapAsRead(model, 'links', (link, delta, indexShift) => ({
      index: link.index + indexShift,
      range: file.toLspRange(shiftRange(link.range, delta)),
      endpoints: link.endpoints.map((e): TopologyEndpoint => ({
        text: e.text,
        range: file.toLspRange(shiftRange(e.range, delta)),
        ...(e.node !== undefined ? { node: e.node } : {}),
        ...(e.interface !== undefined ? { interface: e.interface } : {}),
        ...(e.network !== undefined ? { network: e.network } : {}),
      })),
    })),
    problems: problems.slice(0, LISTED_PROBLEMS).map((p) => ({ message: p.message, line: line(p.offset) })),
    problemCount: problems.length,
  };
}

export function topologyEdit(file: LabFile, version: number, change: TopologyChange): TopologyEditResult {
  if (version !== file.version) {
    return { error: 'The lab file changed while the edit was made; try again on the current drawing.' };
  }
  const outcome = topologyEdits(file.model, change);
  if ('error' in outcome) return outcome;
  return { edits: outcome.edits.map((e) => ({ range: file.toLspRange(e), newText: e.text })) };
}

/** The node's interfaces no link names, in the catalogue's order. */
export async function freeInterfaces(
  file: LabFile,
  nodeName: string,
  catalogue: Catalogue,
  agent: RemoteAgent,
): Promise<FreeInterfacesResult> {
  const node = findNode(file.model, nodeName);
  if (!node) return { error: `There is no node ${nodeName} in the lab.` };
  const template = node.resolved.template;
  if (!template) return { error: `${nodeName} has no template, so its interfaces are not known.` };
  if (!agent.active) return { error: 'Not logged in to an agent: the interfaces of a template come from it.' };
  // Read before waiting: the model may be replaced by an edit meanwhile.
  const used = interfacesInUse(file.model, nodeName);
  const all = await catalogue.interfaces(template, node.resolved.ethernet);
  if (!Array.isArray(all)) return { error: `The agent did not list the interfaces of ${template}.` };
  return {
    interfaces: all
      .map((iface) => iface?.name)
      .filter((name): name is string => typeof name === 'string' && name !== '' && !used.has(name)),
  };
}
