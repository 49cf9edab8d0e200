/** Which agent a command is for: named by its argument, the only one, or picked by the user. */
import * as vscode from 'vscode';
import { fieldOf, stringArg } from '../model/command-args';
import type { Agents } from './agents';
import type { Session } from './session';

/** The agent named in `arg`, the only one, or the one the user picks; undefined when cancelled. */
export async function pickAgent(
  agents: Agents,
  arg: unknown,
  title: string,
  sessions: Session[] = agents.all(),
): Promise<Session | undefined> {
  const named = stringArg(fieldOf(arg, 'agent'));
  if (named !== undefined) {
    const session = agents.get(named);
    if (session === undefined) throw new Error(`No agent named "${named}" (setting labAgent.agents).`);
    return session;
  }
  if (sessions.length <= 1) return sessions[0];
  const picked = await vscode.window.showQuickPick(
    sessions.map((s) => ({
      label: s.name,
      description: s.current.baseUrl,
      detail: s.current.username ? `${s.current.state} as ${s.current.username}` : s.current.state,
      session: s,
    })),
    { title, placeHolder: 'Which agent?' },
  );
  return picked?.session;
}
