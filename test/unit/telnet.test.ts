import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { TelnetProtocol, attachTelnet, IAC, DO, DONT, WILL, WONT, SB, SE, TelnetOption } from '../../common/telnet';

const { BINARY, ECHO, SGA, NAWS } = TelnetOption;
const TTYPE = 24;

/** A session plus every reply it wrote, one entry per reply batch. */
function newSession(): { session: TelnetProtocol; replies: number[][]; all: () => number[] } {
  const replies: number[][] = [];
  const session = new TelnetProtocol((bytes) => replies.push([...bytes]));
  return { session, replies, all: () => replies.flat() };
}

const bytes = (...parts: (number | string)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from([p]))));

/** Asserts no reply ever offers NAWS or opens a subnegotiation. */
function assertNoNawsNoSubnegotiation(sent: number[]): void {
  for (let i = 0; i < sent.length; i++) {
    if (sent[i] !== IAC) continue;
    assert.notEqual(sent[i + 1], SB, 'a subnegotiation was sent');
    if (sent[i + 1] === WILL) assert.notEqual(sent[i + 2], NAWS, 'WILL NAWS was sent');
  }
}

test('plain output passes through unchanged and causes no reply', () => {
  const { session, replies } = newSession();
  assert.equal(session.receive(bytes('Router>')), 'Router>');
  assert.deepEqual(replies, []);
});

test("the agent's greeting is answered in one batch: DO ECHO, DO SGA, DO BINARY, WILL BINARY", () => {
  const { session, replies } = newSession();
  const greeting = bytes(IAC, WILL, ECHO, IAC, WILL, SGA, IAC, WILL, BINARY, IAC, DO, BINARY, '\x1b]0;lab/r1\x07');
  assert.equal(session.receive(greeting), '\x1b]0;lab/r1\x07');
  assert.deepEqual(replies, [[IAC, DO, ECHO, IAC, DO, SGA, IAC, DO, BINARY, IAC, WILL, BINARY]]);
  assert.equal(session.serverPerforms(ECHO), true);
});

test('DO SGA is accepted with WILL SGA; DO ECHO is refused (we never echo)', () => {
  const { session, all } = newSession();
  session.receive(bytes(IAC, DO, SGA, IAC, DO, ECHO));
  assert.deepEqual(all(), [IAC, WILL, SGA, IAC, WONT, ECHO]);
});

test('each option is answered once: repeated requests get no further reply', () => {
  const { session, all } = newSession();
  const requests = bytes(IAC, WILL, ECHO, IAC, DO, BINARY, IAC, DO, NAWS, IAC, WILL, TTYPE);
  session.receive(requests);
  session.receive(requests);
  session.receive(requests);
  assert.deepEqual(all(), [IAC, DO, ECHO, IAC, WILL, BINARY, IAC, WONT, NAWS, IAC, DONT, TTYPE]);
});

test('every other option is refused: DO x → WONT x, WILL x → DONT x', () => {
  const { session, all } = newSession();
  session.receive(bytes(IAC, DO, NAWS, IAC, DO, TTYPE, IAC, DO, 39, IAC, WILL, 5, IAC, WILL, 200));
  assert.deepEqual(all(), [IAC, WONT, NAWS, IAC, WONT, TTYPE, IAC, WONT, 39, IAC, DONT, 5, IAC, DONT, 200]);
  assertNoNawsNoSubnegotiation(all());
});

test('DONT and WONT turn an agreed option off once; for an option that is off they are ignored', () => {
  const { session, all } = newSession();
  session.receive(bytes(IAC, DONT, BINARY, IAC, WONT, ECHO)); // never on: no reply
  session.receive(bytes(IAC, DO, BINARY, IAC, WILL, ECHO));
  session.receive(bytes(IAC, DONT, BINARY, IAC, WONT, ECHO, IAC, DONT, BINARY, IAC, WONT, ECHO));
  assert.deepEqual(all(), [IAC, WILL, BINARY, IAC, DO, ECHO, IAC, WONT, BINARY, IAC, DONT, ECHO]);
  assert.equal(session.serverPerforms(ECHO), false);
});

