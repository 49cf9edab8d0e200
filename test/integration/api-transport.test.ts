/**
 * The client's transport against servers that misbehave on purpose: replies
 * that are not envelopes, oversized replies, silence, resets, refusals. The
 * server is a small HTTPS server of this test; the client module is the real one.
 */
import { test, before, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createHttpServer } from 'node:http';
import { once } from 'node:events';
import { AgentClient, AgentError } from '../../common/api/client';
import { MAX_BODY_BYTES, OPERATIONS } from '../../common/api/contract';
import { failsWith } from '../support/agent';
import { fakeAgent, fakeCertificate, json, type FakeCertificate } from '../support/fake-agent';

let certificate: FakeCertificate;

before(async () => {
  certificate = await fakeCertificate();
});

test('replies that are not envelopes become invalid_response with the status and an excerpt', async (t) => {
  const cases: [number, string, RegExp][] = [
    [502, '<html><body><h1>502 Bad Gateway</h1></body></html>', /HTTP 502.*not JSON.*502 Bad Gateway/],
    [200, '{"ok":true,"data":{"templ', /HTTP 200.*not JSON/],
    [200, '', /HTTP 200.*empty/],
    [404, '{"message":"Not Found"}', /HTTP 404.*not an API envelope/],
  ];
  for (const [status, body, message] of cases) {
    const fake = await fakeAgent(t, certificate, (_req, res) => {
      res.writeHead(status, { 'content-type': body.startsWith('<') ? 'text/html' : 'application/json' });
      res.end(body);
    });
    const err = await failsWith(fake.client().listTemplates(), 'invalid_response');
    assert.equal(err.status, status);
    assert.equal(err.operationId, 'listTemplates');
    assert.match(err.message, message);
  }
});

test('a reply cut off mid-body is reported, not a crash', async (t) => {
  const fake = await fakeAgent(t, certificate, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
    res.write('{"ok":true,"data":{');
    setTimeout(() => res.socket?.destroy(), 10);
  });
  const err = await failsWith(fake.client().getSession(), 'agent_unreachable');
  assert.match(err.message, /Is the agent running at https:\/\/127\.0\.0\.1:\d+\?/);
});

test('a reply larger than 32 MiB is not read: declared by content-length, or streamed', async (t) => {
  const declared = await fakeAgent(t, certificate, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1) });
    res.write('{"ok":true,"data":"');
  });
  assert.match((await failsWith(declared.client().getSession(), 'invalid_response')).message, /33554432-byte limit/);

  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const streamed = await fakeAgent(t, certificate, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"ok":true,"data":"');
    let sent = 0;
    const pump = (): void => {
      while (sent <= MAX_BODY_BYTES && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    res.on('error', () => undefined);
    pump();
  });
  await failsWith(streamed.client().getSession(), 'invalid_response');
});

test('extra properties in a reply are tolerated', async (t) => {
  const fake = await fakeAgent(
    t,
    certificate,
    json(200, { ok: true, data: { username: 'lab', role: 'admin' }, trace: 'x' }),
  );
  assert.deepEqual(await fake.client().getSession(), { username: 'lab', role: 'admin' });
});

test('bearer header on authenticated operations only, and none for the empty token', async (t) => {
  // (validate's reply needs its status; the others take it as an extra property.)
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: { status: 'valid' } }));
  const client = fake.client('tok-abc');
  await client.getHealth();
  await client.getSession();
  await client.validateProject({ yaml: 'name: x\n' });
  client.token = '';
  await client.getSession();
  assert.deepEqual(
    fake.requests.map((r) => [r.method, r.url, r.authorization]),
    [
      ['GET', '/api/v1/health', undefined],
      ['GET', '/api/v1/session', 'Bearer tok-abc'],
      ['POST', '/api/v1/projects/validate', 'Bearer tok-abc'],
      ['GET', '/api/v1/session', undefined],
    ],
  );
});

test('path parameters and the provisioned query are encoded', async (t) => {
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: {} }));
  const client = fake.client();
  await client.getTemplate({ id: 'a/b c' });
  await client.listTemplates({ provisioned: 'true' });
  await client.listTemplates();
  assert.deepEqual(
    fake.requests.map((r) => r.url),
    ['/api/v1/templates/a%2Fb%20c', '/api/v1/templates?provisioned=true', '/api/v1/templates'],
  );
});

test('a body over 32 MiB is refused before sending; one of exactly 32 MiB is sent', async (t) => {
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: { status: 'valid' } }));
  const client = fake.client();
  const overhead = JSON.stringify({ yaml: '' }).length;
  const err = await failsWith(
    client.validateProject({ yaml: 'x'.repeat(MAX_BODY_BYTES - overhead + 1) }),
    'payload_too_large',
  );
  assert.match(err.message, /33554433 bytes.*nothing was sent/);
  assert.equal(fake.requests.length, 0);
  // Multi-byte characters count as bytes, not characters.
  await failsWith(client.validateProject({ yaml: 'é'.repeat(Math.ceil(MAX_BODY_BYTES / 2)) }), 'payload_too_large');
  assert.equal(fake.requests.length, 0);
  await client.validateProject({ yaml: 'x'.repeat(MAX_BODY_BYTES - overhead) });
  assert.deepEqual(
    fake.requests.map((r) => r.bodyBytes),
    [MAX_BODY_BYTES],
  );
});

