/**
 * What changed in a lab while the agent was away: the nodes that ran when the
 * extension last looked and do not now. Said once, when the session works
 * again after the agent was unreachable (decisions §10).
 */

/** The names of the nodes that node states (name → state, as the agent reported them) show running. */
export function runningNodes(states: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(states ?? {})
    .filter(([, state]) => state === 'running')
    .map(([name]) => name);
}

/** Nodes that ran before and do not run now, in their earlier order. */
export function stoppedWhileAway(
  before: readonly string[],
  now: Readonly<Record<string, string>> | undefined,
): string[] {
  const running = new Set(runningNodes(now));
  return before.filter((name) => !running.has(name));
}

/** "ospf: 6 nodes stopped while the agent was away", naming them when there are few. */
export function awayMessage(lab: string, stopped: readonly string[]): string {
  const count = `${stopped.length} node${stopped.length === 1 ? '' : 's'}`;
  const names = stopped.length <= 4 ? ` (${stopped.join(', ')})` : '';
  return `${lab}: ${count}${names} stopped while the agent was away.`;
}
