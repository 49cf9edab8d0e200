/**
 * A lab file deleted from disk loses its Problems even while VS Code keeps its document open
 * (it may, long after the editor closed); its Problems come back when the file is back or the
 * text changes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FileChangeType } from 'vscode-languageserver-protocol';
import { LspClient } from '../support/lsp';

let client: LspClient;
before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
});
after(() => client.stop());

const watched = (uri: string, type: FileChangeType) =>
  client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri, type }] });

test('deleting an open lab file clears its Problems; re-creating it or editing it shows them again', async () => {
  const uri = 'file:///deleted/gone.lab.yaml';
  // A link to a node the lab does not have: one local finding.
  await client.open(uri, 'name: gone\nnodes:\n  r1: {}\nlinks:\n  - endpoints: [r1:eth0, r9:eth0]\n');
  await client.waitForDiagnostics(uri, (d) => d.length > 0);

  let count = client.publicationCount(uri);
  await watched(uri, FileChangeType.Deleted);
  await client.waitForDiagnostics(uri, (d) => d.length === 0, { after: count });

  count = client.publicationCount(uri);
  await watched(uri, FileChangeType.Created);
  await client.waitForDiagnostics(uri, (d) => d.length > 0, { after: count });

  await watched(uri, FileChangeType.Deleted);
  count = client.publicationCount(uri);
  await client.change(uri, [{ text: 'name: gone\nnodes:\n  r1: {}\nlinks:\n  - endpoints: [r1:eth0, r8:eth0]\n' }]);
  await client.waitForDiagnostics(uri, (d) => d.length > 0, { after: count });
  await client.close(uri);
});

test('a deleted file the server has not opened changes nothing', async () => {
  const uri = 'file:///deleted/never-opened.lab.yaml';
  await watched(uri, FileChangeType.Deleted);
  // The server is still answering, and published nothing for it.
  await client.request('textDocument/documentSymbol', { textDocument: { uri } });
  assert.equal(client.publicationCount(uri), 0);
});