test('commands split across chunks at every position are still stripped and answered', () => {
  const stream = bytes(
    'ab',
    IAC,
    WILL,
    ECHO,
    'cd',
    IAC,
    SB,
    NAWS,
    0,
    80,
    0,
    24,
    IAC,
    SE,
    'ef',
    IAC,
    IAC,
    'gh',
    IAC,
    241,
    'ij',
  );
  for (let cut = 1; cut < stream.length; cut++) {
    const { session, all } = newSession();
    const text = session.receive(stream.subarray(0, cut)) + session.receive(stream.subarray(cut));
    assert.equal(text, 'abcdef\ufffdghij', `cut at ${cut}`);
    assert.deepEqual(all(), [IAC, DO, ECHO], `cut at ${cut}`);
  }
});

test('one byte per chunk works as well', () => {
  const { session, all } = newSession();
  const stream = bytes(IAC, WILL, SGA, 'R1#', IAC, DO, NAWS, '\r\n');
  let text = '';
  for (const byte of stream) text += session.receive(Buffer.from([byte]));
  assert.equal(text, 'R1#\r\n');
  assert.deepEqual(all(), [IAC, DO, SGA, IAC, WONT, NAWS]);
});

test('IAC IAC in output is one data byte 0xFF, not a command', () => {
  const { session, replies } = newSession();
  // 0xFF is not valid UTF-8 on its own, so it decodes to U+FFFD; what matters is that it is not eaten.
  assert.equal(session.receive(bytes('A', IAC, IAC, WILL, 'B')), 'A\ufffd\ufffdB');
  assert.deepEqual(replies, []);
});

test('subnegotiations are dropped (IAC IAC inside them included) and never answered', () => {
  const { session, all } = newSession();
  const text = session.receive(bytes(IAC, SB, TTYPE, 1, IAC, IAC, IAC, SE, 'x', IAC, SB, NAWS, 'junk', IAC, SE, 'y'));
  assert.equal(text, 'xy');
  assert.deepEqual(all(), []);
});

test('UTF-8 characters split across chunks are decoded whole', () => {
  for (const char of ['é', '€', '😀']) {
    const encoded = Buffer.from(`<${char}>`, 'utf8');
    for (let cut = 1; cut < encoded.length; cut++) {
      const { session } = newSession();
      const text = session.receive(encoded.subarray(0, cut)) + session.receive(encoded.subarray(cut));
      assert.equal(text, `<${char}>`, `${char} cut at ${cut}`);
    }
  }
});

test('a UTF-8 character interrupted by a telnet command is still decoded whole', () => {
  const { session, all } = newSession();
  const euro = Buffer.from('€', 'utf8');
  const text = session.receive(Buffer.concat([euro.subarray(0, 1), bytes(IAC, WILL, ECHO), euro.subarray(1)]));
  assert.equal(text, '€');
  assert.deepEqual(all(), [IAC, DO, ECHO]);
});

test('end() flushes an incomplete character as U+FFFD', () => {
  const { session } = newSession();
  assert.equal(session.receive(Buffer.from([0xe2, 0x82])), '');
  assert.equal(session.end(), '\ufffd');
});

test('input line breaks "\\n", "\\r\\n" and "\\r" each become a single CR', () => {
  const { session } = newSession();
  assert.deepEqual([...session.encode('show ip int br\n')], [...Buffer.from('show ip int br\r')]);
  assert.deepEqual([...session.encode('a\r\nb\rc\nd\n\n')], [...Buffer.from('a\rb\rc\rd\r\r')]);
  assert.deepEqual([...session.encode('\r')], [0x0d]);
});

test('a CR LF split over two sends is still one CR', () => {
  const { session } = newSession();
  assert.deepEqual([...session.encode('conf t\r')], [...Buffer.from('conf t\r')]);
  assert.deepEqual([...session.encode('\nend\n')], [...Buffer.from('end\r')]);
  assert.deepEqual([...session.encode('\n')], [0x0d]);
});

test('text input is sent as UTF-8', () => {
  const { session } = newSession();
  assert.deepEqual(session.encode('ü€'), Buffer.from('ü€', 'utf8'));
});

test('0xFF in raw user data is escaped as IAC IAC', () => {
  const { session } = newSession();
  assert.deepEqual(
    [...session.encode(Uint8Array.from([1, 0xff, 2, 0xff, 0xff]))],
    [1, 0xff, 0xff, 2, 0xff, 0xff, 0xff, 0xff],
  );
  assert.deepEqual([...session.encode(Uint8Array.from([0xff]))], [0xff, 0xff]);
  assert.deepEqual([...session.encode(Uint8Array.from([1, 2, 3]))], [1, 2, 3]);
});

