/**
 * LSP cancellation as the end of a wait on shared work (catalogue answers),
 * which goes on for the other requests waiting on it.
 */
import type { CancellationToken } from 'vscode-languageserver/node';

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
