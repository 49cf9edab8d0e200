/**
 * Every command goes through here: a failure becomes a message the user can
 * act on (with the log one click away), an expired session becomes a login
 * prompt, a cancellation stays silent. Nothing escapes to crash the host.
 */
import * as vscode from 'vscode';
import { logFailure } from '../log';
import { describeError } from '../model/errors';
import type { Services } from '../services';

export type CommandHandler = (...args: unknown[]) => unknown;

export async function reportFailure(services: Services, what: string, err: unknown): Promise<void> {
  const described = describeError(err);
  logFailure(services.log, what, err);
  if (described.kind === 'cancelled') return;
  if (described.kind === 'session') {
    await services.agents.sessionLost(err);
    return;
  }
  const choice = await vscode.window.showErrorMessage(`${what}: ${described.message}`, 'Show Log');
  if (choice === 'Show Log') services.log.show();
}

/** Registers a command whose failures are reported, never thrown. Resolves to the handler's result, or undefined. */
export function registerGuarded(
  services: Services,
  id: string,
  title: string,
  handler: CommandHandler,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await services.agents.duringUserCommand(() => Promise.resolve(handler(...args)));
    } catch (err) {
      // Reporting waits on the user; the command itself is done.
      void reportFailure(services, title, err);
      return undefined;
    }
  });
}
