/**
 * The server's text buffer against vscode-languageserver-textdocument, the
 * reference for how an editor's positions map to offsets: random edits
 * (line breaks of all three kinds, \r\n pairs split and joined at edit edges,
 * positions past a line's end or the last line, reversed ranges, edits far
 * apart), with and without a commit between them, give the same text, line
 * count, offsets and positions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Position } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { TextBuffer } from '../../server/text-buffer';
import { seededPick } from '../support/random';

const PIECES = ['a', 'b', ' ', ':', '\n', '\r', '\r\n', 'key: value', '\n\n', '\r\r'];

function fuzz(seed: number, edits: number, commitEvery: number): void {
  const pick = seededPick(seed);
  const words = (): string => Array.from({ length: pick(4) }, () => PIECES[pick(PIECES.length)]).join('');
  const start = Array.from({ length: 30 }, (_, i) => `line${i}${['\n', '\r\n', '\r'][i % 3]}`).join('');
  const reference = TextDocument.create('x:', 'lab-yaml', 1, start);
  const buffer = new TextBuffer(start, 1);
  const position = (): Position => {
    const line = pick(reference.lineCount + 2) - 1;
    return { line, character: pick(12) - (pick(10) === 0 ? 1 : 0) };
  };
  for (let i = 0; i < edits; i++) {
    const text = words();
    // Mostly near the last edit or anywhere, now and then the whole text.
    const change = pick(50) === 0 ? { text } : { range: { start: position(), end: position() }, text };
    TextDocument.update(reference, [change], i + 2);
    buffer.update(change, i + 2);
    const context = `seed ${seed}, edit ${i}: ${JSON.stringify(change)} on ${JSON.stringify(reference.getText())}`;
    assert.equal(buffer.version, reference.version);
    assert.equal(buffer.length, reference.getText().length, context);
    assert.equal(buffer.lineCount, reference.lineCount, context);
    for (let probe = 0; probe < 6; probe++) {
      const at = position();
      assert.equal(buffer.offsetAt(at), reference.offsetAt(at), `${context}: offsetAt ${JSON.stringify(at)}`);
      const offset = pick(reference.getText().length + 3) - 1;
      assert.deepEqual(buffer.positionAt(offset), reference.positionAt(offset), `${context}: positionAt ${offset}`);
    }
    if (i % commitEvery === 0) {
      // Every other commit takes the text from outside, as the language server does with its model's.
      if ((i / commitEvery) % 2 === 0) assert.equal(buffer.commit(), reference.getText(), context);
      else {
        const other = reference.getText();
        if (other.length > 0) {
          const wrong = other.slice(0, -1) + (other.endsWith('x') ? 'y' : 'x');
          assert.equal(buffer.commitAs(wrong), false, `${context}: a different text`);
          assert.equal(buffer.getText(), other, `${context}: unchanged after a refused commitAs`);
        }
        assert.equal(buffer.commitAs(other), true, context);
      }
      assert.equal(buffer.stretches.length, 0);
    } else {
      assert.equal(buffer.getText(), reference.getText(), context);
    }
  }
}

test('random edits with a commit after each one match TextDocument', () => fuzz(1, 1500, 1));

test('random edits kept as stretches over the base (a commit now and then) match TextDocument', () => {
  for (const seed of [2, 3, 4, 5]) fuzz(seed, 1500, 40);
});

test('edits far apart stay separate stretches; edits next to one merge into it', () => {
  const text = 'a\n'.repeat(1000);
  const buffer = new TextBuffer(text, 1);
  const at = (line: number, character: number) => ({
    range: { start: { line, character }, end: { line, character } },
  });
  buffer.update({ ...at(10, 1), text: 'x' }, 2);
  buffer.update({ ...at(10, 2), text: 'y' }, 3);
  buffer.update({ ...at(900, 0), text: 'z' }, 4);
  assert.deepEqual(
    buffer.stretches.map((s) => [s.start, s.end, s.text]),
    [
      // The \n after the edit is taken in: no \r\n pair may span a stretch's edge.
      [21, 22, 'xy\n'],
      [1800, 1800, 'z'],
    ],
  );
  assert.equal(buffer.commit(), `${'a\n'.repeat(10)}axy\n${'a\n'.repeat(889)}za\n${'a\n'.repeat(99)}`);
});
