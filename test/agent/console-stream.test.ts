import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { TICKET_TTL_MS } from '../../common/api/contract';
import { startTestAgent, type TestAgent } from '../support/agent';

const LAB = '/lab-agent/imported/campus.unl';
let agent: TestAgent;
let token: string;
let now = Date.parse('2026-03-01T10:00:00Z');

before(async () => {
  agent = await startTestAgent({ clock: () => now, bootMs: 1000 });
  token = await agent.login();
  assert.equal(
    (await agent.call('POST', '/api/v1/projects/import', { lab: '/examples/campus.unl' }, token)).status,
    200,
  );
  assert.equal(
    (await agent.call('POST', '/api/v1/projects/exec', { lab: LAB, action: 'start' }, token)).body.data.started,
    5,
  );
  now += 1000;
});
after(() => agent.stop());

/** A raw TLS connection that collects everything the agent sends. */
class RawStream {
  received = Buffer.alloc(0);
  closed = false;
  private waiters: (() => void)[] = [];

  constructor(readonly socket: TLSSocket) {
    socket.on('data', (c: Buffer) => {
      this.received = Buffer.concat([this.received, c]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async until(check: (text: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + 5000;
    while (!check(this.received.toString('latin1'))) {
      if (this.closed)
        throw new Error(`closed while waiting for ${what}; got ${JSON.stringify(this.received.toString('latin1'))}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.received.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.toString('latin1');
  }

  /** Forgets what arrived so far (keeps the connection). */
  clear(): void {
    this.received = Buffer.alloc(0);
  }
}

function openStream(ticket: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(agent.url);
    const socket = tlsConnect(
      { host: '127.0.0.1', port: Number(port), ca: agent.certPem, servername: 'localhost' },
      () => {
        const lines = [
          `GET /api/v1/console/stream/${ticket} HTTP/1.1`,
          'Host: 127.0.0.1',
          ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        ];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        resolve(new RawStream(socket));
      },
    );
    socket.on('error', reject);
  });
}

const upgradeHeaders = (t = token) => ({ Authorization: `Bearer ${t}`, Connection: 'Upgrade', Upgrade: 'emu-telnet' });

async function attach(node: string, t = token): Promise<string> {
  const reply = await agent.call('POST', '/api/v1/console/attach', { lab: LAB, node }, t);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.data.transport, 'emu-telnet');
  assert.match(reply.body.data.ticket, /^[0-9a-f]{64}$/);
  assert.equal(reply.body.data.stream, `/api/v1/console/stream/${reply.body.data.ticket}`);
  return reply.body.data.ticket;
}

/** Connects with a fresh ticket and returns the stream after the 101 head (greeting not consumed). */
async function connected(node: string): Promise<RawStream> {
  const stream = await openStream(await attach(node), upgradeHeaders());
  await stream.until((t) => t.includes('\r\n\r\n'), 'the 101 head');
  const head = stream.received.toString('latin1');
  const end = head.indexOf('\r\n\r\n') + 4;
  assert.match(head.slice(0, end), /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head.slice(0, end), /\r\nUpgrade: emu-telnet\r\n/i);
  stream.received = stream.received.subarray(end);
  return stream;
}

const GREETING = Buffer.concat([
  Buffer.from([255, 251, 1, 255, 251, 3, 255, 251, 0, 255, 253, 0]),
  Buffer.from('\x1b]0;campus/edge\x07', 'latin1'),
]);

test('the stream opens with the EVE-NG telnet greeting and the lab/node title, then nothing until input', async () => {
  const stream = await connected('edge');
  await stream.until((t) => t.length >= GREETING.length, 'the greeting');
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(stream.received, GREETING);
  stream.socket.destroy();
});

test('every client attached to a node sees its output, including what others type', async () => {
  const a = await connected('edge');
  const b = await connected('edge');
  await a.until((t) => t.length >= GREETING.length, 'greeting a');
  await b.until((t) => t.length >= GREETING.length, 'greeting b');
  a.clear();
  b.clear();
  a.socket.write('show version\r');
  for (const s of [a, b]) {
    const text = await s.until((t) => /edge uptime is[^]*edge#$/.test(t), 'show version output');
    assert.ok(text.startsWith('show version\r\n'), 'the echo of what a typed');
    assert.match(text, /Cisco IOS Software, IOSv Software/);
  }
  b.clear();
  a.clear();
  b.socket.write('show ip interface brief\r');
  await a.until((t) => /Gi0\/3\s+unassigned[^]*edge#$/.test(t), "b's command seen by a");
  a.socket.destroy();
  b.socket.destroy();
});

test('telnet commands from the client are stripped; CR NUL, CR LF and backspace work as on a terminal', async () => {
  const s = await connected('edge');
  await s.until((t) => t.length >= GREETING.length, 'greeting');
  s.clear();
  // IAC WILL NAWS, a NAWS subnegotiation and IAC DO ECHO: none of it reaches the device.
  s.socket.write(Buffer.from([255, 251, 31, 255, 250, 31, 0, 80, 0, 24, 255, 240, 255, 253, 1]));
  // Like EVE-NG's console server, the device drops the two bytes after any IAC (here NOP and an 'X').
  s.socket.write(Buffer.from([255, 241, 0x58]));
  s.socket.write(Buffer.from('sh ver\r\0', 'latin1'));
  let text = await s.until((t) => t.endsWith('edge#'), 'first prompt');
  assert.ok(text.startsWith('sh ver\r\n'), JSON.stringify(text.slice(0, 40)));
  assert.match(text, /uptime is/);

  s.clear();
  s.socket.write('show clockx\x7f\r\n');
  text = await s.until((t) => t.endsWith('edge#'), 'prompt after backspace');
  assert.ok(text.startsWith('show clockx\b \b\r\n'), JSON.stringify(text.slice(0, 40)));
  assert.doesNotMatch(text, /Invalid input/);
  await new Promise((r) => setTimeout(r, 50));
  // CR LF is one line end: one prompt, not two.
  assert.equal(s.received.toString('latin1').split('edge#').length, 2);

  s.clear();
  s.socket.write('foo\r');
  text = await s.until((t) => t.endsWith('edge#'), 'error');
  assert.match(text, /\r\n {5}\^\r\n% Invalid input detected at '\^' marker\./);
  s.socket.destroy();
});

test('a ticket works once, only for its session, and only for 30 seconds', async () => {
  const ticket = await attach('edge');
  const other = await agent.login();
  const wrongSession = await openStream(ticket, upgradeHeaders(other));
  let text = await wrongSession.until((t) => t.includes('}'), 'refusal');
  assert.match(text, /^HTTP\/1\.1 403 /);
  assert.match(text, /"code":"browser_token_invalid"/);

  const first = await openStream(ticket, upgradeHeaders());
  await first.until((t) => t.includes('\x07'), 'greeting');
  first.socket.destroy();
  const reused = await openStream(ticket, upgradeHeaders());
  text = await reused.until((t) => t.includes('}'), 'refusal');
  assert.match(text, /^HTTP\/1\.1 403 /);
  assert.match(text, /"code":"browser_token_invalid"/);

  const late = await attach('edge');
  now += TICKET_TTL_MS + 1;
  const expired = await openStream(late, upgradeHeaders());
  assert.match(await expired.until((t) => t.includes('}'), 'refusal'), /"code":"browser_token_invalid"/);

  const malformed = await openStream('not-a-ticket', upgradeHeaders());
  assert.match(
    await malformed.until((t) => t.includes('}'), 'refusal'),
    /^HTTP\/1\.1 403 [^]*"code":"browser_token_invalid"/,
  );
});

test('the stream needs Upgrade: emu-telnet (426) and a bearer token (401)', async () => {
  const ticket = await attach('edge');
  const plain = await agent.call('GET', `/api/v1/console/stream/${ticket}`, undefined, token);
  assert.equal(plain.status, 426);
  assert.equal(plain.body.code, 'upgrade_required');
  const websocket = await openStream(ticket, { ...upgradeHeaders(), Upgrade: 'websocket' });
  assert.match(
    await websocket.until((t) => t.includes('}'), 'refusal'),
    /^HTTP\/1\.1 426 [^]*"code":"upgrade_required"/,
  );
  const anonymous = await openStream(ticket, { Connection: 'Upgrade', Upgrade: 'emu-telnet' });
  assert.match(
    await anonymous.until((t) => t.includes('}'), 'refusal'),
    /^HTTP\/1\.1 401 [^]*"code":"unauthenticated"/,
  );
});

test('attach and exec need a running node; stopping a node closes its console streams', async () => {
  const stream = await connected('pc');
  await stream.until((t) => t.includes('\x07'), 'greeting');
  const stop = await agent.call(
    'POST',
    '/api/v1/projects/exec',
    { lab: LAB, action: 'stop', node: 'pc', stopmode: 1 },
    token,
  );
  assert.equal(stop.body.data.stopped, 1);
  await stream.until(() => stream.closed, 'the stream to close');
  const refused = await agent.call('POST', '/api/v1/console/attach', { lab: LAB, node: 'pc' }, token);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'node_not_running');
  const exec = await agent.call('POST', '/api/v1/console/exec', { lab: LAB, node: 'pc', command: 'show ip' }, token);
  assert.equal(exec.body.code, 'node_not_running');
  const missing = await agent.call('POST', '/api/v1/console/attach', { lab: LAB, node: 'nope' }, token);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'node_not_found');
});
