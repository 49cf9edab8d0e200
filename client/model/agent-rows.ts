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
function underAgent<T>(rows: TreeRow<T>[], agent: string): TreeRow<T>[] {
  return rows.map((row) => ({
    ...row,
    id: `agent:${agent}/${row.id}`,
    ...(row.children === undefined ? {} : { children: underAgent(row.children, agent) }),
  }));
}

/**
 * The rows of every agent: flat for the default agent alone, else one
 * expanded row per agent (empty agents included, so a logged-out one is seen).
 * `data` is what an agent row carries (the views' rows need one).
 */
/** The context value of an agent's own row (menus and the views' collapse tracking match it). */
export const AGENT_ROW = 'agent';

export function groupByAgent<T>(groups: AgentGroup<T>[], data: (agent: string) => T): TreeRow<T>[] {
  const only = groups[0];
  if (groups.length === 1 && only !== undefined && only.agent === 'default' && only.state !== undefined)
    return only.rows;
  return groups.map((g) => {
    const state = g.state === undefined ? 'not configured' : STATE_TEXT[g.state];
    const where = host(g.baseUrl);
    const who = g.username && where ? `${g.username}@${where}` : where;
    return {
      id: `agent:${g.agent}`,
      label: g.agent,
      description: who ? `${who} · ${state}` : state,
      tooltip: [`Agent "${g.agent}": ${state}`, g.baseUrl, g.problem].filter(Boolean).join('\n'),
      icon: g.state === undefined ? 'error' : STATE_ICON[g.state],
      ...(g.state === 'connected' ? {} : { iconColor: 'list.warningForeground' }),
      contextValue: AGENT_ROW,
      collapsible: 'expanded',
      children: underAgent(g.rows, g.agent),
      data: data(g.agent),
    };
  });
}
