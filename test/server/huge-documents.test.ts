/**
 * Replies stay bounded on huge documents (issue 29): the outline cuts long values and lists
 * 1,000 elements a section, code lenses stop at the same node cap, and a lab of more nodes than LabChecks once handled (130,000: the
 * spread of renamed names overflowed the stack) gets its diagnostics on open.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeLens, DocumentSymbol } from 'vscode-languageserver-protocol';
import { SessionChangedNotification } from '../../common/protocol';
import { LspClient } from '../support/lsp';

let client: LspClient;
before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
});
after(() => client.stop());

test('a description of a megabyte is cut in the outline; the outline lists 1,000 nodes and lenses stop there', async () => {
  const uri = 'file:///huge/long.lab.yaml';
  const nodes = Array.from({ length: 12_000 }, (_, i) => `  n${i}:\n    template: vios\n`).join('');
  await client.open(uri, `name: long\ndescription: ${'d'.repeat(1024 * 1024)}\nnodes:\n${nodes}`);
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  const description = symbols.find((s) => s.name === 'description');
  assert.equal(description?.detail?.length, 200);
  assert.ok(description?.detail?.endsWith('…'));
  // The first 1,000 nodes, and the section spans them all: the breadcrumbs show `nodes` past the cap.
  const nodesSymbol = symbols.find((s) => s.name === 'nodes');
  assert.equal(nodesSymbol?.children?.length, 1000);
  assert.equal(nodesSymbol?.children?.at(-1)?.name, 'n999');
  assert.equal(nodesSymbol?.detail, '12000 (the first 1000 listed)');
  assert.equal(nodesSymbol?.range.end.line, 2 + 2 * 12_000);
  // Node lenses need a session (logged out there is one Log In lens); nothing answers on port 1,
  // and the lenses are listed without asking the agent.
  await client.notify(SessionChangedNotification, { session: { baseUrl: 'https://127.0.0.1:1', token: 'unused' } });
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  // The plan (resolved later), Deploy, Reconcile and Destroy, then Start, Stop and Console for each of the first 1,000 nodes.
  assert.equal(lenses.length, 4 + 3 * 1000);
  assert.equal(lenses.at(-1)?.range.start.line, 3 + 2 * 999);
  await client.close(uri);
  await client.notify(SessionChangedNotification, { session: null });
});

test('200,000 nodes get diagnostics on open', { timeout: 600_000 }, async () => {
  const uri = 'file:///huge/many.lab.yaml';
  const nodes = Array.from({ length: 200_000 }, (_, i) => `  n${i}:\n    ram: 1\n`).join('');
  await client.open(uri, `name: many\nnodes:\n${nodes}`);
  // Each node lacks a template: the publish is capped, its last entry counting the rest.
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0, { timeoutMs: 540_000 });
  assert.equal(diagnostics.length, 1000);
  assert.equal(diagnostics.at(-1)?.code, 'more-problems');
  await client.close(uri);
});
