import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_TEXT_MAX_CHARS, agentCode, boundedText } from '../../common/api/agent-text';

test('short text passes unchanged, tabs and newlines included', () => {
  assert.equal(boundedText('Lab busy:\n\tretry later'), 'Lab busy:\n\tretry later');
});

test('long text is cut to the limit with an ellipsis, never mid surrogate pair', () => {
  const cut = boundedText('x'.repeat(100_000));
  assert.equal(cut.length, AGENT_TEXT_MAX_CHARS);
  assert.ok(cut.endsWith('…'));
  const emoji = boundedText('😀'.repeat(50), 10);
  assert.ok(!/[\ud800-\udbff]…$/.test(emoji), JSON.stringify(emoji));
  assert.ok(emoji.length <= 10);
});

test('control and bidi-override characters become spaces', () => {
  assert.equal(boundedText('a\u0000b\u0007c\u001bd\u202ee\u2066f\u009bg'), 'a b c d e f g');
});

test('a code is a short identifier, or nothing', () => {
  assert.equal(agentCode('lab_busy'), 'lab_busy');
  assert.equal(agentCode('tls_pin_mismatch'), 'tls_pin_mismatch');
  for (const bad of ['', 'has space', 'x'.repeat(65), '1abc', 'a\nb', 5, null, undefined, {}]) {
    assert.equal(agentCode(bad), undefined, JSON.stringify(bad));
  }
});
