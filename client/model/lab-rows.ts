/**
 * Rows of the Labs view: each lab file of the workspace with its live status
 * (getProjectStatus), and its nodes with their state. Nodes come from the
 * document, so a lab that is not deployed still lists what it would create;
 * nodes only the emulator has are listed too, marked as such.
 *
 * Context values carry the actions allowed for the row (capabilities and
 * state), so menus offer exactly those.
 */
import type { CapabilitiesData, NodeStatus, ProjectStatusData } from '../../common/api/contract';
import { isLabActionAllowed, type LabAction, type ProjectMode } from './capabilities';
import type { TreeRow } from './tree-row';

export interface LabFileInfo {
  /** The lab document's URI, as a string. */
  uri: string;
  /** The lab's display name (its `name`, or the file name). */
  name: string;
  /** Where the file is, relative to the workspace. */
  relativePath: string;
  /** Nodes declared in the document, in document order. */
  nodes: { name: string; template?: string; image?: string }[];
  mode: ProjectMode;
}

export interface LabLiveView {
  /** Status from the agent; undefined when not logged in or not fetched. */
  status?: ProjectStatusData;
  /** Why the status could not be fetched. */
  error?: string;
}

/** What a lab or node row carries for the commands run on it. */
export interface LabRowData {
  uri: string;
  node?: string;
}

const TRANSITIONAL = new Set(['starting', 'stopping']);

const LAB_ROW_ACTIONS: readonly LabAction[] = [
  'validate',
  'plan',
  'deploy',
  'reconcileToEmu',
  'reconcileFromEmu',
  'status',
  'inspect',
  'open',
  'consoles',
];
const DEPLOYED_LAB_ACTIONS: readonly LabAction[] = ['destroy', 'start', 'stop', 'wipe', 'consoleExec'];

function tokens(
  kind: string,
  caps: CapabilitiesData | undefined,
  mode: ProjectMode,
  actions: readonly LabAction[],
): string {
  return [kind, ...actions.filter((a) => isLabActionAllowed(caps, a, mode))].join(' ');
}

function nodeIcon(state: string | undefined): { icon: string; iconColor?: string } {
  switch (state) {
    case 'running':
      return { icon: 'vm-running', iconColor: 'testing.iconPassed' };
    case 'starting':
    case 'stopping':
      return { icon: 'loading~spin' };
    case 'stopped':
      return { icon: 'vm-outline' };
    default:
      return { icon: 'vm', iconColor: 'disabledForeground' };
  }
}

function labIcon(view: LabLiveView): { icon: string; iconColor?: string } {
  if (view.error !== undefined) return { icon: 'warning', iconColor: 'problemsWarningIcon.foreground' };
  const status = view.status;
  if (status === undefined) return { icon: 'beaker' };
  if (status.exists === false || status.state === 'absent') return { icon: 'beaker', iconColor: 'disabledForeground' };
  if (status.locked === true) return { icon: 'lock' };
  switch (status.state) {
    case 'running':
      return { icon: 'vm-running', iconColor: 'testing.iconPassed' };
    case 'partial':
      return { icon: 'vm-active', iconColor: 'problemsWarningIcon.foreground' };
    default:
      return { icon: 'vm-outline' };
  }
}

function labDescription(view: LabLiveView): string {
  if (view.error !== undefined) return 'status unavailable';
  const status = view.status;
  if (status === undefined) return '';
  if (status.exists === false || status.state === 'absent') return 'not deployed';
  const counts = status.total !== undefined ? ` (${status.running ?? 0}/${status.total} up)` : '';
  return `${status.state ?? 'deployed'}${counts}${status.locked === true ? ' · locked' : ''}`;
}

/** The node's kind and the actions its state allows (context values; the topology view's menu too). */
export function nodeTokens(
  caps: CapabilitiesData | undefined,
  mode: ProjectMode,
  live: NodeStatus | undefined,
): string {
  const allowed = (a: LabAction): boolean => isLabActionAllowed(caps, a, mode);
  const list = ['node'];
  if (live === undefined) return list.join(' ');
  const state = live.state;
  const up = state === 'running' || state === 'starting';
  if (allowed('start') && !up) list.push('start');
  if (allowed('stop') && state !== 'stopped') list.push('stop');
  if (allowed('wipe')) list.push('wipe');
  if (state === 'running') {
    if (allowed('consoleAttach')) list.push('console');
    if (allowed('consoleExec')) list.push('consoleExec');
    if (allowed('capture')) list.push('capture');
  }
  return list.join(' ');
}

