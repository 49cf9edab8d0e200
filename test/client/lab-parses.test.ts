/**
 * The extension host's lab parses: a text already parsed is not parsed again
 * (the views load every lab at each refresh), a changed text is, and only the
 * most recently used labs are kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabParses } from '../../client/labs/lab-parses';

const lab = (name: string) => `name: ${name}\nnodes:\n  r1:\n    template: vios\n`;

test('the same text at the same URI gives the model parsed before', () => {
  const parses = new LabParses();
  const first = parses.parse('file:///a.lab.yaml', lab('a'));
  assert.equal(first.name?.value, 'a');
  // An equal text that is another string object, as each read of the editor's text gives.
  assert.equal(parses.parse('file:///a.lab.yaml', lab('a').slice(0)), first);
});

test('a changed text is parsed again, and another URI has its own model', () => {
  const parses = new LabParses();
  const first = parses.parse('file:///a.lab.yaml', lab('a'));
  const changed = parses.parse('file:///a.lab.yaml', lab('b'));
  assert.notEqual(changed, first);
  assert.equal(changed.name?.value, 'b');
  assert.notEqual(parses.parse('file:///other.lab.yaml', lab('b')), changed);
});

test('only the most recently used labs are kept', () => {
  const parses = new LabParses();
  const kept = parses.parse('file:///0.lab.yaml', lab('x'));
  const dropped = parses.parse('file:///1.lab.yaml', lab('x'));
  for (let i = 2; i < 40; i++) {
    parses.parse(`file:///${i}.lab.yaml`, lab('x'));
    // Used at each refresh, so kept while the others come and go.
    assert.equal(parses.parse('file:///0.lab.yaml', lab('x')), kept);
  }
  assert.notEqual(parses.parse('file:///1.lab.yaml', lab('x')), dropped);
});
