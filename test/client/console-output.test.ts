import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsoleOutput, disconnectedBanner } from '../../client/model/console-output';

test('CRLF passes through; a bare LF becomes CRLF', () => {
  const out = new ConsoleOutput();
  assert.equal(out.write('Router>\r\nshow\r\n'), 'Router>\r\nshow\r\n');
  assert.equal(out.write('line1\nline2\n'), 'line1\r\nline2\r\n');
});

test('a CR at the end of one chunk pairs with an LF at the start of the next', () => {
  const out = new ConsoleOutput();
  assert.equal(out.write('abc\r'), 'abc\r');
  assert.equal(out.write('\ndef'), '\ndef');
  assert.equal(out.write('\n'), '\r\n');
});

test('escape sequences, lone CRs and non-ASCII text pass through untouched', () => {
  const out = new ConsoleOutput();
  const text = '\x1b]0;campus/r1\x07\x1b[1;32mOK\x1b[0m\rprogress 50%\rprogress 100% Zürich ✓';
  assert.equal(out.write(text), text);
});

test('the disconnect banner tells why and how to go on', () => {
  const banner = disconnectedBanner('console connection failed: ECONNRESET');
  assert.match(banner, /closed: console connection failed: ECONNRESET\./);
  assert.match(banner, /Press R to reconnect/);
  assert.match(disconnectedBanner(undefined), /connection closed\./);
});

test('any split of a stream gives the same screen: every bare LF, and only those, gains a CR', () => {
  const stream = 'a\nb\r\nc\r\rd\n\n\r\n\re\u00fc\n😀\r';
  const expected = 'a\r\nb\r\nc\r\rd\r\n\r\n\r\n\re\u00fc\r\n😀\r';
  for (let cut1 = 0; cut1 <= stream.length; cut1++) {
    for (let cut2 = cut1; cut2 <= stream.length; cut2++) {
      const out = new ConsoleOutput();
      const screen = [stream.slice(0, cut1), stream.slice(cut1, cut2), stream.slice(cut2)].map((c) => out.write(c));
      assert.equal(screen.join(''), expected, `cuts at ${cut1}, ${cut2}`);
    }
  }
});