export function nodeRows(
  lab: LabFileInfo,
  view: LabLiveView,
  caps: CapabilitiesData | undefined,
): TreeRow<LabRowData>[] {
  const deployed = view.status !== undefined && view.status.exists !== false;
  const liveByName = new Map<string, NodeStatus>();
  for (const n of (deployed ? view.status?.nodes : undefined) ?? []) {
    if (typeof n.name === 'string') liveByName.set(n.name, n);
  }
  const row = (name: string, declared: LabFileInfo['nodes'][number] | undefined): TreeRow<LabRowData> => {
    const live = liveByName.get(name);
    const state = live?.state ?? (deployed ? 'missing' : undefined);
    const template = live?.template ?? declared?.template;
    const stateText =
      declared === undefined
        ? `${live?.state ?? '?'} · not in the document`
        : live !== undefined
          ? (live.state ?? '')
          : deployed
            ? 'not deployed'
            : '';
    return {
      id: `${lab.uri}#node:${name}`,
      label: name,
      description: [stateText, template].filter(Boolean).join(' · '),
      tooltip: [
        `Node ${name}`,
        template ? `Template: ${template}` : undefined,
        (live?.image ?? declared?.image) ? `Image: ${live?.image ?? declared?.image}` : undefined,
        live?.state ? `State: ${live.state}` : undefined,
      ]
        .filter(Boolean)
        .join('\n'),
      ...nodeIcon(state),
      contextValue: nodeTokens(caps, lab.mode, live),
      collapsible: 'none',
      data: { uri: lab.uri, node: name },
    };
  };
  const rows = lab.nodes.map((declared) => row(declared.name, declared));
  const declaredNames = new Set(lab.nodes.map((n) => n.name));
  for (const name of liveByName.keys()) {
    if (!declaredNames.has(name)) rows.push(row(name, undefined));
  }
  return rows;
}

export function labRow(lab: LabFileInfo, view: LabLiveView, caps: CapabilitiesData | undefined): TreeRow<LabRowData> {
  const deployed = view.status !== undefined && view.status.exists !== false && view.status.state !== 'absent';
  // Starting a lab whose nodes all run (or stopping one whose nodes all stopped) would do nothing.
  const pointless = new Set<LabAction>(
    view.status?.state === 'running' ? ['start'] : view.status?.state === 'stopped' ? ['stop'] : [],
  );
  const actions = deployed
    ? [...LAB_ROW_ACTIONS, ...DEPLOYED_LAB_ACTIONS.filter((a) => !pointless.has(a))]
    : LAB_ROW_ACTIONS;
  const children = nodeRows(lab, view, caps);
  const tooltip = [
    `${lab.name} — ${lab.relativePath}`,
    lab.mode === 'imported' ? 'Imported from an existing emulator lab' : undefined,
    view.status?.lab ? `Emulator lab: ${view.status.lab}` : undefined,
    view.error,
  ];
  return {
    id: `${lab.uri}#lab`,
    label: lab.name,
    // The path only helps when the name does not already say which file it is.
    description: [labDescription(view), isPlainFileOf(lab) ? undefined : lab.relativePath].filter(Boolean).join(' — '),
    tooltip: tooltip.filter(Boolean).join('\n'),
    ...labIcon(view),
    contextValue: tokens('lab', caps, lab.mode, actions),
    collapsible: children.length === 0 ? 'none' : 'collapsed',
    children,
    data: { uri: lab.uri },
  };
}

function isPlainFileOf(lab: LabFileInfo): boolean {
  return lab.relativePath === `${lab.name}.lab.yaml` || lab.relativePath === `${lab.name}.lab.yml`;
}

/** Whether some node is between states, so the view should look again shortly. */
export function isSettling(view: LabLiveView): boolean {
  return (view.status?.nodes ?? []).some((n) => TRANSITIONAL.has(String(n.state)));
}

/** Each node's state by name, when the live lab was read; undefined otherwise. */
export function nodeStatesOf(live: LabLiveView): Record<string, string> | undefined {
  const nodes = live.status?.nodes;
  if (live.error !== undefined || !Array.isArray(nodes)) return undefined;
  const states: Record<string, string> = {};
  for (const node of nodes)
    if (typeof node.name === 'string' && typeof node.state === 'string') states[node.name] = node.state;
  return states;
}
