/**
 * Log In, Log Out, Add Agent, Remove Agent and Show Log. Add and Remove edit
 * labAgent.agents (name, URL, user; never a password); Log In and Log Out ask
 * which agent when there is more than one. Log In takes an optional
 * `{ agent, url, username, password, pin }` that skips the prompts
 * (automation, end-to-end tests); it is never logged.
 */
import * as vscode from 'vscode';
import { pickAgent } from '../connection/pick-agent';
import { readAgentsSetting, writeAgentsSetting } from '../connection/settings';
import { askUrl } from '../connection/prompts';
import { DEFAULT_AGENT, agentNameProblem, withAgentAdded, withAgentRemoved } from '../model/agent-list';
import { parseAgentUrlInput } from '../model/agent-url';
import { fieldOf, loginArgsOf, stringArg } from '../model/command-args';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

async function addAgent(services: Services, arg: unknown): Promise<void> {
  const taken = services.agents.names();
  const name =
    stringArg(fieldOf(arg, 'name')) ??
    (
      await vscode.window.showInputBox({
        title: 'Lab Agent: Add Agent (1/2)',
        prompt: 'A name for the agent, as the views and the status bar show it (e.g. "eve-ng lab", "workstation")',
        ignoreFocusOut: true,
        validateInput: (v) => agentNameProblem(v.trim(), taken),
      })
    )?.trim();
  if (name === undefined) return;
  const problem = agentNameProblem(name, taken);
  if (problem !== undefined) throw new Error(problem);
  const url = stringArg(fieldOf(arg, 'url')) ?? (await askUrl(''));
  if (url === undefined) return;
  const parsed = parseAgentUrlInput(url);
  if ('problem' in parsed) throw new Error(parsed.problem);
  const username = stringArg(fieldOf(arg, 'username'));
  await writeAgentsSetting(
    withAgentAdded(readAgentsSetting(), { name, url: parsed.url, ...(username === undefined ? {} : { username }) }),
  );
  services.agents.reload();
  const session = services.agents.get(name);
  if (session === undefined) throw new Error(`The agent "${name}" could not be added: see the log.`);
  services.log.info(`Added agent "${name}" at ${parsed.url}`);
  if (fieldOf(arg, 'login') !== false) await session.login(loginArgsOf(arg));
}

async function removeAgent(services: Services, arg: unknown): Promise<void> {
  const removable = services.agents.all().filter((s) => s.name !== DEFAULT_AGENT);
  if (removable.length === 0) {
    void vscode.window.showInformationMessage(
      'Lab Agent: there is no agent to remove besides the default one (settings labAgent.agentUrl and labAgent.username).',
    );
    return;
  }
  const session = await pickAgent(services.agents, arg, 'Lab Agent: Remove Agent', removable);
  if (session === undefined) return;
  if (session.name === DEFAULT_AGENT)
    throw new Error('The default agent is the one of setting labAgent.agentUrl: it stays.');
  // The agent's token is not left behind in the secret storage.
  await session.logout();
  await writeAgentsSetting(withAgentRemoved(readAgentsSetting(), session.name));
  services.agents.reload();
  services.log.info(`Removed agent "${session.name}"`);
}

export function registerConnectionCommands(services: Services): vscode.Disposable[] {
  return [
    registerGuarded(services, LabCommand.login, 'Log in', async (arg) => {
      const session = await pickAgent(services.agents, arg, 'Lab Agent: Log In');
      return session?.login(loginArgsOf(arg)) ?? false;
    }),
    registerGuarded(services, LabCommand.logout, 'Log out', async (arg) => {
      const loggedIn = services.agents.all().filter((s) => s.current.state !== 'loggedOut');
      const session = await pickAgent(
        services.agents,
        arg,
        'Lab Agent: Log Out',
        loggedIn.length > 0 ? loggedIn : undefined,
      );
      await session?.logout();
    }),
    registerGuarded(services, LabCommand.addAgent, 'Add agent', (arg) => addAgent(services, arg)),
    registerGuarded(services, LabCommand.removeAgent, 'Remove agent', (arg) => removeAgent(services, arg)),
    registerGuarded(services, LabCommand.showLog, 'Show log', () => services.log.show()),
  ];
}
