/**
 * The drawing from what is known about a lab: its topology as the language
 * server reads it, the live lab's status and the to_emu plan. Pure, so the
 * rules (what is drawn, what is marked, what is said about what cannot be
 * drawn) are tested without VS Code.
 */
import type { CapabilitiesData, NodeStatus, PlanAction, PlanData, ProjectStatusData } from '../../common/api/contract';
import type { TopologyData, TopologyEndpoint } from '../../common/protocol';
import type { ProjectMode } from '../model/capabilities';
import { linkCaptureTarget } from '../capture/targets';
import { nodeTokens } from '../model/lab-rows';
import type { Drift, GraphData, GraphLink, GraphNode, NodeAction, NodeSymbol } from './messages';

export interface LiveInfo {
  /** Not logged in, or the agent does not offer status: nothing live is shown. */
  connected: boolean;
  status?: ProjectStatusData;
  statusError?: string;
  plan?: PlanData;
  planError?: string;
  caps?: CapabilitiesData;
  mode: ProjectMode;
}

const NODE_ACTIONS: readonly NodeAction[] = ['start', 'stop', 'wipe', 'console', 'consoleExec'];

export function nodeId(name: string): string {
  return `node:${name}`;
}

export function networkId(name: string): string {
  return `network:${name}`;
}

export function linkId(index: number): string {
  return `link:${index}`;
}

/** The plan's name of a link: its two endpoints' texts, sorted, joined by ` -- ` (contract decisions §4). */
export function planLinkName(endpoints: readonly string[]): string {
  const [a, b] = endpoints;
  return a <= b ? `${a} -- ${b}` : `${b} -- ${a}`;
}

export function symbolOf(icon: string | undefined, template: string | undefined): NodeSymbol {
  const hint = `${icon ?? ''} ${template ?? ''}`.toLowerCase();
  if (/switch|l2|nxos|n9k/.test(hint)) return 'switch';
  if (/firewall|asa|fortigate|paloalto|pfsense/.test(hint)) return 'firewall';
  if (/router|vios|csr|xrv|vmx|veos|iol/.test(hint)) return 'router';
  if (/server|linux|ubuntu|debian/.test(hint)) return 'server';
  if (/desktop|pc|host|vpcs|win/.test(hint)) return 'host';
  return 'generic';
}

function driftsOf(plan: PlanData | undefined, kind: PlanAction['kind']): Map<string, Drift> {
  const drifts = new Map<string, Drift>();
  for (const action of plan?.actions ?? []) {
    if (action.kind !== kind || typeof action.name !== 'string') continue;
    if (action.op === 'create' || action.op === 'update' || action.op === 'delete') drifts.set(action.name, action.op);
  }
  return drifts;
}

