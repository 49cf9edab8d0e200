/**
 * The line-exact edits both the agent's from_emu pulls and the topology view
 * make: whole lines in, whole lines out, the document's line breaks kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, indentAt, insertLinesAfter, removeLines } from '../../common/lab/model/line-edits';

const after = (text: string, edit: Parameters<typeof applyEdits>[1][number]) => applyEdits(text, [edit]);

test('lines go in after the line holding the offset, ended as that line is', () => {
  const lf = 'a:\n  b: 1\nc: 2\n';
  assert.equal(after(lf, insertLinesAfter(lf, lf.indexOf('1'), ['  x: 3'])), 'a:\n  b: 1\n  x: 3\nc: 2\n');
  const crlf = 'a:\r\n  b: 1\r\nc: 2\r\n';
  assert.equal(
    after(crlf, insertLinesAfter(crlf, crlf.indexOf('1'), ['  x: 3', '  y: 4'])),
    'a:\r\n  b: 1\r\n  x: 3\r\n  y: 4\r\nc: 2\r\n',
  );
  // An offset on the line break itself (where a block value ends) still means that line.
  assert.equal(after(lf, insertLinesAfter(lf, lf.indexOf('\nc'), ['  x: 3'])), 'a:\n  b: 1\n  x: 3\nc: 2\n');
});

test('after a last line without a line break, one goes before the new lines and none after', () => {
  const text = 'a: 1';
  assert.equal(after(text, insertLinesAfter(text, 2, ['b: 2'])), 'a: 1\nb: 2');
});

test('removing takes whole lines with their line break; at the end of the text, the break before', () => {
  const text = 'links:\n  - a\n  - b: 1\n    c: 2\n  - d\n';
  const b = text.indexOf('- b');
  assert.equal(after(text, removeLines(text, b, text.indexOf('2') + 1)), 'links:\n  - a\n  - d\n');
  const last = 'x:\r\n  - a\r\n  - b';
  assert.equal(after(last, removeLines(last, last.indexOf('- b'), last.length)), 'x:\r\n  - a');
  assert.equal(after('only', removeLines('only', 0, 4)), '');
});

test('indentation counts spaces and a dash, nothing else', () => {
  assert.equal(indentAt('a:\n  - b: 1\n', 7), '    ');
  assert.equal(indentAt('a: b', 3), undefined);
});

test('overlapping edits give no text', () => {
  assert.equal(
    applyEdits('abcdef', [
      { start: 1, end: 3, text: 'x' },
      { start: 2, end: 4, text: 'y' },
    ]),
    undefined,
  );
  assert.equal(
    applyEdits('abcdef', [
      { start: 4, end: 5, text: 'Y' },
      { start: 1, end: 2, text: 'X' },
    ]),
    'aXcdYf',
  );
});
