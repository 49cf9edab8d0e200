/**
 * Replies stay bounded on huge documents (issue 29): the outline cuts long values and lists
 * 100 elements a section then at most 50 groups (of 100 or more), node lenses stop at 1,000 (333 nodes of unknown state) and go out unresolved, and a lab of more nodes than LabChecks once handled (130,000: the
 * spread of renamed names overflowed the stack) gets its diagnostics on open.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeLens, DocumentSymbol } from 'vscode-languageserver-protocol';
import { SessionChangedNotification } from '../../common/protocol';
import { LspClient, messageOf } from '../support/lsp';

let client: LspClient;
before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
});
after(() => client.stop());

test('a description of a megabyte is cut in the outline; the outline lists 100 nodes then 50 groups at most; node lenses stop at 1,000', async () => {
  const uri = 'file:///huge/long.lab.yaml';
  const nodes = Array.from({ length: 12_000 }, (_, i) => `  n${i}:\n    template: vios\n`).join('');
  await client.open(uri, `name: long\ndescription: ${'d'.repeat(1024 * 1024)}\nnodes:\n${nodes}`);
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  const description = symbols.find((s) => s.name === 'description');
  assert.equal(description?.detail?.length, 80);
  assert.ok(description?.detail?.endsWith('…'));
  // The first 100 nodes one by one, then groups spanning them: 119 runs of 100, three runs a group
  // (the last holds two), so that there are no more than 50. The breadcrumbs place any cursor.
  const nodesSymbol = symbols.find((s) => s.name === 'nodes');
  assert.equal(nodesSymbol?.children?.length, 100 + 40);
  assert.equal(nodesSymbol?.children?.[99]?.name, 'n99');
  const group = nodesSymbol?.children?.[100];
  assert.equal(group?.name, 'n100 … n399');
  assert.equal(group?.detail, '300');
  assert.deepEqual([group?.range.start.line, group?.range.end.line], [3 + 2 * 100, 2 + 2 * 400]);
  assert.equal(nodesSymbol?.children?.at(-1)?.name, 'n11800 … n11999');
  assert.equal(nodesSymbol?.children?.at(-1)?.detail, '200');
  assert.equal(nodesSymbol?.detail, '12000');
  assert.equal(nodesSymbol?.range.end.line, 2 + 2 * 12_000);
  // The whole reply stays small: 140 node symbols.
  assert.ok(JSON.stringify(symbols).length < 40_000, `${JSON.stringify(symbols).length} bytes`);
  // Node lenses need a session (logged out there is one Log In lens); nothing answers on port 1,
  // and the lenses are listed without asking the agent.
  await client.notify(SessionChangedNotification, { session: { baseUrl: 'https://127.0.0.1:1', token: 'unused' } });
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  // The plan (resolved later), Deploy, Reconcile and Destroy, then Start, Stop and Console (the state is not known)
  // for each of the first 333 nodes: 999 node lenses, the next node's three would pass 1,000.
  assert.equal(lenses.length, 4 + 3 * 333);
  assert.equal(lenses.at(-1)?.range.start.line, 3 + 2 * 332);
  assert.ok(JSON.stringify(lenses).length < 110_000, `${JSON.stringify(lenses).length} bytes`);
  // Node lenses are sent unresolved, a few bytes of data each; resolved, one says what it does to which node.
  assert.ok(
    lenses.slice(4).every((l) => l.command === undefined),
    'node lenses unresolved',
  );
  const last = await client.request<CodeLens>('codeLens/resolve', lenses.at(-1));
  assert.equal(last.command?.title, 'Console');
  assert.deepEqual(last.command?.arguments, [{ uri, node: 'n332' }]);
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

test(
  'a 7.9 MB flow map on one line gets a clear "not read" diagnostic, and small replies',
  { timeout: 120_000 },
  async () => {
    const uri = 'file:///huge/flow.lab.yaml';
    const entries: string[] = [];
    for (let i = 0, length = 0; length < 7.9e6; i++) {
      entries.push(`n${i}: {template: frr, ethernet: 2}`);
      length += entries[i].length + 2;
    }
    await client.open(uri, `name: flow\nnodes: {${entries.join(', ')}}\n`);
    const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0, { timeoutMs: 60_000 });
    const tooLarge = diagnostics.find((d) => /flow collection/.test(messageOf(d)));
    assert.match(
      tooLarge ? messageOf(tooLarge) : JSON.stringify(diagnostics),
      /flow collection .* on one line; .* are not read: write it in block style/,
    );
    assert.equal(tooLarge?.range.start.line, 1);
    await client.notify(SessionChangedNotification, { session: { baseUrl: 'https://127.0.0.1:1', token: 'unused' } });
    for (const method of ['textDocument/documentSymbol', 'textDocument/codeLens']) {
      const reply = await client.request<unknown>(method, { textDocument: { uri } });
      assert.ok(JSON.stringify(reply).length < 10_000, `${method}: ${JSON.stringify(reply).length} bytes`);
    }
    await client.close(uri);
    await client.notify(SessionChangedNotification, { session: null });
  },
);
