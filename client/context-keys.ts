/**
 * Context keys for the `when` clauses of package.json: whether we are logged
 * in (and the session's state), and what the agent allows (labAgent.can.<action>), so menus, the palette
 * and the welcome views offer only what works.
 */
import * as vscode from 'vscode';
import type { Session } from './connection/session';
import { capabilityContextKeys } from './model/capabilities';

export function trackContextKeys(session: Session): vscode.Disposable {
  let last = '';
  const update = (): void => {
    const info = session.current;
    const keys: Record<string, boolean | string> = {
      'labAgent.connected': info.state === 'connected',
      // The welcome views tell an unreachable agent and an ended session from a log-out.
      'labAgent.session': info.state,
      ...capabilityContextKeys(session.capabilities),
    };
    const text = JSON.stringify(keys);
    if (text === last) return;
    last = text;
    for (const [key, value] of Object.entries(keys)) void vscode.commands.executeCommand('setContext', key, value);
  };
  update();
  return session.onDidChange(update);
}
