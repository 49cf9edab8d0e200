/**
 * Context keys for the `when` clauses of package.json: whether the active
 * agent is logged in (and its session's state), what it allows
 * (labAgent.can.<action>), and whether there are several agents, so menus, the
 * palette and the welcome views offer only what works. The active agent is
 * the active lab file's, else the default one.
 */
import * as vscode from 'vscode';
import type { Agents } from './connection/agents';
import type { LabAgents } from './labs/lab-agents';
import { capabilityContextKeys } from './model/capabilities';

export function trackContextKeys(agents: Agents, labAgents: LabAgents): vscode.Disposable {
  let last = '';
  const update = (): void => {
    const session = labAgents.activeSession();
    const info = session?.current ?? { state: 'error' as const };
    const keys: Record<string, boolean | string> = {
      'labAgent.connected': info.state === 'connected',
      // The welcome views tell an unreachable agent and an ended session from a log-out.
      'labAgent.session': info.state,
      'labAgent.multipleAgents': agents.names().length > 1,
      ...capabilityContextKeys(session?.capabilities),
    };
    const text = JSON.stringify(keys);
    if (text === last) return;
    last = text;
    for (const [key, value] of Object.entries(keys)) void vscode.commands.executeCommand('setContext', key, value);
  };
  update();
  return labAgents.onDidChangeActive(update);
}