test('calls reuse kept-alive connections', async (t) => {
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: { status: 'ok' } }));
  const client = fake.client();
  for (let i = 0; i < 20; i++) await client.getHealth();
  // undici's pool may open a second connection while the first still counts as busy; never one per call.
  assert.ok(fake.connections() <= 2, `${fake.connections()} connections for 20 calls`);
});

test('a per-call timeout is timeout, naming the operation and the time', async (t) => {
  const fake = await fakeAgent(t, certificate, () => undefined);
  const err = await failsWith(fake.client().getCapabilities({ timeoutMs: 100 }), 'timeout');
  assert.equal(err.operationId, 'getCapabilities');
  assert.match(err.message, /getCapabilities .*100 ms/);
});

test("without an override, the operation's own timeout applies", async (t) => {
  // Health answers, everything else stalls.
  const fake = await fakeAgent(
    t,
    certificate,
    (req, res) => req.url === '/api/v1/health' && json(200, { ok: true, data: {} })(req, res),
  );
  const client = fake.client();
  await client.getHealth(); // a warm connection: no connect timers run under the mocked clock below
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const arrived = fake.nextRequest();
  const outcome: { error?: unknown } = {};
  const call = client.deployProject({ yaml: 'name: x\n' }).catch((err: unknown) => (outcome.error = err));
  await Promise.race([arrived, call]);
  assert.equal(outcome.error, undefined, 'the call failed before reaching the server');
  mock.timers.tick(OPERATIONS.deployProject.timeoutMs - 1);
  await new Promise((r) => setImmediate(r));
  assert.equal(outcome.error, undefined, 'not yet timed out');
  mock.timers.tick(1);
  await call;
  const err = outcome.error as unknown; // (the assertion above narrowed it to undefined)
  assert.ok(err instanceof AgentError && err.code === 'timeout', String(err));
  assert.match(err.message, /300000 ms/);
});

test('an AbortSignal cancels a call in flight, and an aborted one is not sent', async (t) => {
  const fake = await fakeAgent(t, certificate, () => undefined);
  const client = fake.client();
  const controller = new AbortController();
  const arrived = fake.nextRequest();
  const call = client.planProject({ yaml: 'name: x\n' }, { signal: controller.signal });
  await Promise.race([arrived, call]);
  controller.abort();
  const err = await failsWith(call, 'aborted');
  assert.equal(err.operationId, 'planProject');
  const before = fake.requests.length;
  await failsWith(client.getSession({ signal: controller.signal }), 'aborted');
  assert.equal(fake.requests.length, before);
});

test('connection refused and reset are agent_unreachable with the URL to check', async (t) => {
  const fake = await fakeAgent(t, certificate, (req) => req.socket.destroy());
  const reset = await failsWith(fake.client().getSession(), 'agent_unreachable');
  assert.equal(reset.status, undefined);

  const closed = createHttpsServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as { port: number }).port;
  closed.close();
  await once(closed, 'close');
  const client = new AgentClient({ baseUrl: `https://127.0.0.1:${port}`, pin: certificate.fingerprint });
  const refused = await failsWith(client.getHealth(), 'agent_unreachable');
  assert.match(refused.message, new RegExp(`ECONNREFUSED.*Is the agent running at https://127\\.0\\.0\\.1:${port}\\?`));
  const unknownHost = new AgentClient({ baseUrl: 'https://no-such-host.invalid:8787' });
  assert.match((await failsWith(unknownHost.getHealth(), 'agent_unreachable')).message, /no-such-host\.invalid/);
  await Promise.all([client.close(), unknownHost.close()]);
});

test('https to a server that does not speak TLS is a TLS failure, not a crash', async (t) => {
  const plain = createHttpServer((_req, res) => res.end('hello'));
  plain.listen(0, '127.0.0.1');
  await once(plain, 'listening');
  t.after(() => plain.close());
  const client = new AgentClient({
    baseUrl: `https://127.0.0.1:${(plain.address() as { port: number }).port}`,
    pin: certificate.fingerprint,
  });
  const err = await failsWith(client.getHealth(), 'tls_untrusted');
  assert.match(err.message, /TLS handshake/);
  await client.close();
});

test('bad connection settings fail each call clearly instead of throwing from the constructor', async () => {
  const notUrl = new AgentClient({ baseUrl: 'https//127.0.0.1' });
  assert.match((await failsWith(notUrl.getHealth(), 'agent_unreachable')).message, /not a valid URL/);
  const noScheme = new AgentClient({ baseUrl: 'localhost:8787' });
  assert.match(
    (await failsWith(noScheme.getHealth(), 'tls_required')).message,
    /"localhost:8787" is not an https:\/\/ URL/,
  );
  const badPin = new AgentClient({ baseUrl: 'https://127.0.0.1:1', pin: 'xyz' });
  assert.match((await failsWith(badPin.getHealth(), 'tls_pin_mismatch')).message, /64 hex digits/);
});

test('a call after close() is aborted, not hung', async (t) => {
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: {} }));
  const client = fake.client();
  await client.getHealth();
  await client.close();
  assert.match((await failsWith(client.getHealth(), 'aborted')).message, /closed/);
});

test('streamConsole: a refusal that is not an envelope is invalid_response', async (t) => {
  const fake = await fakeAgent(t, certificate, (_req, res) => {
    res.writeHead(403, { 'content-type': 'text/html' });
    res.end('<h1>Forbidden</h1>');
  });
  const err = await failsWith(fake.client().streamConsole({ ticket: 'a'.repeat(64) }), 'invalid_response');
  assert.equal(err.status, 403);
});
