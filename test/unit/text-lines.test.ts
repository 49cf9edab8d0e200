import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineEnd, lineStartOf } from '../../common/text-lines';
import { indentAt, removeLines } from '../../common/lab/model/line-edits';
import { sameValue } from '../../common/same-value';

test('lineStartOf: offset 0 is line 0 even when the text starts with a line break', () => {
  // lastIndexOf('\n', -1) still finds the break at 0, which put line 0 at 1 in one of the former copies.
  assert.equal(lineStartOf('\nname: x\n', 0), 0);
  assert.equal(lineStartOf('\nname: x\n', 1), 1);
  assert.equal(lineStartOf('\nname: x\n', 5), 1);
  assert.equal(lineStartOf('a\nb', 2), 2);
  assert.equal(lineStartOf('', 0), 0);
  // What used it unguarded: the first, empty line of a text is removed, and has no indent.
  assert.deepEqual(removeLines('\nname: x\n', 0, 0), { start: 0, end: 1, text: '' });
  assert.equal(indentAt('\n  x', 0), '');
});

test('lineEnd: the end of the line holding an offset, before a CRLF, or the end of the text', () => {
  assert.equal(lineEnd('a: 1\r\nb: 2', 0), 4);
  assert.equal(lineEnd('a: 1\nb: 2', 2), 4);
  assert.equal(lineEnd('a: 1\nb: 2', 5), 9);
  assert.equal(lineEnd('\r\n', 0), 0);
  assert.equal(lineEnd('a\n', 1), 1);
});

test('sameValue: JSON values equal in content, whatever their key order', () => {
  assert.ok(sameValue({ x: 1, y: 2 }, { y: 2, x: 1 }));
  assert.ok(sameValue([{ a: [1, 'b'] }], [{ a: [1, 'b'] }]));
  assert.ok(!sameValue({ x: 1, y: 2 }, { x: 1, y: 3 }));
  assert.ok(!sameValue({ x: 1 }, { x: 1, y: undefined }));
  assert.ok(!sameValue([1], { 0: 1 }));
  assert.ok(!sameValue(null, {}));
});
