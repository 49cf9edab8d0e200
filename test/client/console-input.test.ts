import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsoleInputGuard, keyWhileDisconnected } from '../../client/model/console-input';

const CTRL_A = '\x01';
const CTRL_BRACKET = '\x1d';

test('ordinary typing passes through unchanged, Enter stays CR', () => {
  const guard = new ConsoleInputGuard();
  assert.deepEqual(guard.map('show ip int brief\r'), { send: 'show ip int brief\r', notices: [] });
  assert.deepEqual(guard.map('\x03'), { send: '\x03', notices: [] }); // Ctrl-C is not guarded
  assert.deepEqual(guard.map('\x1b[A'), { send: '\x1b[A', notices: [] }); // arrow keys
});

test('a single Ctrl-A is swallowed with a hint; a second one in a row is sent', () => {
  const guard = new ConsoleInputGuard();
  const first = guard.map(CTRL_A);
  assert.equal(first.send, '');
  assert.equal(first.notices.length, 1);
  assert.match(first.notices[0], /Ctrl-A .*QEMU monitor.* again/);
  assert.ok(first.notices[0].startsWith('\r\n') && first.notices[0].endsWith('\r\n'));
  assert.deepEqual(guard.map(CTRL_A), { send: CTRL_A, notices: [] });
  // Sent once: the next press starts over.
  assert.equal(guard.map(CTRL_A).send, '');
});

test('Ctrl-] is guarded the same way', () => {
  const guard = new ConsoleInputGuard();
  const first = guard.map(CTRL_BRACKET);
  assert.equal(first.send, '');
  assert.match(first.notices[0], /Ctrl-\] .*Dynamips/);
  assert.equal(guard.map(CTRL_BRACKET).send, CTRL_BRACKET);
});

test('any other key in between disarms the guard', () => {
  const guard = new ConsoleInputGuard();
  guard.map(CTRL_A);
  assert.equal(guard.map('x').send, 'x');
  assert.equal(guard.map(CTRL_A).send, '');
  // Ctrl-] after Ctrl-A is a different key: also just armed, not sent.
  assert.equal(guard.map(CTRL_BRACKET).send, '');
  assert.equal(guard.map(CTRL_A).send, '');
});

test('a double press inside one chunk is sent, a lone one inside text is not', () => {
  const guard = new ConsoleInputGuard();
  assert.equal(guard.map(`${CTRL_A}${CTRL_A}c`).send, `${CTRL_A}c`);
  const mixed = guard.map(`ab${CTRL_BRACKET}cd`);
  assert.equal(mixed.send, 'abcd');
  assert.equal(mixed.notices.length, 1);
});

test('non-ASCII text passes through whole', () => {
  const guard = new ConsoleInputGuard();
  assert.equal(guard.map('description Zürich – 東京 🚀').send, 'description Zürich – 東京 🚀');
});

test('keys while disconnected: R reconnects, Q or Esc closes, others are ignored', () => {
  assert.equal(keyWhileDisconnected('r'), 'reconnect');
  assert.equal(keyWhileDisconnected('R'), 'reconnect');
  assert.equal(keyWhileDisconnected('q'), 'close');
  assert.equal(keyWhileDisconnected('\x1b'), 'close');
  assert.equal(keyWhileDisconnected('x'), 'ignore');
  assert.equal(keyWhileDisconnected('\r'), 'ignore');
  assert.equal(keyWhileDisconnected('rr'), 'ignore');
});
