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

/** What a password attempt came to: a result, or a refusal the box shows under itself while staying open. */
export type PasswordAttempt<T> = { done: T } | { refused: string };

/**
 * A password box that stays open until the agent accepts a password or the
 * user closes it: a wrong password is said under the box, which empties for
 * the next try, instead of throwing the whole log-in away. Other failures
 * reject and close it. Resolves to undefined when the user closes the box.
 */
export function askPasswordUntilAccepted<T>(
  title: string,
  prompt: string,
  attempt: (password: string) => Promise<PasswordAttempt<T>>,
): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const box = vscode.window.createInputBox();
    box.title = title;
    box.prompt = prompt;
    box.password = true;
    box.ignoreFocusOut = true;
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      settle();
      box.dispose();
    };
    box.onDidChangeValue(() => {
      box.validationMessage = undefined;
    });
    box.onDidAccept(async () => {
      if (box.busy) return;
      box.busy = true;
      box.enabled = false;
      try {
        const result = await attempt(box.value);
        if ('done' in result) finish(() => resolve(result.done));
        else {
          box.value = '';
          box.validationMessage = result.refused;
        }
      } catch (err) {
        finish(() => reject(err));
      } finally {
        box.busy = false;
        box.enabled = true;
      }
    });
    box.onDidHide(() => finish(() => resolve(undefined)));
    box.show();
  });
}

export function passwordPromptTexts(username: string, baseUrl: string): { title: string; prompt: string } {
  return { title: 'Lab Agent: Log In (3/3)', prompt: `Password of ${username} at ${baseUrl}` };
}

/** The session ended on the agent's side: only the password is missing. */
export function passwordAgainTexts(username: string, baseUrl: string, why: string): { title: string; prompt: string } {
  return {
    title: 'Lab Agent: log in again',
    prompt: `${why} Enter the password of ${username} at ${baseUrl} to continue.`,
  };
}

/** Says, without interrupting, that the session ended; resolves to whether the user wants to enter the password. */
export async function offerPasswordPrompt(message: string): Promise<boolean> {
  const action = 'Enter Password';
  return (await vscode.window.showWarningMessage(message, action)) === action;
}
