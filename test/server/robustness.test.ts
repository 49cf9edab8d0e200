/**
 * No input takes the server down: binary-ish, huge, deeply nested and odd
 * YAML, random edits (also outside the text), requests at impossible
 * positions or for unknown documents, malformed custom messages. Every
 * feature is asked at many positions, with an agent session so the remote
 * paths see the garbage too; afterwards the server must still answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentSymbol } from 'vscode-languageserver-protocol';
import {
  LabStateChangedNotification,
  RefreshCatalogueRequest,
  SessionChangedNotification,
} from '../../common/protocol';
import { type LspClient, messageOf } from '../support/lsp';
import { seededRandom } from '../support/random';
import { applyEdits, fileUri, type AgentFixture, startServerOnAgent, stopServerOnAgent } from './fixture';

let fixture: AgentFixture;
let client: LspClient;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
});
after(() => stopServerOnAgent({ fixture, client }));

const random = seededRandom;

const GARBAGE: Record<string, string> = {
  binary: Array.from({ length: 4000 }, (_, i) => String.fromCharCode((i * 7919) % 65536)).join(''),
  nul: 'name: x\u0000\nnodes:\n  r1:\u0000\n    template: \ud800vios\n',
  deepFlow: '['.repeat(5000) + ']'.repeat(5000),
  deepBlock: Array.from({ length: 400 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n') + ' v\n',
  deepNodes:
    'nodes:\n  r1:\n' + Array.from({ length: 300 }, (_, i) => `${' '.repeat(4 + i * 2)}template:`).join('\n') + ' x\n',
  aliases:
    'defaults: &d\n  template: vios\nnodes:\n  r1: *d\n  r2:\n    <<: *d\n    image: *d\nlinks:\n  - endpoints: [*d, r1:Gi0/0]\n',
  tagsAndDocs:
    '%YAML 1.2\n---\nname: !!binary aGVsbG8=\nnodes: !custom\n  r1: {template: [vios]}\n---\nname: second\n...\n',
  wrongTypes: 'name: [1, 2]\nnodes: 5\nnetworks: [a, b]\nlinks: {a: b}\ndefaults: text\n',
  oddLinks:
    'nodes:\n  r1: {}\nlinks:\n  - endpoints: [":", "r1:", ":x", r1:Gi0/0:extra, {a: b}, [x], null, 12]\n  - 7\n  - endpoints:\n  -\n',
  crlf: 'name: crlf\r\nnodes:\r\n  r1:\r\n    template: vios\r\nlinks:\r\n  - endpoints: [r1:Gi0/0, r1:Gi0/1]\r\n',
  huge: 'name: huge\ndescription: ' + 'x'.repeat(9 * 1024 * 1024) + '\n',
  emptyish: '\n\n   \n#only a comment\n',
  tabs: 'nodes:\n\tr1:\n\t\ttemplate: vios\n',
};

const FEATURES = [
  'textDocument/completion',
  'textDocument/hover',
  'textDocument/definition',
  'textDocument/prepareRename',
] as const;

async function exercise(uri: string, text: string, rng: () => number): Promise<void> {
  const lines = text.split('\n');
  const positions = [
    { line: 0, character: 0 },
    { line: 99_999, character: 5 },
    { line: 0, character: 99_999 },
    { line: -1, character: -1 },
  ];
  for (let i = 0; i < 12; i++) {
    const line = Math.floor(rng() * lines.length);
    positions.push({ line, character: Math.floor(rng() * (Math.min(lines[line].length, 200) + 2)) });
  }
  const requests: Promise<unknown>[] = [];
  for (const position of positions) {
    for (const method of FEATURES)
      requests.push(client.request(method, { textDocument: { uri }, position }).catch(asLspError));
    requests.push(
      client.request('textDocument/rename', { textDocument: { uri }, position, newName: 'n1' }).catch(asLspError),
    );
  }
  requests.push(client.request('textDocument/documentSymbol', { textDocument: { uri } }));
  const lenses = await client.request<{ data?: unknown; command?: unknown; range: unknown }[]>(
    'textDocument/codeLens',
    { textDocument: { uri } },
  );
  for (const lens of lenses.filter((l) => !l.command)) requests.push(client.request('codeLens/resolve', lens));
  await Promise.all(requests);
}

/** Rename may refuse with a ResponseError; anything else is a failure. */
function asLspError(error: { code?: number; message: string }): unknown {
  assert.ok(typeof error.code === 'number' && error.code !== -32603, `internal error: ${error.message}`);
  return error;
}