test('a flood of negotiation requests never produces NAWS or a subnegotiation', () => {
  const { session, all } = newSession();
  for (let option = 0; option < 256; option++) {
    session.receive(bytes(IAC, DO, option, IAC, WILL, option, IAC, SB, option, 1, IAC, SE));
  }
  const sent = all();
  assertNoNawsNoSubnegotiation(sent);
  // Exactly one answer per option and direction.
  assert.equal(sent.length, 256 * 2 * 3);
});

/** A connected pair of real TCP sockets on 127.0.0.1. */
async function socketPair(): Promise<{ client: Socket; server: Socket; stop: () => void }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const port = (listener.address() as { port: number }).port;
  const accepted = once(listener, 'connection');
  const client = connect(port, '127.0.0.1');
  const [server] = (await accepted) as [Socket];
  // Destroying both ends lets the test process exit even when an assertion failed midway.
  const stop = (): void => {
    client.destroy();
    server.destroy();
    listener.close();
  };
  return { client, server, stop };
}

function collect(socket: Socket): () => number[] {
  const received: number[] = [];
  socket.on('data', (chunk: Buffer) => received.push(...chunk));
  return () => received;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

test('attachTelnet: output as text, answers written back, input as CR lines, one onClose', async (t) => {
  const { client, server, stop } = await socketPair();
  t.after(stop);
  const fromClient = collect(server);
  let text = '';
  const closes: (string | undefined)[] = [];
  const telnet = attachTelnet(client, { onText: (t) => (text += t), onClose: (reason) => closes.push(reason) });

  server.write(bytes(IAC, WILL, ECHO, IAC, DO, NAWS, 'Router', Buffer.from('€', 'utf8')[0]));
  server.write(bytes(0x82, 0xac, '>'));
  await until(() => text === 'Router€>', 'the prompt');
  await until(() => fromClient().length === 6, 'the negotiation answers');
  assert.deepEqual(fromClient(), [IAC, DO, ECHO, IAC, WONT, NAWS]);

  telnet.send('enable\n');
  await until(() => fromClient().length === 13, 'the input');
  assert.deepEqual(fromClient().slice(6), [...Buffer.from('enable\r')]);

  server.end();
  await until(() => closes.length > 0, 'onClose');
  telnet.send('ignored after close');
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(closes, [undefined]);
  assert.equal(fromClient().length, 13);
});

test('attachTelnet: close() ends the stream and reports onClose once', async (t) => {
  const { client, server, stop } = await socketPair();
  t.after(stop);
  server.on('end', () => server.end());
  const closes: (string | undefined)[] = [];
  const telnet = attachTelnet(client, { onText: () => undefined, onClose: (reason) => closes.push(reason) });
  telnet.close();
  await until(() => closes.length > 0, 'onClose');
  assert.deepEqual(closes, [undefined]);
});

test('attachTelnet: a reset connection is reported with a reason', async (t) => {
  const { client, server, stop } = await socketPair();
  t.after(stop);
  const closes: (string | undefined)[] = [];
  attachTelnet(client, { onText: () => undefined, onClose: (reason) => closes.push(reason) });
  server.resetAndDestroy();
  await until(() => closes.length > 0, 'onClose');
  assert.equal(closes.length, 1);
  assert.match(closes[0] ?? '', /ECONNRESET/);
});

test('ASCII after a character split across chunks is decoded with that character, not on its own', () => {
  const session = new TelnetProtocol(() => {});
  const euro = Buffer.from('€', 'utf8'); // three bytes
  assert.equal(session.receive(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)])), 'a');
  assert.equal(session.receive(Buffer.concat([euro.subarray(2), Buffer.from('b')])), '€b');
  // A truncated character followed by plain ASCII: the decoder reports the broken one, then the ASCII.
  assert.equal(session.receive(euro.subarray(0, 1)), '');
  assert.equal(session.receive(Buffer.from('ok')), '\ufffdok');
  assert.equal(session.receive(Buffer.from('plain')), 'plain');
});
