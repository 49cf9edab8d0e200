import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SESSION_IDLE_MS } from '../../common/api/contract';
import { withTestAgent } from '../support/agent';

const HOUR = 60 * 60 * 1000;

test('agent sessions slide for 8 hours; after that the token is expired, not unknown', async () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  await withTestAgent({ clock: () => now }, async (agent) => {
    const token = await agent.login();
    // Keep the emulator session alive along the way: every call extends both.
    for (let i = 0; i < 3; i++) {
      now += SESSION_IDLE_MS - 1000 - 7 * HOUR;
      assert.equal((await agent.call('GET', '/api/v1/session', undefined, token)).status, 200);
    }
    now += SESSION_IDLE_MS + 1;
    const expired = await agent.call('GET', '/api/v1/session', undefined, token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.code, 'expired_agent_session');

    const unknown = await agent.call('GET', '/api/v1/session', undefined, 'f'.repeat(64));
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, 'unauthenticated');
    const missing = await agent.call('GET', '/api/v1/session');
    assert.equal(missing.body.code, 'unauthenticated');
  });
});

test('logout ends the session at once; the token is then unauthenticated', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    assert.match(token, /^[0-9a-f]{64}$/);
    const session = await agent.call('GET', '/api/v1/session', undefined, token);
    assert.deepEqual(session.body, { ok: true, data: { username: 'lab' } });
    const out = await agent.call('POST', '/api/v1/logout', {}, token);
    assert.equal(out.status, 200);
    const after = await agent.call('GET', '/api/v1/session', undefined, token);
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'unauthenticated');
  });
});

test('the emulator session expires after an hour idle while the agent session lives on', async () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  await withTestAgent({ clock: () => now }, async (agent) => {
    const token = await agent.login();
    now += HOUR - 1000;
    assert.equal((await agent.call('GET', '/api/v1/templates', undefined, token)).status, 200);
    // Sliding: another 59 minutes after the last call is still fine.
    now += HOUR - 1000;
    assert.equal((await agent.call('GET', '/api/v1/capabilities', undefined, token)).status, 200);
    now += HOUR + 1;
    for (const [method, path, body] of [
      ['GET', '/api/v1/session', undefined],
      ['POST', '/api/v1/projects/status', { lab: '/examples/campus.unl' }],
    ] as const) {
      const reply = await agent.call(method, path, body, token);
      assert.equal(reply.status, 401, path);
      assert.equal(reply.body.code, 'expired_emu_session', path);
    }
    // A fresh login gets a fresh emulator session.
    const again = await agent.login();
    assert.equal((await agent.call('GET', '/api/v1/session', undefined, again)).status, 200);
  });
});

test('users come from the options; wrong credentials are invalid_credentials', async () => {
  await withTestAgent({ users: [{ username: 'alice', password: 'wonder' }] }, async (agent) => {
    for (const [username, password] of [
      ['lab', 'lab'],
      ['alice', 'wrong'],
      ['bob', 'wonder'],
    ]) {
      const reply = await agent.call('POST', '/api/v1/login', { username, password });
      assert.equal(reply.status, 401);
      assert.equal(reply.body.code, 'invalid_credentials');
    }
    const ok = await agent.call('POST', '/api/v1/login', { username: 'alice', password: 'wonder' });
    assert.equal(ok.body.data.username, 'alice');
  });
});
