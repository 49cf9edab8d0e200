import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import { findNetwork, findNode, interfacesInUse, lastStartingAtOrBefore, linkAt } from '../../common/lab/model/lookup';
import { LineIndex } from '../../common/lab/model/positions';

const TEXT = `name: t
nodes:
  r1:
    template: vios
  r2:
    template: vios
networks:
  mgmt:
    type: pnet1
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]
  - endpoints: [r1:Gi0/1, mgmt]
  - endpoints: [r2:Gi0/1, r1:]
`;
const doc = parseLab(TEXT);
const offsetOf = (needle: string, from = 0) => {
  const at = TEXT.indexOf(needle, from);
  assert.ok(at >= 0, needle);
  return at;
};

test('nodes and networks are found by name', () => {
  assert.equal(findNode(doc, 'r2')?.name, 'r2');
  assert.equal(findNode(doc, 'r3'), undefined);
  assert.equal(findNetwork(doc, 'mgmt')?.type?.value, 'pnet1');
  assert.equal(findNetwork(doc, 'r1'), undefined);
});

test('the interfaces a node uses are found, each with its first use', () => {
  const used = interfacesInUse(doc, 'r1');
  assert.deepEqual([...used.keys()], ['Gi0/0', 'Gi0/1']);
  assert.equal(used.get('Gi0/1')?.link.index, 1);
  assert.equal(used.get('Gi0/1')?.endpointIndex, 0);
  assert.equal(used.get('Gi0/1')?.endpoint, used.get('Gi0/1')?.link.endpoints[0]);
  assert.equal(interfacesInUse(doc, 'mgmt').size, 0);
});

test('the link and endpoint at an offset are found, and which part of the endpoint', () => {
  const onNode = linkAt(doc, offsetOf('r2:Gi0/0') + 1);
  assert.equal(onNode?.link.index, 0);
  assert.equal(onNode?.endpointIndex, 1);
  assert.equal(onNode?.part, 'node');
  const onInterface = linkAt(doc, offsetOf('Gi0/1, mgmt') + 2);
  assert.equal(onInterface?.endpoint?.text, 'r1:Gi0/1');
  assert.equal(onInterface?.part, 'interface');
  const afterColon = linkAt(doc, offsetOf('r1:]') + 3);
  assert.equal(afterColon?.endpoint?.node, 'r1');
  assert.equal(afterColon?.endpoint?.interface, '');
  assert.equal(afterColon?.part, 'interface');
  const onNetwork = linkAt(doc, offsetOf('mgmt]') + 2);
  assert.equal(onNetwork?.endpoint?.network, 'mgmt');
  assert.equal(onNetwork?.part, undefined);
  const onKey = linkAt(doc, offsetOf('endpoints') + 2);
  assert.equal(onKey?.link.index, 0);
  assert.equal(onKey?.endpoint, undefined);
  assert.equal(linkAt(doc, offsetOf('template')), undefined);
});

test('the element a line belongs to is the last starting at or before it', () => {
  assert.equal(lastStartingAtOrBefore(doc, 'nodes', offsetOf('vios', offsetOf('r2:')))?.name, 'r2');
  assert.equal(lastStartingAtOrBefore(doc, 'nodes', offsetOf('r1:')), doc.nodes[0]);
  assert.equal(lastStartingAtOrBefore(doc, 'nodes', offsetOf('r1:') - 1), undefined);
  assert.equal(lastStartingAtOrBefore(doc, 'links', TEXT.length)?.index, 2);
});

test('after an edit, the answers carry the ranges and link indexes of the new text', () => {
  // A new link and a longer name before everything: every element moves, links are renumbered.
  let moved = updateLab(doc, { start: TEXT.indexOf('r1:\n'), end: TEXT.indexOf('r1:\n') + 2, text: 'core1' });
  const links = moved.text.indexOf('links:\n') + 'links:\n'.length;
  moved = updateLab(moved, { start: links, end: links, text: '  - endpoints: [core1:Gi0/5, r2:Gi0/5]\n' });
  const fresh = parseLab(moved.text);
  assert.deepEqual(findNode(moved, 'r2'), findNode(fresh, 'r2'));
  assert.deepEqual(findNetwork(moved, 'mgmt'), findNetwork(fresh, 'mgmt'));
  assert.deepEqual([...interfacesInUse(moved, 'r2')], [...interfacesInUse(fresh, 'r2')]);
  assert.equal(interfacesInUse(moved, 'r2').get('Gi0/1')?.link.index, 3);
  const at = moved.text.indexOf('mgmt]') + 1;
  assert.deepEqual(linkAt(moved, at), linkAt(fresh, at));
  assert.deepEqual(lastStartingAtOrBefore(moved, 'links', at), lastStartingAtOrBefore(fresh, 'links', at));
  assert.deepEqual(moved.nodes, fresh.nodes);
  assert.deepEqual(moved.links, fresh.links);
});

test('LineIndex converts offsets and LSP positions both ways', () => {
  const lines = new LineIndex(TEXT);
  const offset = offsetOf('r2:Gi0/0');
  const position = lines.positionAt(offset);
  assert.deepEqual(position, { line: 10, character: TEXT.split('\n')[10].indexOf('r2:Gi0/0') });
  assert.equal(lines.offsetAt(position), offset);
  assert.equal(lines.lineCount, TEXT.split('\n').length);
  const range = doc.nodes[1].nameRange;
  assert.deepEqual(lines.toRange(lines.toLineRange(range)), range);
});

test('LineIndex handles CRLF, lone CR, UTF-16 surrogate pairs and out-of-range input', () => {
  const text = 'a\r\nb\rc\n😀x';
  const lines = new LineIndex(text);
  assert.equal(lines.lineCount, 4);
  assert.deepEqual(lines.positionAt(text.indexOf('b')), { line: 1, character: 0 });
  assert.deepEqual(lines.positionAt(text.indexOf('c')), { line: 2, character: 0 });
  assert.deepEqual(lines.positionAt(text.indexOf('x')), { line: 3, character: 2 }, 'an emoji is two UTF-16 code units');
  assert.equal(lines.offsetAt({ line: 0, character: 99 }), 1, 'past the end of a line: its end, before the line break');
  assert.equal(lines.offsetAt({ line: 99, character: 0 }), text.length);
  assert.equal(lines.offsetAt({ line: -1, character: 0 }), 0);
  assert.deepEqual(lines.positionAt(-3), { line: 0, character: 0 });
  assert.deepEqual(lines.positionAt(1e9), lines.positionAt(text.length));
  assert.deepEqual(new LineIndex('').positionAt(0), { line: 0, character: 0 });
});
