/**
 * LSP cancellation as an AbortSignal, so a cancelled request also cancels the
 * agent call it is waiting for.
 */
import type { CancellationToken } from 'vscode-languageserver/node';

export function abortSignalOf(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}
