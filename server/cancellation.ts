/**
 * LSP cancellation: as an AbortSignal, so a cancelled request also cancels the
 * agent call it is waiting for, or as the end of a wait on shared work.
 */
import type { CancellationToken } from 'vscode-languageserver/node';

export function abortSignalOf(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

/**
 * The promise's value, or undefined as soon as the request is cancelled. For
 * work shared with other requests, which must go on for them.
 */
export function untilCancelled<T>(promise: Promise<T>, token: CancellationToken): Promise<T | undefined> {
  if (token.isCancellationRequested) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const listener = token.onCancellationRequested(() => resolve(undefined));
    promise.then(resolve, reject).finally(() => listener.dispose());
  });
}