export function buildGraph(topology: TopologyData, live: LiveInfo): GraphData {
  const notes: string[] = [];
  if (topology.problemCount > 0) {
    const first = topology.problems[0];
    const where = first ? ` Line ${first.line + 1}: ${first.message}` : '';
    notes.push(
      `The lab file has ${topology.problemCount} problem${topology.problemCount === 1 ? '' : 's'}; the drawing shows what could be read.${where}`,
    );
  }
  const deployed = live.status !== undefined && live.status.exists !== false && live.status.state !== 'absent';
  const liveNodes = new Map<string, NodeStatus>();
  for (const n of (deployed ? live.status?.nodes : undefined) ?? [])
    if (typeof n.name === 'string') liveNodes.set(n.name, n);
  const nodeDrift = driftsOf(live.plan, 'node');
  const networkDrift = driftsOf(live.plan, 'network');
  const linkDrift = driftsOf(live.plan, 'link');

  // Capture is offered only by an agent that has it; on a link whose captured node runs.
  const canCapture = live.caps?.features?.capture === true;
  const captureOf = (link: TopologyData['links'][number]): GraphLink['capture'] => {
    const target = canCapture ? linkCaptureTarget(link) : undefined;
    if (target === undefined) return undefined;
    const state = liveNodes.get(target.slice(0, target.indexOf(':')))?.state;
    return state === 'running'
      ? { target }
      : {
          target,
          disabled: `Not available now: ${target.slice(0, target.indexOf(':'))} must be deployed and running.`,
        };
  };
  const actionsOf = (status: NodeStatus | undefined): NodeAction[] => {
    const tokens = new Set(nodeTokens(live.caps, live.mode, status).split(' '));
    return NODE_ACTIONS.filter((a) => tokens.has(a));
  };
  const nodes: GraphNode[] = topology.nodes.map((node) => {
    const status = liveNodes.get(node.name);
    const state = status?.state ?? (deployed ? 'missing' : undefined);
    return {
      id: nodeId(node.name),
      kind: 'node',
      name: node.name,
      symbol: symbolOf(node.icon, node.template),
      detail: node.template ?? 'no template',
      ...(node.position ? { position: node.position } : {}),
      ...(state !== undefined ? { state: String(state) } : {}),
      ...withDrift(nodeDrift.get(node.name)),
      actions: actionsOf(status),
    };
  });
  const declared = new Set(topology.nodes.map((n) => n.name));
  const liveOnlyNames = new Set([
    ...[...liveNodes.keys()].filter((name) => !declared.has(name)),
    ...[...nodeDrift].filter(([name, drift]) => drift === 'delete' && !declared.has(name)).map(([name]) => name),
  ]);
  for (const name of liveOnlyNames) {
    const status = liveNodes.get(name);
    nodes.push({
      id: nodeId(name),
      kind: 'node',
      name,
      symbol: symbolOf(undefined, status?.template),
      detail: status?.template ?? '',
      ...(status?.state !== undefined ? { state: String(status.state) } : {}),
      ...withDrift(nodeDrift.get(name)),
      liveOnly: true,
      actions: actionsOf(status),
    });
  }
  for (const network of topology.networks) {
    nodes.push({
      id: networkId(network.name),
      kind: 'network',
      name: network.name,
      symbol: 'cloud',
      detail: network.type ?? 'bridge',
      ...withDrift(networkDrift.get(network.name)),
      actions: [],
    });
  }

  const ids = new Set(nodes.map((n) => n.id));
  const endId = (e: TopologyEndpoint): string | undefined =>
    e.node !== undefined ? nodeId(e.node) : e.network !== undefined ? networkId(e.network) : undefined;
  const links: GraphLink[] = [];
  const undrawn: string[] = [];
  const linkNames = new Set<string>();
  for (const link of topology.links) {
    const ends = link.endpoints.map(endId);
    const [source, target] = ends;
    if (
      link.endpoints.length !== 2 ||
      source === undefined ||
      target === undefined ||
      !ids.has(source) ||
      !ids.has(target)
    ) {
      undrawn.push(`${link.index + 1} (${link.endpoints.map((e) => e.text).join(', ') || 'no endpoints'})`);
      continue;
    }
    const name = planLinkName(link.endpoints.map((e) => e.text));
    linkNames.add(name);
    const capture = captureOf(link);
    links.push({
      id: linkId(link.index),
      index: link.index,
      source,
      target,
      sourceLabel: link.endpoints[0].interface ?? '',
      targetLabel: link.endpoints[1].interface ?? '',
      ...withDrift(linkDrift.get(name)),
      ...(capture ? { capture } : {}),
    });
  }
  if (undrawn.length > 0) {
    const listed = undrawn.slice(0, 3).join('; ');
    notes.push(
      `Not drawn: link${undrawn.length === 1 ? '' : 's'} ${listed}${undrawn.length > 3 ? ` and ${undrawn.length - 3} more` : ''} — an end names no node or network of the lab, or the link does not have two ends.`,
    );
  }
  for (const [name, drift] of linkDrift) {
    if (drift !== 'delete' || linkNames.has(name)) continue;
    const ends = name.split(' -- ').map((text) => parseEndpoint(text));
    if (ends.length !== 2 || ends.some((e) => !ids.has(e.id))) continue;
    links.push({
      id: `live-link:${name}`,
      source: ends[0].id,
      target: ends[1].id,
      sourceLabel: ends[0].iface,
      targetLabel: ends[1].iface,
      drift,
    });
  }
  return { title: topology.name ?? 'lab', nodes, links, notes, liveSummary: liveSummary(live, deployed) };
}

function withDrift(drift: Drift | undefined): { drift?: Drift } {
  return drift === undefined ? {} : { drift };
}

function parseEndpoint(text: string): { id: string; iface: string } {
  const colon = text.indexOf(':');
  return colon < 0
    ? { id: networkId(text), iface: '' }
    : { id: nodeId(text.slice(0, colon)), iface: text.slice(colon + 1) };
}

function liveSummary(live: LiveInfo, deployed: boolean): string {
  if (!live.connected) return 'Not logged in: live state and drift are not shown.';
  const parts: string[] = [];
  if (live.statusError !== undefined) parts.push(`Live state unavailable: ${live.statusError}`);
  else if (live.status === undefined) parts.push('Live state: not fetched yet.');
  else if (!deployed) parts.push('Not deployed.');
  else {
    const counts = live.status.total !== undefined ? ` (${live.status.running ?? 0}/${live.status.total} up)` : '';
    parts.push(`Live: ${live.status.state ?? 'deployed'}${counts}${live.status.locked === true ? ', locked' : ''}.`);
  }
  if (live.planError !== undefined) parts.push(`Drift unavailable: ${live.planError}`);
  else if (live.plan !== undefined) {
    const s = live.plan.summary ?? {};
    const changes = (s.create ?? 0) + (s.update ?? 0) + (s.delete ?? 0);
    parts.push(changes === 0 ? 'No drift.' : `Drift: +${s.create ?? 0} ~${s.update ?? 0} −${s.delete ?? 0} to push.`);
  }
  return parts.join(' ');
}
