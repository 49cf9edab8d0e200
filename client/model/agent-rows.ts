/**
 * The sidebar views with several agents: each agent's rows under a row of
 * its own that says its state, so a team sees which labs, consoles, templates
 * and network types are whose. With the default agent alone, the rows stay
 * as they were, ungrouped.
 */
import type { ConnectionState } from '../connection/session-machine';
import type { TreeRow } from './tree-row';

export interface AgentGroup<T> {
  agent: string;
  /** The agent's session state; undefined for an agent that is not configured. */
  state: ConnectionState | undefined;
  baseUrl?: string;
  username?: string;
  problem?: string;
  rows: TreeRow<T>[];
}

const STATE_TEXT: Record<ConnectionState, string> = {
  loggedOut: 'logged out',
  connecting: 'connecting…',
  connected: 'connected',
  expired: 'session expired',
  unreachable: 'unreachable',
  error: 'not connected',
};

const STATE_ICON: Record<ConnectionState, string> = {
  loggedOut: 'debug-disconnect',
  connecting: 'sync',
  connected: 'vm-connect',
  expired: 'warning',
  unreachable: 'debug-disconnect',
  error: 'error',
};

function host(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/** Rows with their ids (and their children's) made unique per agent. */
export function underAgent<T>(rows: TreeRow<T>[], agent: string): TreeRow<T>[] {
  return rows.map((row) => ({
    ...row,
    id: `agent:${agent}/${row.id}`,
    ...(row.children === undefined ? {} : { children: underAgent(row.children, agent) }),
  }));
}

/** The context value of an agent's own row (menus match it, and the live views load its rows on expansion). */
export const AGENT_ROW = 'agent';

/** An agent as its own row shows it. */
export type AgentHead = Omit<AgentGroup<unknown>, 'rows'>;

/** The rows stay flat (ungrouped) for the default agent alone. */
export function isFlat(heads: readonly AgentHead[]): boolean {
  const only = heads[0];
  return heads.length === 1 && only !== undefined && only.agent === 'default' && only.state !== undefined;
}

/**
 * An agent's own row, expanded, saying its state. Its rows come under it: given here, or (none
 * given) asked for by VS Code when the row is expanded, so a collapsed agent is never asked for them.
 * `data` is what the row carries (the views' rows need one).
 */
export function agentRow<T>(head: AgentHead, data: T, rows?: TreeRow<T>[]): TreeRow<T> {
  const state = head.state === undefined ? 'not configured' : STATE_TEXT[head.state];
  const where = host(head.baseUrl);
  const who = head.username && where ? `${head.username}@${where}` : where;
  return {
    id: `agent:${head.agent}`,
    label: head.agent,
    description: who ? `${who} · ${state}` : state,
    tooltip: [`Agent "${head.agent}": ${state}`, head.baseUrl, head.problem].filter(Boolean).join('\n'),
    icon: head.state === undefined ? 'error' : STATE_ICON[head.state],
    ...(head.state === 'connected' ? {} : { iconColor: 'list.warningForeground' }),
    contextValue: AGENT_ROW,
    collapsible: 'expanded',
    ...(rows === undefined ? {} : { children: underAgent(rows, head.agent) }),
    data,
  };
}

/** The agent an agent's own row stands for (undefined: another row). */
export function agentOfRow(row: TreeRow<unknown>): string | undefined {
  return row.contextValue === AGENT_ROW ? row.label : undefined;
}

/**
 * The rows of every agent: flat for the default agent alone, else one
 * expanded row per agent (empty agents included, so a logged-out one is seen).
 */
export function groupByAgent<T>(groups: AgentGroup<T>[], data: (agent: string) => T): TreeRow<T>[] {
  const only = groups[0];
  if (isFlat(groups) && only !== undefined) return only.rows;
  return groups.map((g) => agentRow(g, data(g.agent), g.rows));
}
