import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { request as httpRequest } from 'node:http';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { sendRawTls, type TestAgent, startWithToken } from '../support/agent';

let agent: TestAgent;
let token: string;
before(async () => ({ agent, token } = await startWithToken()));
after(() => agent.stop());

const port = () => Number(new URL(agent.url).port);

test('plain HTTP on the TLS port gets 400 tls_required as JSON, and the connection closes', async () => {
  const reply = await new Promise<{ status: number; body: string; connection: string | undefined }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: port(),
          path: '/api/v1/login',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ username: 'lab', password: 'lab' }));
    },
  );
  assert.equal(reply.status, 400);
  assert.equal(reply.connection, 'close');
  const envelope = JSON.parse(reply.body);
  assert.equal(envelope.ok, false);
  assert.equal(envelope.code, 'tls_required');
  assert.match(envelope.error, /HTTPS/);
  assert.equal(envelope.data, undefined);
});

test('a plain connection is closed by the agent after its one answer', async () => {
  const socket = tcpConnect(port(), '127.0.0.1');
  socket.setTimeout(10_000, () => socket.destroy());
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString()));
  socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise<void>((resolve) => socket.on('close', () => resolve()));
  assert.match(received, /^HTTP\/1\.1 400 /);
  assert.match(received, /"code":"tls_required"/);
  // The health data is never answered over plain HTTP.
  assert.doesNotMatch(received, /"status":"ok"/);
});

const rawTls = (head: string, writeBody: (socket: TLSSocket) => void) => sendRawTls(agent, head, writeBody);

test('a body declared larger than 32 MiB is refused with 413 before it is sent', async () => {
  const head =
    `POST /api/v1/projects/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`;
  const reply = await rawTls(head, (socket) => socket.write('{"yaml":"'));
  assert.equal(reply.status, 413);
  assert.match(reply.text, /"code":"payload_too_large"/);
  assert.match(reply.text, /[Cc]onnection: close/);
});

test('a chunked body that grows past 32 MiB is refused with 413 while streaming', async () => {
  const head = `POST /api/v1/projects/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const reply = await rawTls(head, (socket) => {
    let sent = 0;
    const more = () => {
      while (sent <= MAX_BODY_BYTES) {
        sent += chunk.length;
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        if (!socket.write('\r\n')) {
          socket.once('drain', more);
          return;
        }
      }
      socket.write('0\r\n\r\n');
    };
    more();
  });
  assert.equal(reply.status, 413);
  assert.match(reply.text, /"code":"payload_too_large"/);
  // The agent is still fine afterwards.
  assert.equal((await agent.call('GET', '/api/v1/health')).status, 200);
});

test('a body just under the limit is read (and judged on its content)', async () => {
  const body = `{"yaml":"name: big\\n","pad":"${' '.repeat(2 * 1024 * 1024)}"}`;
  const reply = await agent.call('POST', '/api/v1/projects/validate', JSON.parse(body), token);
  assert.equal(reply.status, 200);
  assert.equal(reply.body.ok, true);
});

test('unknown routes are 404 not_found, wrong methods 405 method_not_allowed, bad bodies 400 invalid_json', async () => {
  const unknown = await agent.call('GET', '/api/v1/nothing-here', undefined, token);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'not_found');
  const outside = await agent.call('GET', '/index.html');
  assert.equal(outside.status, 404);

  const wrong = await agent.call('GET', '/api/v1/projects/plan', undefined, token);
  assert.equal(wrong.status, 405);
  assert.equal(wrong.body.code, 'method_not_allowed');
  assert.equal(wrong.headers.allow, 'POST');

  for (const raw of ['{"yaml":', '[1,2]', '"text"', 'null', '']) {
    const reply = await rawTls(
      `POST /api/v1/projects/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(raw)}\r\n\r\n`,
      (socket) => socket.write(raw),
    );
    assert.equal(reply.status, 400, raw);
    assert.match(reply.text, /"code":"invalid_json"/, raw);
  }
});

test('wrong-typed fields, unknown login fields and local folders are 400 invalid_request naming the field', async () => {
  const wrong = await agent.call('POST', '/api/v1/projects/status', { lab: 42 }, token);
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.code, 'invalid_request');
  assert.match(wrong.body.error ?? '', /"lab"/);

  const prune = await agent.call('POST', '/api/v1/projects/plan', { yaml: 'name: x\n', prune: 'yes' }, token);
  assert.equal(prune.body.code, 'invalid_request');
  assert.match(prune.body.error ?? '', /"prune"/);

  const extra = await agent.call('POST', '/api/v1/login', { username: 'lab', password: 'lab', remember: true });
  assert.equal(extra.status, 400);
  assert.match(extra.body.error ?? '', /"remember"/);

  for (const field of ['dir', 'out']) {
    const reply = await agent.call(
      'POST',
      '/api/v1/projects/status',
      { lab: '/examples/campus.unl', [field]: '/tmp' },
      token,
    );
    assert.equal(reply.body.code, 'invalid_request', field);
    assert.match(reply.body.error ?? '', new RegExp(`"${field}"`));
    // An empty dir/out is allowed.
    const empty = await agent.call(
      'POST',
      '/api/v1/projects/status',
      { lab: '/examples/campus.unl', [field]: '' },
      token,
    );
    assert.equal(empty.status, 200);
  }
  // Other bodies ignore unknown fields.
  const unknown = await agent.call(
    'POST',
    '/api/v1/projects/status',
    { lab: '/examples/campus.unl', colour: 'blue' },
    token,
  );
  assert.equal(unknown.status, 200);
});
