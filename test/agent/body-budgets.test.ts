/**
 * Bodies take from the agent's body budget what has arrived, not what they declare (decisions §11):
 * callers without a session, or one user, cannot starve everyone else by declaring large bodies
 * and sending them slowly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { chainLab, startTestAgent, type TestAgent, withTestAgent } from '../support/agent';

const SLOW_LOGINS = 1000;
/** Sockets opened at once while the slow logins are set up (bounded, so the test machine is not swamped). */
const BATCH = 50;

/** Opens a TLS connection, sends `head` and the first byte of the body, and keeps it open. */
function startSlowRequest(agent: TestAgent, head: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const port = Number(new URL(agent.url).port);
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: agent.certPem, servername: 'localhost' }, () => {
      socket.write(`${head}{`);
      resolve(socket);
    });
    socket.on('error', (e: Error) => (socket.readyState === 'opening' ? reject(e) : undefined));
  });
}

async function openSlowLogins(agent: TestAgent, declared: number, count: number): Promise<TLSSocket[]> {
  const head = `POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
  const sockets: TLSSocket[] = [];
  for (let i = 0; i < count; i += BATCH)
    sockets.push(
      ...(await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, () => startSlowRequest(agent, head)))),
    );
  return sockets;
}

test(
  `${SLOW_LOGINS} slow logins without a session do not stop a logged-in user's plan, nor a right login`,
  { timeout: 180_000 },
  async (t) => {
    await withTestAgent({}, async (agent) => {
      const token = await agent.login();
      const yaml = chainLab('busy', 200);
      // 64 KiB each, as in the attack: reserved up front they took the agent's whole 64 MiB. 16 KiB
      // each (what a login may have now): reserved up front, 200 would fill the 1 MiB for logins thrice.
      for (const [declared, count] of [
        [64 * 1024, SLOW_LOGINS],
        [16 * 1024, 200],
      ]) {
        const sockets = await openSlowLogins(agent, declared, count);
        try {
          const plan = await agent.call('POST', '/api/v1/projects/plan', { yaml }, token);
          assert.equal(plan.status, 200, `${declared}: ${JSON.stringify(plan.body).slice(0, 300)}`);
          const login = await agent.call('POST', '/api/v1/login', { username: 'lab', password: 'lab' });
          assert.equal(login.status, 200, `${declared}: ${JSON.stringify(login.body).slice(0, 300)}`);
          const stillOpen = sockets.filter((s) => !s.destroyed).length;
          t.diagnostic(`declared ${declared} bytes: ${stillOpen} of ${count} slow logins still open`);
        } finally {
          for (const socket of sockets) socket.destroy();
        }
      }
    });
  },
);

test('one user reading two large bodies at once does not stop another user; the error names whose bodies', async () => {
  const agent = await startTestAgent({
    users: [
      { username: 'alice', password: 'alice-pw' },
      { username: 'bob', password: 'bob-pw' },
    ],
  });
  try {
    const alice = await agent.login('alice', 'alice-pw');
    const bob = await agent.login('bob', 'bob-pw');
    // Alice sends 20 MiB of each of two 32 MiB uploads and then stalls.
    const head = (length: number) =>
      `POST /api/v1/projects/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const sent = 20 * 1024 * 1024;
    const uploads = await Promise.all([0, 1].map(() => startSlowRequest(agent, head(32 * 1024 * 1024))));
    const refused = new Promise<string>((resolve) => {
      let text = '';
      uploads[1].on('data', (c: Buffer) => {
        text += c.toString();
        if (/\r\n\r\n\{.*\}$/s.test(text)) resolve(text);
      });
      uploads[1].on('close', () => resolve(text));
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    for (const socket of uploads)
      for (let i = 0; i < sent / chunk.length && !socket.destroyed; i++)
        if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
    // Alice's second upload passes her own share (32 MiB): it is refused, naming whose bodies.
    const answer = await refused;
    assert.match(answer, /^HTTP\/1\.1 503 /, answer.slice(0, 300));
    assert.match(answer, /"code":"agent_busy"/);
    assert.match(answer, /user \\"alice\\"/);
    // Bob is not held by Alice's uploads.
    const reply = await agent.call('POST', '/api/v1/projects/validate', { yaml: chainLab('bob', 20) }, bob);
    assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
    for (const socket of uploads) socket.destroy();
  } finally {
    await agent.stop();
  }
});
