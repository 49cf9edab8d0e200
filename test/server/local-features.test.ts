/**
 * The language server without an agent session: every local feature works
 * (completion of keys and names, diagnostics, outline, definition, rename,
 * node lenses), remote ones are skipped, and the client is told 'none'.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  CodeLens,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  Location,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { LspClient } from '../support/lsp';
import { applyEdits, byLabel, editOf, positionOf } from './fixture';

const LAB = `name: campus
description: two routers and a switch
defaults:
  cpu: 1
nodes:
  r1:
    template: vios
    image: vios-adventerprisek9-m.SPA.159-3.M6
    
  r2:
    template: vios
    console: 
  sw1:
    template: viosl2
networks:
  mgmt:
    type: bridge
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]
  - endpoints: [sw1:Gi0/1, mgmt]
  - endpoints: [r2:Gi0/1, s]
  - endpoints:
      - r1:Gi0/2
      - 
`;
const URI = 'untitled:campus.lab.yaml';

let client: LspClient;

before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
  await client.open(URI, LAB);
});
after(() => client.stop());

function at(needle: string, shift = 0, occurrence = 1) {
  return { textDocument: { uri: URI }, position: positionOf(LAB, needle, shift, occurrence) };
}

async function complete(uri: string, text: string, needle: string, shift = 0): Promise<CompletionList> {
  const list = await client.request<CompletionList | null>('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(text, needle, shift),
  });
  assert.ok(list, `a completion list at ${JSON.stringify(needle)}+${shift}`);
  return list;
}

const labels = (list: CompletionList) => list.items.map((i) => i.label);

test('the client is told there is no session', async () => {
  await client.waitUntil('a session status', () => client.statuses.length > 0 || undefined);
  assert.deepEqual(client.statuses[0], { state: 'none' });
});

test('top-level keys are offered at column 0, without those already written', async () => {
  const uri = 'untitled:top.lab.yaml';
  const text = 'name: x\nno';
  await client.open(uri, text);
  const list = await complete(uri, text, 'no', 2);
  assert.deepEqual(labels(list).sort(), ['defaults', 'description', 'links', 'networks', 'nodes', 'tests']);
  const nodes = byLabel(list.items, 'nodes');
  assert.deepEqual(editOf(list, nodes), {
    range: { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } },
    newText: 'nodes:',
  });
});

test('node fields are offered on an empty line of a node, without the ones it sets', async () => {
  const list = await complete(URI, LAB, 'SPA.159-3.M6\n', 17);
  const offered = labels(list);
  assert.ok(!offered.includes('template') && !offered.includes('image'), offered.join());
  for (const field of ['icon', 'cpu', 'ram', 'ethernet', 'console', 'config', 'position'])
    assert.ok(offered.includes(field), field);
  const icon = byLabel(list.items, 'icon');
  assert.equal(editOf(list, icon)?.newText, 'icon: ');
});

test('a half-typed node field is completed in place', async () => {
  const uri = 'untitled:partial.lab.yaml';
  const text = 'nodes:\n  r1:\n    template: vios\n    ima\n';
  await client.open(uri, text);
  const list = await complete(uri, text, 'ima', 3);
  assert.deepEqual(labels(list).includes('image'), true);
  const image = byLabel(list.items, 'image');
  assert.deepEqual(editOf(list, image), {
    range: { start: { line: 3, character: 4 }, end: { line: 3, character: 7 } },
    newText: 'image: ',
  });
});

test('console values are offered after console:', async () => {
  const list = await complete(URI, LAB, 'console: ', 9);
  assert.deepEqual(labels(list), ['telnet', 'vnc', 'rdp']);
});

test('values are completed in flow style too, replacing the value written', async () => {
  const uri = 'untitled:flow.lab.yaml';
  const text = 'nodes:\n  r1: {template: vios, console: te}\n';
  await client.open(uri, text);
  const list = await complete(uri, text, 'console: te', 10);
  assert.deepEqual(labels(list), ['telnet', 'vnc', 'rdp']);
  assert.deepEqual(editOf(list, list.items[0]), {
    range: { start: positionOf(text, 'te}'), end: positionOf(text, 'te}', 2) },
    newText: 'telnet',
  });
});

test('nothing is offered in a comment after a value', async () => {
  const uri = 'untitled:comment.lab.yaml';
  const text = 'nodes:\n  r1:\n    console: telnet # the default \n';
  await client.open(uri, text);
  const list = await client.request<CompletionList | null>('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(text, 'default', 7),
  });
  assert.equal(list, null);
  assert.deepEqual(labels(await complete(uri, text, 'telnet', 3)), ['telnet', 'vnc', 'rdp']);
});

test('endpoint names: nodes, then networks, replacing what is typed', async () => {
  const list = await complete(URI, LAB, 'r2:Gi0/1, s', 11);
  assert.deepEqual(labels(list), ['r1', 'r2', 'sw1', 'mgmt']);
  const sw1 = byLabel(list.items, 'sw1');
  assert.deepEqual(editOf(list, sw1), {
    range: { start: positionOf(LAB, 'r2:Gi0/1, s', 10), end: positionOf(LAB, 'r2:Gi0/1, s', 11) },
    newText: 'sw1',
  });
  const mgmt = list.items.find((i) => i.label === 'mgmt');
  assert.ok(mgmt && (mgmt.sortText ?? mgmt.label) > (sw1.sortText ?? sw1.label), 'networks sort after nodes');
});

test('on the node part of an endpoint only node names are offered, replacing just that part', async () => {
  const list = await complete(URI, LAB, 'sw1:Gi0/1', 1);
  assert.deepEqual(labels(list), ['r1', 'r2', 'sw1']);
  assert.deepEqual(editOf(list, list.items[0])?.range, {
    start: positionOf(LAB, 'sw1:Gi0/1'),
    end: positionOf(LAB, 'sw1:Gi0/1', 3),
  });
});

test('endpoint names in a block list of endpoints', async () => {
  const list = await complete(URI, LAB, '      - \n', 8);
  assert.deepEqual(labels(list), ['r1', 'r2', 'sw1', 'mgmt']);
});

test('completion is triggered by the characters that start a slot: a value, an endpoint list, the next endpoint', () => {
  const provider = client.initializeResult?.capabilities.completionProvider;
  assert.deepEqual(provider?.triggerCharacters, [':', ' ', '[', ',']);
});

test('endpoint names inside an unfinished flow or block list of endpoints (no closing bracket yet)', async () => {
  const base =
    'name: typing\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nnetworks:\n  lan:\n    type: bridge\nlinks:\n';
  const cases: [string, string, number][] = [
    [`${base}  - endpoints: [r1:Gi0/3, `, 'Gi0/3, ', 7],
    [`${base}  - endpoints: [r1:Gi0/3, r`, 'Gi0/3, r', 8],
    [`${base}  - endpoints: [`, 'endpoints: [', 12],
    [`${base}  - endpoints: [r1:Gi0/3, \n  - endpoints: [r2:Gi0/0, lan]\n`, 'Gi0/3, ', 7],
    [`${base}  - endpoints:\n      - r1:Gi0/3\n      - `, 'Gi0/3\n      - ', 14],
  ];
  for (const [index, [text, needle, shift]] of cases.entries()) {
    const uri = `untitled:unfinished-${index}.lab.yaml`;
    await client.open(uri, text);
    const list = await complete(uri, text, needle, shift);
    assert.deepEqual(labels(list), ['r1', 'r2', 'lan'], `case ${index}: ${JSON.stringify(text.slice(base.length))}`);
  }
});

test('remote completions are skipped without a session', async () => {
  const templates = await complete(URI, LAB, 'template: vios', 12);
  assert.deepEqual(templates.items, []);
  const interfaces = await complete(URI, LAB, 'r1:Gi0/0', 5);
  assert.deepEqual(interfaces.items, []);
});

test('the outline lists nodes, networks and links', async () => {
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: URI } });
  assert.deepEqual(
    symbols.map((s) => s.name),
    ['name', 'description', 'nodes', 'networks', 'links'],
  );
  const nodes = symbols.find((s) => s.name === 'nodes');
  assert.deepEqual(
    nodes?.children?.map((c) => c.name),
    ['r1', 'r2', 'sw1'],
  );
  assert.equal(nodes?.children?.[0].detail, 'vios');
  assert.deepEqual(nodes?.children?.[0].selectionRange, {
    start: positionOf(LAB, 'r1:'),
    end: positionOf(LAB, 'r1:', 2),
  });
  const links = symbols.find((s) => s.name === 'links');
  assert.equal(links?.children?.length, 4);
  assert.equal(links?.children?.[0].name, 'r1:Gi0/0 — r2:Gi0/0');
});

test('go to definition leads from an endpoint to its node or network', async () => {
  const toNode = await client.request<Location>('textDocument/definition', at('r2:Gi0/0', 5));
  assert.deepEqual(toNode.range, { start: positionOf(LAB, 'r2:\n'), end: positionOf(LAB, 'r2:\n', 2) });
  const toNetwork = await client.request<Location>('textDocument/definition', at('mgmt]', 1));
  assert.deepEqual(toNetwork.range, { start: positionOf(LAB, 'mgmt:'), end: positionOf(LAB, 'mgmt:', 4) });
});

test('rename of a node changes its key and every endpoint naming it', async () => {
  const prepared = await client.request<{ range: unknown; placeholder: string }>(
    'textDocument/prepareRename',
    at('r1:Gi0/2', 1),
  );
  assert.equal(prepared.placeholder, 'r1');
  const edit = await client.request<WorkspaceEdit>('textDocument/rename', { ...at('r1:Gi0/2', 1), newName: 'core1' });
  const renamed = applyEdits(LAB, edit.changes?.[URI] ?? []);
  assert.equal(
    renamed,
    LAB.replace('  r1:\n', '  core1:\n').replace('[r1:Gi0/0', '[core1:Gi0/0').replace('- r1:Gi0/2', '- core1:Gi0/2'),
  );
});

test('rename refuses names that cannot name a node, with a clear message', async () => {
  await assert.rejects(
    client.request('textDocument/rename', { ...at('  r2:\n', 2), newName: 'bad name' }),
    (error: Error) => /letters, digits, _ and -/.test(error.message),
  );
  await assert.rejects(client.request('textDocument/rename', { ...at('  r2:\n', 2), newName: 'sw1' }), (error: Error) =>
    /already exists/.test(error.message),
  );
});

test('lenses without a session: one Log In lens, no lab or node actions left over', async () => {
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: URI } });
  assert.deepEqual(
    lenses.map((l) => [l.range.start.line, l.command?.title, l.command?.command]),
    [[0, 'Log In to plan and deploy', 'labAgent.login']],
  );
});

test('syntax errors are published at once, from the local checks', async () => {
  const uri = 'untitled:broken.lab.yaml';
  await client.open(uri, 'name: x\nnodes: [\n');
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0);
  assert.ok(diagnostics.every((d: Diagnostic) => d.source === 'lab-yaml'));
});

test('incremental edits keep the model exact: the outline equals a fresh parse of the result', async () => {
  const uri = 'untitled:typed.lab.yaml';
  let text = 'name: typed\nnodes:\n  r1:\n    template: vios\nlinks:\n  - endpoints: [r1:Gi0/0, r1:Gi0/1]\n';
  await client.open(uri, text);
  // Type a second node character by character, then delete part of a line and replace a range spanning lines.
  const insertAt = positionOf(text, 'links:');
  const typed = '  r2:\n    template: iol\n';
  let position = insertAt;
  for (const ch of typed) {
    await client.change(uri, [{ range: { start: position, end: position }, text: ch }]);
    text = applyEdits(text, [{ range: { start: position, end: position }, newText: ch }]);
    position =
      ch === '\n'
        ? { line: position.line + 1, character: 0 }
        : { line: position.line, character: position.character + 1 };
  }
  const span = { start: positionOf(text, 'r1:Gi0/1'), end: positionOf(text, 'r1:Gi0/1', 8) };
  await client.change(uri, [{ range: span, text: 'r2:e0/0' }]);
  text = applyEdits(text, [{ range: span, newText: 'r2:e0/0' }]);
  const multi = { start: positionOf(text, 'name: typed'), end: positionOf(text, '  r1:') };
  await client.change(uri, [{ range: multi, text: 'name: retyped\nnodes:\n' }]);
  text = applyEdits(text, [{ range: multi, newText: 'name: retyped\nnodes:\n' }]);

  await client.open('untitled:fresh.lab.yaml', text);
  const incremental = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  const fresh = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri: 'untitled:fresh.lab.yaml' },
  });
  assert.deepEqual(incremental, fresh);
  assert.deepEqual(
    incremental.find((s) => s.name === 'nodes')?.children?.map((c) => c.name),
    ['r1', 'r2'],
  );
});

test('keys of defaults, networks and links are offered where they belong', async () => {
  const uri = 'untitled:keys.lab.yaml';
  const text =
    'defaults:\n  cp\nnodes:\n  r1:\n    template: vios\nnetworks:\n  lan:\n    ty\nlinks:\n  - endpoints: [r1:Gi0/0, lan]\n  - \n';
  await client.open(uri, text);
  assert.ok(labels(await complete(uri, text, '  cp', 4)).includes('cpu'));
  assert.deepEqual(labels(await complete(uri, text, '    ty', 6)), ['type']);
  assert.deepEqual(labels(await complete(uri, text, '  - \n', 4)), ['endpoints']);
  assert.equal(
    await client.request('textDocument/completion', { textDocument: { uri }, position: positionOf(text, '  r1:', 2) }),
    null,
    'nothing to offer for a new node name',
  );
});

test('local findings are located exactly and follow each edit at once', async () => {
  const uri = 'untitled:local-checks.lab.yaml';
  const text = 'name: checks\nnodes:\n  r1:\n    template: vios\nlinks:\n  - endpoints: [r1:Gi0/0, r9:Gi0/0]\n';
  await client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'unknown-node'));
  const unknown = diagnostics.find((d) => d.code === 'unknown-node');
  assert.equal(unknown?.source, 'lab-yaml');
  assert.deepEqual(unknown?.range, { start: positionOf(text, 'r9:'), end: positionOf(text, 'r9:', 2) });
  // Defining r9 clears it in the very next publication: no agent round trip is involved.
  const count = client.publicationCount(uri);
  const at = positionOf(text, 'links:');
  const version = await client.change(uri, [{ range: { start: at, end: at }, text: '  r9:\n    template: iol\n' }]);
  const after = await client.waitForDiagnostics(uri, () => true, { after: count });
  assert.deepEqual(after, []);
  assert.equal(client.diagnostics.get(uri)?.[count].version, version);
});
