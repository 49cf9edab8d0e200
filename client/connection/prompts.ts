/**
 * What the session asks the user: the log-in fields (prefilled with what is
 * known) and, when a session ends, the one password prompt that renews it.
 * The certificate prompts are in trust.ts. Each returns undefined when the
 * user closes it.
 */
import * as vscode from 'vscode';
import { parseAgentUrlInput } from '../model/agent-url';

export async function askUrl(current: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Lab Agent: Log In (1/3)',
    prompt: 'The URL of the Lab Agent (HTTPS)',
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const parsed = parseAgentUrlInput(v);
      return 'problem' in parsed ? parsed.problem : undefined;
    },
  });
}

export async function askUsername(current: string, baseUrl: string): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: 'Lab Agent: Log In (2/3)',
    prompt: `User name on the agent at ${baseUrl}`,
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter a user name.' : undefined),
  });
  return value?.trim();
}

export function askPassword(username: string, baseUrl: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Lab Agent: Log In (3/3)',
    prompt: `Password of ${username} at ${baseUrl}`,
    password: true,
    ignoreFocusOut: true,
  });
}

/** The session ended on the agent's side: only the password is missing. */
export function askPasswordAgain(username: string, baseUrl: string, why: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Lab Agent: log in again',
    prompt: `${why} Enter the password of ${username} at ${baseUrl} to continue.`,
    password: true,
    ignoreFocusOut: true,
  });
}

/** Says, without interrupting, that the session ended; resolves to whether the user wants to enter the password. */
export async function offerPasswordPrompt(message: string): Promise<boolean> {
  const action = 'Enter Password';
  return (await vscode.window.showWarningMessage(message, action)) === action;
}
