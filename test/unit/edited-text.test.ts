/**
 * A lab text kept in parts (EditedText) against the same edits made to a
 * plain string: after each of many random edits (near each other, far apart,
 * enough places to make it whole again), the text and every read the
 * incremental reparse makes of it (slice, charCodeAt, indexOf, lastIndexOf)
 * agree with the string's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EditedText } from '../../common/lab/model/edited-text';
import { seededPick } from '../support/random';

const PIECES = ['a', 'b', ' ', ':', '\n', '- ', 'key: value\n', '\n\n', '  '];

function fuzz(seed: number, edits: number): { made: number; whole: number } {
  const pick = seededPick(seed);
  let expected = Array.from({ length: 40 }, (_, i) => `  key${i}: value\n`).join('');
  let text = EditedText.of(expected);
  let at = 0;
  let whole = 0;
  for (let i = 0; i < edits; i++) {
    // Mostly near the last edit, now and then anywhere (a new stretch), now and then a read of the whole text.
    at = pick(4) === 0 ? pick(expected.length + 1) : Math.max(0, Math.min(expected.length, at + pick(9) - 4));
    const end = Math.min(expected.length, at + (pick(3) === 0 ? pick(12) : 0));
    const inserted = Array.from({ length: pick(3) }, () => PIECES[pick(PIECES.length)]).join('');
    text = text.edited(at, end, inserted);
    expected = expected.slice(0, at) + inserted + expected.slice(end);
    at += inserted.length;
    const what = `seed ${seed}, edit ${i}`;
    assert.equal(text.length, expected.length, `${what}: length`);
    for (let k = 0; k < 8; k++) {
      const a = pick(expected.length + 2) - 1;
      const b = a + pick(30);
      assert.equal(text.slice(a, b), expected.slice(a, b), `${what}: slice(${a}, ${b})`);
      assert.equal(text.charCodeAt(a), expected.charCodeAt(a), `${what}: charCodeAt(${a})`);
      for (const search of ['\n', 'key', ': v']) {
        assert.equal(text.indexOf(search, a), expected.indexOf(search, a), `${what}: indexOf(${search}, ${a})`);
        assert.equal(
          text.lastIndexOf(search, a),
          expected.lastIndexOf(search, a),
          `${what}: lastIndexOf(${search}, ${a})`,
        );
      }
    }
    if (pick(50) === 0) {
      assert.equal(text.toString(), expected, `${what}: the whole text`);
      whole++;
    }
  }
  assert.equal(text.toString(), expected, `seed ${seed}: the whole text at the end`);
  return { made: edits, whole };
}

test('a text kept in parts reads as the string it stands for, after each of many random edits', () => {
  let whole = 0;
  for (let seed = 1; seed <= 20; seed++) whole += fuzz(seed, 300).whole;
  // Reads of the whole text in the middle make the next edits start from it: that path is taken too.
  assert.ok(whole >= 60, `the whole text was read ${whole} times in the middle of the edits`);
});

test('edits in more places than it keeps apart make the text whole again, and it still reads right', () => {
  let expected = 'x\n'.repeat(200);
  let text = EditedText.of(expected);
  // Every fourth line edited: 50 places, more than the 32 stretches kept apart.
  for (let line = 49; line >= 0; line--) {
    const at = line * 8;
    text = text.edited(at, at + 1, 'yy');
    expected = expected.slice(0, at) + 'yy' + expected.slice(at + 1);
  }
  assert.equal(text.slice(0, 20), expected.slice(0, 20));
  assert.equal(text.lastIndexOf('yy', expected.length), expected.lastIndexOf('yy', expected.length));
  assert.equal(text.toString(), expected);
});
