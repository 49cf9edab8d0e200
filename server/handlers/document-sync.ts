/** didOpen, didChange and didClose: the models follow the editor's text; a lab file deleted from disk loses its Problems. */
import { FileChangeType, type Connection } from 'vscode-languageserver/node';
import type { LabLanguageServices } from '../language-services';
import type { MessageQueue } from '../message-queue';
import type { Guard } from './guard';
import { releaseMemoryAfterClose } from '../release-memory';

export function registerDocumentSync(
  connection: Connection,
  queue: MessageQueue,
  { documents, diagnostics, codeLens, configs, agents }: LabLanguageServices,
  guard: Guard,
): void {
  const applyEdits = (): void => void guard.run('applying edits', undefined, () => documents.applyPending());

  connection.onDidOpenTextDocument(
    (params) => void guard.run('didOpen', undefined, () => diagnostics.documentChanged(documents.open(params))),
  );
  connection.onDidChangeTextDocument(
    (params) =>
      void guard.run('didChange', undefined, () => {
        // The model follows once the edits already queued behind this one are in too: one reparse for a burst.
        if (documents.change(params)) queue.whenDrained(applyEdits);
        codeLens.documentChanged(params.textDocument.uri);
      }),
  );
  connection.onDidCloseTextDocument(
    (params) =>
      void guard.run('didClose', undefined, () => {
        const closedChars = documents.close(params.textDocument.uri);
        diagnostics.documentClosed(params.textDocument.uri);
        codeLens.documentClosed(params.textDocument.uri);
        configs.close(params.textDocument.uri);
        // The client names the agent again before the document opens again.
        agents.unbind(params.textDocument.uri);
        releaseMemoryAfterClose(closedChars);
      }),
  );
  // The client watches lab files (deletes and creates only): see client/language-client.ts.
  connection.onDidChangeWatchedFiles(
    ({ changes }) =>
      void guard.run('didChangeWatchedFiles', undefined, () => {
        for (const { uri, type } of changes) {
          if (type === FileChangeType.Deleted) diagnostics.fileDeleted(uri);
          else if (type === FileChangeType.Created) diagnostics.fileCreated(uri);
        }
      }),
  );
}
