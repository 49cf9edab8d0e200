/**
 * Trust in the agent's certificate, checked by the client against the real
 * agent: pin, CA, system trust, plain HTTP, and trust on first use.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';
import { type AgentError, readServerCertificate, type AgentClient } from '../../common/api/client';
import { failsWith, startTestAgent, TEST_USER, type TestAgent } from '../support/agent';

let agent: TestAgent;

before(async () => {
  agent = await startTestAgent();
});
after(() => agent.stop());

/** A client-side failure: the code, and no HTTP status. */
async function failsClientSide(call: Promise<unknown>, code: string): Promise<AgentError> {
  const err = await failsWith(call, code);
  assert.equal(err.status, undefined, 'a client-side failure has no HTTP status');
  return err;
}

test('the right pin, in any spelling, is accepted', async () => {
  const spellings = [agent.fingerprint, agent.fingerprint.toLowerCase(), agent.fingerprint.replace(/:/g, '')];
  for (const pin of spellings) {
    const client = agent.client({ pin });
    assert.equal((await client.getHealth()).status, 'ok', pin);
  }
});

test('a wrong pin is tls_pin_mismatch, naming both fingerprints, and nothing is sent', async () => {
  const wrong = 'AB:'.repeat(31) + 'AB';
  const client = agent.client({ pin: wrong });
  const err = await failsClientSide(client.login(TEST_USER), 'tls_pin_mismatch');
  assert.equal(err.operationId, 'login');
  assert.ok(err.message.includes(wrong), 'expected fingerprint shown');
  assert.ok(err.message.includes(agent.fingerprint), 'actual fingerprint shown');
  assert.equal(client.token, '');
});

test("the agent's own certificate as CA is trusted; with it, a wrong pin still fails", async () => {
  const trusted = agent.client({ ca: agent.certPem, pin: '' });
  assert.equal((await trusted.getHealth()).status, 'ok');
  const pinned = agent.client({ ca: agent.certPem, pin: '00'.repeat(32) });
  await failsClientSide(pinned.getHealth(), 'tls_pin_mismatch');
});

test('a CA that did not sign the certificate is tls_untrusted', async () => {
  const otherCa = await generate([{ name: 'commonName', value: 'Some Other CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }],
  });
  const client = agent.client({ ca: otherCa.cert, pin: '' });
  const err = await failsClientSide(client.getHealth(), 'tls_untrusted');
  assert.match(err.message, /configured CA/);
  // A configured CA must verify even when the pin matches.
  await failsClientSide(agent.client({ ca: otherCa.cert }).getHealth(), 'tls_untrusted');
});

test('neither CA nor pin: system trust, which does not know the self-signed agent', async () => {
  const client = agent.client({ pin: '' });
  const err = await failsClientSide(client.getHealth(), 'tls_untrusted');
  assert.match(err.message, /system/);
});

test('plain http is tls_required, without a single connection', async (t) => {
  let connections = 0;
  const listener = createServer((socket: Socket) => {
    connections++;
    socket.destroy();
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.after(() => listener.close());
  const port = (listener.address() as { port: number }).port;
  const client = agent.client({ baseUrl: `http://127.0.0.1:${port}` });
  const err = await failsClientSide(client.login(TEST_USER), 'tls_required');
  assert.match(err.message, /https:\/\/127\.0\.0\.1:/);
  await failsClientSide(client.getHealth(), 'tls_required');
  await failsClientSide(readServerCertificate(`http://127.0.0.1:${port}`), 'tls_required');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(connections, 0);
});

test('readServerCertificate returns what trust on first use needs, without trusting', async () => {
  const cert = await readServerCertificate(agent.url);
  assert.equal(cert.fingerprint, agent.fingerprint);
  assert.equal(cert.fingerprint, new X509Certificate(agent.certPem).fingerprint256);
  assert.equal(new X509Certificate(cert.pem).fingerprint256, agent.fingerprint);
  assert.ok(cert.subject.length > 0);
  assert.ok(cert.issuer.length > 0);
  assert.ok(!Number.isNaN(Date.parse(cert.validTo)));
  // The stored fingerprint is then a working pin.
  assert.equal((await agent.client({ pin: cert.fingerprint }).getHealth()).status, 'ok');
});

test('the pin is checked on every new connection: a different agent on the same port is refused', async () => {
  const first = await startTestAgent();
  const port = Number(new URL(first.url).port);
  const client: AgentClient = first.client();
  let second: TestAgent | undefined;
  try {
    await client.login(TEST_USER);
    assert.equal((await client.getSession()).username, 'lab');
    await first.close();
    second = await startTestAgent({ port });
    assert.notEqual(second.fingerprint, first.fingerprint);
    await failsClientSide(client.getSession(), 'tls_pin_mismatch');
  } finally {
    await second?.stop();
    await first.stop();
  }
});
