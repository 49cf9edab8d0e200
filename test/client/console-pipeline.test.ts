/**
 * The byte path of a console terminal, end to end minus VS Code: socket bytes
 * → telnet layer → ConsoleOutput → terminal text, and keystrokes →
 * ConsoleInputGuard → telnet layer → socket bytes. The socket is a stand-in
 * for the network; every module on the path is the real one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { attachTelnet } from '../../common/telnet';
import { ConsoleInputGuard } from '../../client/model/console-input';
import { ConsoleOutput } from '../../client/model/console-output';

const IAC = 0xff;
const WILL = 0xfb;

function fakeSocket(): { socket: Duplex; sent: Buffer[] } {
  const sent: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      sent.push(Buffer.from(chunk));
      callback();
    },
  });
  return { socket, sent };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A console terminal on a stand-in socket: what the server pushes reaches `screen`, what `type` sends lands in `sent`. */
function terminal() {
  const { socket, sent } = fakeSocket();
  const screen: string[] = [];
  const closes: (string | undefined)[] = [];
  const output = new ConsoleOutput();
  const input = new ConsoleInputGuard();
  const telnet = attachTelnet(socket, {
    onText: (text) => screen.push(output.write(text)),
    onClose: (reason) => closes.push(reason),
  });
  const type = (data: string): string[] => {
    const mapped = input.map(data);
    screen.push(...mapped.notices);
    if (mapped.send !== '') telnet.send(mapped.send);
    return mapped.notices;
  };
  return { socket, sent, screen, closes, telnet, type };
}

test('server output reaches the screen without telnet commands, with CRLF line ends and whole characters', async () => {
  const t = terminal();
  const title = Buffer.from('\x1b]0;campus/r1\x07', 'latin1');
  const name = Buffer.from('Zürich', 'utf8');
  t.socket.push(Buffer.concat([Buffer.from([IAC, WILL, 1, IAC, WILL, 3]), title, Buffer.from('Router>\n')]));
  t.socket.push(name.subarray(0, 2)); // "Z" and the first byte of "ü"
  t.socket.push(Buffer.concat([name.subarray(2), Buffer.from('\r\n')]));
  await tick();
  const text = t.screen.join('');
  assert.equal(text, '\x1b]0;campus/r1\x07Router>\r\nZürich\r\n');
  assert.ok(!text.includes('\xff'));
});

test('keystrokes reach the socket: Enter is CR, a single Ctrl-A is held back, a double one is sent', async () => {
  const t = terminal();
  t.type('show version\r');
  await tick();
  assert.equal(Buffer.concat(t.sent).toString('latin1'), 'show version\r');
  t.sent.length = 0;

  const notices = t.type('\x01');
  await tick();
  assert.equal(t.sent.length, 0);
  assert.equal(notices.length, 1);
  assert.ok(t.screen.join('').includes('Ctrl-A'));

  t.type('\x01');
  await tick();
  assert.deepEqual([...Buffer.concat(t.sent)], [0x01]);
});

test('a pasted multi-line text goes out with CR line ends', async () => {
  const t = terminal();
  t.type('conf t\nhostname r1\r\nend\n');
  await tick();
  assert.equal(Buffer.concat(t.sent).toString('latin1'), 'conf t\rhostname r1\rend\r');
});

test('the server closing the stream is reported once', async () => {
  const t = terminal();
  t.socket.push(null);
  t.socket.destroy();
  await tick();
  await tick();
  assert.equal(t.closes.length, 1);
});
