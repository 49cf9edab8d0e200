/**
 * The built agent in its own process: what it holds in memory under hostile
 * callers, and how it stops on SIGTERM in the middle of a deploy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent } from 'node:https';
import { rmSync } from 'node:fs';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { chainLab, loginTo, makeDataDir, rawCall, sendRawTls, spawnAgent, waitFor } from '../support/agent';

const MiB = 1024 * 1024;

test('unauthenticated 32 MiB bodies, 8 at once, do not grow the agent’s memory', { timeout: 120_000 }, async () => {
  const dataDir = makeDataDir();
  const agent = await spawnAgent(dataDir);
  try {
    // Warm up (TLS, JSON, the first requests) before the baseline reading.
    for (let i = 0; i < 5; i++) await rawCall(agent.url, agent.certPem, 'GET', '/api/v1/health');
    const before = agent.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, agent.rss())), 20);
    const chunk = Buffer.alloc(MiB, 0x20);
    const head =
      'POST /api/v1/projects/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${MAX_BODY_BYTES}\r\n\r\n`;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        sendRawTls(agent, head, (socket) => {
          // The whole body, as a careless or hostile client sends it; then the answer is read.
          let answer = '';
          socket.on('data', (c: Buffer) => {
            answer += c.toString();
            if (/\r\n\r\n\{.*\}$/s.test(answer)) socket.destroy();
          });
          let sent = 0;
          const more = () => {
            while (sent < MAX_BODY_BYTES && !socket.destroyed) {
              sent += chunk.length;
              if (!socket.write(chunk)) return void socket.once('drain', more);
            }
          };
          more();
        }),
      ),
    );
    clearInterval(sampler);
    const grown = (peak - before) / MiB;
    assert.ok(grown < 64, `the agent grew by ${grown.toFixed(0)} MiB (before ${(before / MiB).toFixed(0)} MiB)`);
    for (const reply of replies) assert.equal(reply.status, 401, reply.text);
    assert.equal((await rawCall(agent.url, agent.certPem, 'GET', '/api/v1/health')).status, 200);
  } finally {
    agent.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM in the middle of a deploy answers it with 503 agent_stopping, then the agent exits 0', async () => {
  const dataDir = makeDataDir();
  const agent = await spawnAgent(dataDir, ['--boot-ms', '10']);
  try {
    const token = await loginTo(agent);
    const yaml = chainLab('stopping', 800);
    const call = (path: string, body: unknown) =>
      rawCall(agent.url, agent.certPem, 'POST', path, JSON.stringify(body), token);
    const deploying = call('/api/v1/projects/deploy', { yaml });
    await waitFor(
      async () => ((await call('/api/v1/projects/status', { yaml })).body.data?.total ?? 0) > 3,
      'nodes to appear',
    );
    const exited = once(agent.child, 'exit');
    agent.child.kill('SIGTERM');
    const reply = await deploying;
    assert.equal(reply.status, 503, JSON.stringify(reply.body));
    assert.equal(reply.body.ok, false);
    assert.equal(reply.body.code, 'agent_stopping');
    assert.match(reply.body.error ?? '', /stopping/);
    const [code] = await exited;
    assert.equal(code, 0);
    assert.doesNotMatch(agent.stderr(), /internal error|\n\s+at /);
  } finally {
    agent.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * Sends `payload` to `path` in 64 KiB pieces while asking for health on its own connection, one
 * call after the other, and counts the health answers that arrived after the last byte of the
 * body was sent and before the reply: the time the agent worked on the document. A document
 * handled on the event loop leaves no room for any; one on a worker thread leaves room for many.
 * Returns the reply and that count (npm test asserts no elapsed time; the bench times health).
 */
async function healthWhile(
  path: string,
  payload: unknown,
): Promise<{ status: number; text: string; answered: number }> {
  const dataDir = makeDataDir();
  const agent = await spawnAgent(dataDir);
  try {
    const token = await loginTo(agent);
    const keepAlive = new Agent({ ca: agent.certPem, keepAlive: true, maxSockets: 1 });
    const body = Buffer.from(JSON.stringify(payload));
    const head =
      `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    let sent = false;
    let done = false;
    const sending = sendRawTls(agent, head, (socket) => {
      let offset = 0;
      const more = () => {
        while (offset < body.length) {
          const piece = body.subarray(offset, (offset += 64 * 1024));
          const last = offset >= body.length;
          if (!socket.write(piece, last ? () => (sent = true) : undefined))
            return void socket.once('drain', () => setImmediate(more));
        }
      };
      more();
    }).finally(() => (done = true));
    let answered = 0;
    while (!done) {
      const before = sent;
      const reply = await rawCall(agent.url, agent.certPem, 'GET', '/api/v1/health', undefined, undefined, keepAlive);
      assert.equal(reply.status, 200);
      if (before && !done) answered++;
    }
    keepAlive.destroy();
    return { ...(await sending), answered };
  } finally {
    agent.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('health is answered while a large validate is on a worker thread', { timeout: 120_000 }, async () => {
  // Over the 256 KiB that go to a worker: a second or more of parsing and checking there.
  const reply = await healthWhile('/api/v1/projects/validate', { yaml: chainLab('large-validate', 8000) });
  assert.equal(reply.status, 200, reply.text.slice(0, 300));
  assert.match(reply.text, /"status":"(in)?valid"/);
  assert.ok(reply.answered >= 2, `health was answered ${reply.answered} times while the validate was worked on`);
});

test('health is answered while a large plan is on a worker thread, not after it', { timeout: 120_000 }, async () => {
  // A lab the agent reads and plans in full: seconds of work, which held health up for all of them
  // when it ran on the event loop. 8,000 nodes as for the validate: since workers keep their parse,
  // a 4,000-node plan on an idle machine could end within one health round trip.
  const reply = await healthWhile('/api/v1/projects/plan', { yaml: chainLab('large-plan', 8000) });
  assert.equal(reply.status, 200, reply.text.slice(0, 300));
  assert.match(reply.text, /"summary":\{"create":\d{5},/);
  assert.ok(reply.answered >= 2, `health was answered ${reply.answered} times while the plan was worked on`);
});
