/**
 * What changed in a lab while the agent was away: the nodes that ran when the
 * extension last looked and do not now. Said once, when the session works
 * again after the agent was unreachable (decisions §10).
 */
import type { ProjectStatusData } from '../../common/api/contract';

/** The names of the nodes a status shows running. */
export function runningNodes(status: ProjectStatusData | undefined): string[] {
  return (status?.nodes ?? []).filter((n) => n.state === 'running' && n.name).map((n) => n.name as string);
}

/** Nodes that ran before and do not run now, in their earlier order. */
export function stoppedWhileAway(before: readonly string[], now: ProjectStatusData | undefined): string[] {
  const running = new Set(runningNodes(now));
  return before.filter((name) => !running.has(name));
}

/** "ospf: 6 nodes stopped while the agent was away", naming them when there are few. */
export function awayMessage(lab: string, stopped: readonly string[]): string {
  const count = `${stopped.length} node${stopped.length === 1 ? '' : 's'}`;
  const names = stopped.length <= 4 ? ` (${stopped.join(', ')})` : '';
  return `${lab}: ${count}${names} stopped while the agent was away.`;
}