for (const [name, text] of Object.entries(GARBAGE)) {
  test(`garbage input (${name}) is answered, not crashed on`, async () => {
    const uri = fileUri(fixture.labDir, `${name}.lab.yaml`);
    await client.open(uri, text);
    await client.waitForDiagnostics(uri, () => true);
    await exercise(uri, text, random(name.length));
    assert.equal(client.exitCode, null);
  });
}

test('the huge file gets one clear diagnostic instead of being parsed', async () => {
  const uri = fileUri(fixture.labDir, 'huge.lab.yaml');
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.length > 0);
  assert.ok(
    diagnostics.some((d) => /MB/.test(messageOf(d))),
    JSON.stringify(diagnostics.map((d) => d.message)),
  );
});

test('random edits, also past the end of the text, never break the model', async () => {
  const rng = random(42);
  const uri = fileUri(fixture.labDir, 'random-edits.lab.yaml');
  let text =
    'name: edits\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: iol\nnetworks:\n  lan: {type: bridge}\nlinks:\n  - endpoints: [r1:Gi0/0, r2:e0/0]\n  - endpoints: [r1:Gi0/1, lan]\n';
  await client.open(uri, text);
  const alphabet = [
    '\n',
    ' ',
    '  ',
    ':',
    '-',
    '[',
    ']',
    ',',
    'r',
    '1',
    'Gi0/',
    'nodes:',
    'links:\n  - endpoints: [',
    '"',
    "'",
    '#',
    '{',
    '}',
    '&a',
    '*a',
    '\t',
    '\r\n',
  ];
  for (let i = 0; i < 300; i++) {
    const lines = text.split('\n');
    const line = Math.floor(rng() * lines.length);
    const character = Math.floor(rng() * (lines[line].length + 1));
    const start = { line, character };
    const endLine = Math.min(lines.length - 1, line + (rng() < 0.2 ? 1 : 0));
    const end =
      endLine === line
        ? { line, character: Math.min(lines[line].length, character + Math.floor(rng() * 4)) }
        : { line: endLine, character: 0 };
    const insert = rng() < 0.3 ? '' : alphabet[Math.floor(rng() * alphabet.length)];
    await client.change(uri, [{ range: { start, end }, text: insert }]);
    text = applyEdits(text, [{ range: { start, end }, newText: insert }]);
    if (i % 50 === 0)
      await client.change(uri, [
        { range: { start: { line: 9999, character: 0 }, end: { line: 9999, character: 3 } }, text: '' },
      ]);
  }
  await client.open(fileUri(fixture.labDir, 'random-fresh.lab.yaml'), text);
  const incremental = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  const fresh = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri: fileUri(fixture.labDir, 'random-fresh.lab.yaml') },
  });
  assert.deepEqual(incremental, fresh);
  await exercise(uri, text, rng);
});

test('requests for unknown documents and malformed messages are answered', async () => {
  const unknown = { textDocument: { uri: 'file:///nowhere.lab.yaml' }, position: { line: 0, character: 0 } };
  assert.equal(await client.request('textDocument/completion', unknown), null);
  assert.equal(await client.request('textDocument/hover', unknown), null);
  assert.deepEqual(
    await client.request('textDocument/codeLens', { textDocument: { uri: 'file:///nowhere.lab.yaml' } }),
    [],
  );
  await client.notify('textDocument/didChange', {
    textDocument: { uri: 'file:///nowhere.lab.yaml', version: 3 },
    contentChanges: [{ text: 'x' }],
  });
  await client.notify('textDocument/didChange', { textDocument: { uri: 'file:///nowhere.lab.yaml', version: 3 } });
  await client.notify(LabStateChangedNotification.method, {});
  await client.notify(LabStateChangedNotification.method, null);
  await client.notify(SessionChangedNotification.method, 'nonsense');
  await client.request('textDocument/completion', { textDocument: {} }).catch(() => undefined);
  await client.request('codeLens/resolve', {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    data: 17,
  });
  await client.request(RefreshCatalogueRequest.method, null);
  assert.equal(await client.request('textDocument/definition', unknown), null);
  assert.equal(client.exitCode, null);
});

test('no handler failed along the way (every failure would be logged)', () => {
  const failures = client.logs.filter((line) => / failed: /.test(line) && !line.startsWith('agent call failed'));
  assert.deepEqual(failures, []);
});
