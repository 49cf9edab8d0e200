/**
 * Completion inside `tests:` over stdio, without an agent session: a test's
 * checks and timeout, each check's settings from the table in
 * common/lab/rules/test-checks.ts, node names for a check's node, and for a
 * ping's `to` the addresses the tests name and, after `node:`, the node's
 * linked interfaces; block and flow style, while the line does not parse yet.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompletionList } from 'vscode-languageserver-protocol';
import { CHECK_KINDS, CHECKS } from '../../common/lab/rules/test-checks';
import { LspClient } from '../support/lsp';
import { applyEdits, editOf } from './fixture';

const LAB = `name: ospf
nodes:
  h1: {template: linux, ethernet: 1}
  r1: {template: frr, ethernet: 2}
  h2: {template: linux, ethernet: 1}
links:
  - endpoints: [h1:eth0, r1:eth0]
  - endpoints: [r1:eth1, h2:eth0]
tests:
  h1 reaches h2:
    ping: {from: h1, to: h2}
    timeout: 30
  r1 routes:
    route: {node: r1, prefix: default, nexthop: 10.0.12.2}
`;

let client: LspClient;
let sequence = 0;

before(async () => {
  client = await LspClient.start({ initializationOptions: { session: null } });
});
after(() => client.stop());

/** Opens `text` with the cursor where `|` is, and completes there. */
async function completeAt(marked: string): Promise<{ list: CompletionList | null; text: string }> {
  const at = marked.indexOf('|');
  assert.ok(at >= 0, 'no | in the text');
  const text = marked.slice(0, at) + marked.slice(at + 1);
  const uri = `untitled:t${++sequence}.lab.yaml`;
  await client.open(uri, text);
  const before = text.slice(0, at);
  const position = { line: before.split('\n').length - 1, character: at - (before.lastIndexOf('\n') + 1) };
  const list = await client.request<CompletionList | null>('textDocument/completion', {
    textDocument: { uri },
    position,
  });
  return { list, text };
}

const labels = (list: CompletionList | null) => (list?.items ?? []).map((i) => i.label);

function applied(list: CompletionList | null, text: string, label: string): string {
  const item = list?.items.find((i) => i.label === label);
  assert.ok(list && item, `no item ${label} among ${labels(list).join(', ')}`);
  const edit = editOf(list, item);
  assert.ok(edit, `item ${label} has no edit`);
  return applyEdits(text, [edit]);
}

test('a new test offers every check and timeout; picking ping writes its required settings', async () => {
  const { list, text } = await completeAt(`${LAB}  new test:\n    |\n`);
  assert.deepEqual(labels(list).sort(), [...CHECK_KINDS, 'timeout'].sort());
  assert.match(applied(list, text, 'ping'), /\n {4}ping: \{from: \$\{1\}, to: \$\{2\}\}\n/);
  const ping = list?.items.find((i) => i.label === 'ping');
  assert.equal(ping?.insertTextFormat, 2, 'a snippet, so the cursor lands in from:');
  assert.equal(ping?.detail, CHECKS.ping.summary);
  assert.equal(applied(list, text, 'timeout').includes('    timeout: \n'), true);
});

test('a test that has its check and timeout offers nothing more; a half-typed key is completed in place', async () => {
  const full = await completeAt(LAB.replace('    timeout: 30\n', '    timeout: 30\n    |\n'));
  assert.deepEqual(labels(full.list), []);
  const { list, text } = await completeAt(`${LAB}  other:\n    ospf|\n`);
  assert.ok(labels(list).includes('ospf-neighbors'), labels(list).join());
  assert.match(applied(list, text, 'ospf-neighbors'), /\n {4}ospf-neighbors: \{node: \$\{1\}\}\n/);
});

test("a check's settings come from its table, required first, without those written (block style)", async () => {
  const { list, text } = await completeAt(`${LAB}  show:\n    command:\n      node: r1\n      |\n`);
  const expected = Object.keys(CHECKS.command.params).filter((k) => k !== 'node');
  assert.deepEqual(labels(list).sort(), expected.sort());
  const run = list?.items.find((i) => i.label === 'run');
  assert.match(run?.detail ?? '', /\(required\)$/);
  assert.match(applied(list, text, 'contains'), /\n {6}contains: \n/);
});

test("a check's settings in a flow map that is not closed yet", async () => {
  const { list, text } = await completeAt(`${LAB}  neighbours:\n    ospf-neighbors: {node: r1, |\n`);
  assert.deepEqual(labels(list).sort(), ['count', 'interface', 'neighbor', 'state']);
  assert.match(applied(list, text, 'count'), /ospf-neighbors: \{node: r1, count: \n/);
});

test("a check's node is one of the lab's nodes, with a space after a bare colon", async () => {
  const bare = await completeAt(`${LAB}  neighbours:\n    ospf-neighbors: {node:|\n`);
  assert.deepEqual(labels(bare.list), ['h1', 'r1', 'h2']);
  assert.match(applied(bare.list, bare.text, 'r1'), /\{node: r1\n/);
  const block = await completeAt(`${LAB}  r:\n    route:\n      node: h|\n`);
  assert.deepEqual(labels(block.list), ['h1', 'r1', 'h2']);
  assert.match(applied(block.list, block.text, 'h2'), /\n {6}node: h2\n/);
});

test("a ping's to: offers the nodes and the addresses the tests name, and after node: its linked interfaces", async () => {
  const to = await completeAt(`${LAB}  back:\n    ping: {from: h2, to: |}\n`);
  assert.deepEqual(labels(to.list), ['h1', 'r1', 'h2', '10.0.12.2']);
  assert.match(applied(to.list, to.text, 'h1'), /to: h1\}/);
  const iface = await completeAt(`${LAB}  back:\n    ping: {from: h2, to: r1:|}\n`);
  assert.deepEqual(labels(iface.list), ['eth0', 'eth1']);
  const eth1 = iface.list?.items.find((i) => i.label === 'eth1');
  assert.equal(eth1?.detail, 'r1 interface, linked to h2:eth0');
  assert.match(applied(iface.list, iface.text, 'eth1'), /to: r1:eth1\}/);
  // Replacing the node of a written target keeps its interface.
  const node = await completeAt(`${LAB}  back:\n    ping: {from: h2, to: r|1:eth1}\n`);
  assert.match(applied(node.list, node.text, 'h1'), /to: h1:eth1\}/);
});

test('nothing is offered for test names, free-text settings, or in a comment', async () => {
  assert.deepEqual(labels((await completeAt(`${LAB}  |\n`)).list), []);
  assert.deepEqual(labels((await completeAt(`${LAB}  c:\n    command: {node: r1, run: sh|}\n`)).list), []);
  assert.deepEqual(labels((await completeAt(`${LAB}  # a|\n`)).list), []);
});

test('outside tests: the format completes as before', async () => {
  const { list } = await completeAt(`${LAB}  x:\n    ping: {from: h1, to: h2}\nlinks2:\n  |`);
  // Under an unknown top-level key nothing is offered; the tests section did not claim the line.
  assert.deepEqual(labels(list), []);
  const endpoint = await completeAt(LAB.replace('[r1:eth1, h2:eth0]', '[r1:eth1, |]'));
  assert.deepEqual(labels(endpoint.list), ['h1', 'r1', 'h2']);
});
