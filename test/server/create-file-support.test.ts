/**
 * The quick fix that creates a missing startup config is offered only to a client that applies
 * file creations (LSP's `workspace.workspaceEdit.resourceOperations`): elsewhere the edit would
 * fail when chosen, so the fix is left out and the diagnostic keeps its other fixes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeAction, Diagnostic, WorkspaceEditClientCapabilities } from 'vscode-languageserver-protocol';
import { LspClient } from '../support/lsp';
import { fileUri, startAgentSession, type AgentFixture } from './fixture';

const LAB = `name: create
nodes:
  core1:
    template: vios
    config: configs/core1.cfg
`;

let fixture: AgentFixture;
before(async () => {
  fixture = await startAgentSession();
});
after(() => fixture.close());

/** The fixes a client with these workspace-edit capabilities is offered for the missing config. */
async function configFixes(workspaceEdit: WorkspaceEditClientCapabilities) {
  const client = await LspClient.start({
    initializationOptions: { session: fixture.session },
    capabilities: { workspace: { workspaceEdit }, textDocument: { codeLens: {} } },
  });
  try {
    const uri = fileUri(fixture.labDir, 'create.lab.yaml');
    await client.open(uri, LAB);
    const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'config-not-found'));
    const diagnostic = diagnostics.find((d) => d.code === 'config-not-found') as Diagnostic;
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic.range,
      context: { diagnostics: [diagnostic] },
    });
    return actions.map((a) => a.title);
  } finally {
    await client.stop();
  }
}

test('a client that creates files is offered the create-config fix', async () => {
  assert.deepEqual(await configFixes({ documentChanges: true, resourceOperations: ['create'] }), [
    'Create configs/core1.cfg with a minimal config for core1',
  ]);
});

test('a client that cannot create files is not', async () => {
  assert.deepEqual(await configFixes({ documentChanges: true }), []);
  assert.deepEqual(await configFixes({ resourceOperations: ['create'] }), []);
});
