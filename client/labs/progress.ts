/** Long agent calls run under a cancellable notification; cancelling aborts the HTTP call. */
import * as vscode from 'vscode';

export function withCancellableProgress<T>(title: string, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (_progress, token) => {
        const controller = new AbortController();
        const subscription = token.onCancellationRequested(() => controller.abort());
        return task(controller.signal).finally(() => {
          subscription.dispose();
        });
      },
    ),
  );
}
