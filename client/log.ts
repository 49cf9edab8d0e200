/**
 * The "Lab Agent" log. What goes in: operations, outcomes, machine codes,
 * agent messages. What never goes in: passwords, tokens, command arguments of
 * login (callers pass only what is safe to print).
 */
import * as vscode from 'vscode';
import { describeError } from './model/errors';

export type Log = vscode.LogOutputChannel;

export function createLog(): Log {
  return vscode.window.createOutputChannel('Lab Agent', { log: true });
}

/** Logs a failure with its machine code and the operation that failed. */
export function logFailure(log: Log, what: string, err: unknown): void {
  const described = describeError(err);
  if (described.kind === 'cancelled') {
    log.info(`${what}: cancelled`);
    return;
  }
  const op = (err as { operationId?: unknown } | null)?.operationId;
  const detail = err instanceof Error && err.message !== described.message ? ` (${err.message})` : '';
  log.error(
    `${what} failed${typeof op === 'string' ? ` in ${op}` : ''}${described.code ? ` [${described.code}]` : ''}: ${described.message}${detail}`,
  );
}
