/**
 * Every step of a connection has a time limit (decisions §11), so a caller that goes quiet or
 * trickles cannot hold a connection for good. The limits are made short here; each test checks
 * that the agent closes the connection, with a guard far longer than the limit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { chainLab, type TestAgent, withTestAgent, startWithToken } from '../support/agent';

const TIMEOUTS = { firstByteMs: 300, handshakeMs: 300, headersMs: 300, requestMs: 600, keepAliveMs: 300 };
/** Far beyond every limit above: a connection still open then is held for good. */
const GUARD_MS = 15_000;

let agent: TestAgent;
let token: string;
before(async () => ({ agent, token } = await startWithToken({ timeouts: TIMEOUTS })));
after(() => agent.stop());

const port = () => Number(new URL(agent.url).port);

/** Whether the agent closed the socket (true) or the guard ran out first (false). */
function closedByAgent(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const guard = setTimeout(() => {
      resolve(false);
      socket.destroy();
    }, GUARD_MS);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(true);
    });
  });
}

/** Writes one byte every 100 ms while the socket is open: never idle, never done. */
function trickle(socket: Socket, byte: string): void {
  const timer = setInterval(() => (socket.writable ? socket.write(byte) : clearInterval(timer)), 100);
  socket.on('close', () => clearInterval(timer));
}

function tlsSocket(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: port(), ca: agent.certPem, servername: 'localhost' }, () =>
      resolve(socket),
    );
    socket.once('error', reject);
  });
}

test('a connection that never sends its first byte is closed', async () => {
  const socket = tcpConnect(port(), '127.0.0.1');
  assert.ok(await closedByAgent(socket), 'the silent connection was still open');
});

test('a TLS handshake that stops half way is closed', async () => {
  const socket = tcpConnect(port(), '127.0.0.1');
  // The start of a TLS record: the agent hands the connection to TLS, which then waits for the rest.
  socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
  assert.ok(await closedByAgent(socket), 'the half handshake was still open');
});

test('a TLS connection that says nothing after the handshake is closed', async () => {
  const socket = await tlsSocket();
  assert.ok(await closedByAgent(socket), 'the silent TLS connection was still open');
});

test('request headers sent one byte at a time are cut off', async () => {
  const socket = await tlsSocket();
  socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n');
  trickle(socket, 'X');
  assert.ok(await closedByAgent(socket), 'the trickled headers were still being read');
});

test('a half-sent body, trickled one byte at a time, is cut off (public and authenticated)', async () => {
  for (const [path, auth] of [
    ['/api/v1/login', ''],
    ['/api/v1/projects/validate', `Authorization: Bearer ${token}\r\n`],
  ]) {
    const socket = await tlsSocket();
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    trickle(socket, ' ');
    assert.ok(await closedByAgent(socket), `the half-sent body to ${path} was still being read`);
  }
});

test('a kept-alive connection that keeps asking stays open past every other limit, and a long answer is not cut', async () => {
  const socket = await tlsSocket();
  const closed = closedByAgent(socket);
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString()));
  // Four requests, each after a pause shorter than the keep-alive limit, adding up to more than every other limit.
  for (let i = 0; i < 4; i++) {
    socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(received.match(/HTTP\/1\.1 200 /g)?.length, 4, received);
  assert.ok(await closed);
  // A deploy of 100 nodes at 10 ms per emulator write takes longer than the request limit to answer.
  await withTestAgent({ timeouts: TIMEOUTS, writeDelayMs: 10 }, async (slow) => {
    const deployed = await slow.call(
      'POST',
      '/api/v1/projects/deploy',
      { yaml: chainLab('slow', 100) },
      await slow.login(),
    );
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body).slice(0, 300));
  });
});
