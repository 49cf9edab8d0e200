/**
 * Session expiry and the retry-once rule (read-style calls are repeated once
 * after re-authenticating, others never), and console ticket use and expiry,
 * against the real agent with its clock moved by the test.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { type AgentClient, ticketOf } from '../../common/api/client';
import { SESSION_IDLE_MS, TICKET_TTL_MS, type ConsoleAttachData } from '../../common/api/contract';
import { failsWith, labYaml, startTestAgent, TEST_USER, type TestAgent } from '../support/agent';

let agent: TestAgent;

before(async () => {
  agent = await startTestAgent();
});
after(() => agent.stop());

/** A reauthenticate hook that logs in with a separate client and counts its calls. */
function countingReauth(result: 'login' | 'give-up' | 'bogus' = 'login'): {
  hook: () => Promise<string | undefined>;
  calls: () => number;
} {
  let calls = 0;
  const loginClient = agent.client();
  return {
    calls: () => calls,
    hook: async () => {
      calls++;
      if (result === 'give-up') return undefined;
      if (result === 'bogus') return 'e'.repeat(64);
      // Slow enough that concurrent failures really do overlap with it.
      await new Promise((r) => setTimeout(r, 20));
      return (await loginClient.login(TEST_USER)).token;
    },
  };
}

async function expiredClient(hook?: () => Promise<string | undefined>): Promise<AgentClient> {
  const client = agent.client({}, { reauthenticate: hook });
  await client.login(TEST_USER);
  agent.clock.advance(SESSION_IDLE_MS + 1000);
  return client;
}

test('a read-style call after session expiry re-authenticates once and succeeds', async () => {
  const reauth = countingReauth();
  const client = await expiredClient(reauth.hook);
  const stale = client.token;
  assert.equal((await client.getSession()).username, 'lab');
  assert.equal(reauth.calls(), 1);
  assert.notEqual(client.token, stale, 'the client uses the new token from now on');
  assert.equal((await client.listIcons()).icons?.length !== 0, true);
  assert.equal(reauth.calls(), 1);
});

test('concurrent read-style calls that fail together share one re-authentication', async () => {
  const reauth = countingReauth();
  const client = await expiredClient(reauth.hook);
  const results = await Promise.all([
    client.getSession(),
    client.getCapabilities(),
    client.listTemplates(),
    client.listNetworkTypes(),
    client.listIcons(),
  ]);
  assert.equal(results.length, 5);
  assert.equal(reauth.calls(), 1);
});

test('an unknown token (agent restarted, logged out) is retried the same way', async () => {
  const reauth = countingReauth();
  const client = agent.client({ token: 'd'.repeat(64) }, { reauthenticate: reauth.hook });
  assert.equal((await client.getCapabilities()).emuReachable, true);
  assert.equal(reauth.calls(), 1);
});

test('calls that are not read-style are never retried', async () => {
  const reauth = countingReauth();
  const client = await expiredClient(reauth.hook);
  const yaml = labYaml('noretry');
  await failsWith(client.deployProject({ yaml }), 'expired_agent_session');
  await failsWith(client.execProject({ yaml, action: 'start' }), 'expired_agent_session');
  await failsWith(client.attachConsole({ yaml, node: 'r1' }), 'expired_agent_session');
  await failsWith(client.logout(), 'expired_agent_session');
  assert.equal(reauth.calls(), 0);
});

test('the retry happens once: a fresh token that fails again is not chased', async () => {
  const reauth = countingReauth('bogus');
  const client = await expiredClient(reauth.hook);
  await failsWith(client.getSession(), 'unauthenticated');
  assert.equal(reauth.calls(), 1);
});

test('a hook that gives up leaves the original error', async () => {
  const reauth = countingReauth('give-up');
  const client = await expiredClient(reauth.hook);
  await failsWith(client.getCapabilities(), 'expired_agent_session');
  assert.equal(reauth.calls(), 1);
});

test('without a hook nothing is retried', async () => {
  const client = await expiredClient();
  await failsWith(client.getSession(), 'expired_agent_session');
});

test('the empty token sends no Authorization header; a malformed one is refused before sending', async () => {
  const client = agent.client({ token: '' });
  const err = await failsWith(client.getSession(), 'unauthenticated');
  assert.equal(err.status, 401, 'the agent answered');
  client.token = 'secret token\nwith a newline';
  const local = await failsWith(client.getSession(), 'unauthenticated');
  assert.equal(local.status, undefined, 'refused by the client');
  assert.ok(!local.message.includes('secret token'));
});

// ---------------------------------------------------------------- console tickets

/**
 * Runs `use` with a deployed lab whose r1 runs, and destroys the lab after it: on an emulator where
 * the labs of one account share node console ports (EVE-NG's pod), a lab left running would keep
 * the next test's r1 from starting.
 */
async function withRunningLab(
  client: AgentClient,
  name: string,
  use: (lab: { yaml: string; state: unknown }) => Promise<void>,
): Promise<void> {
  const yaml = labYaml(name);
  const { state } = await client.deployProject({ yaml });
  try {
    await client.execProject({ yaml, state, action: 'start', node: 'r1' });
    let running = false;
    for (let i = 0; i < 200 && !running; i++) {
      const status = await client.getProjectStatus({ yaml, state });
      running = status.nodes?.find((n) => n.name === 'r1')?.state === 'running';
      if (!running) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(running, 'r1 did not boot');
    await use({ yaml, state });
  } finally {
    await client.destroyProject({ yaml, state });
  }
}

/** The ticket of an attach that must have one. */
function ticketFrom(attach: ConsoleAttachData): string {
  const ticket = ticketOf(attach);
  assert.ok(ticket, 'the attach carries a ticket');
  return ticket;
}

test('a ticket is used once: the second stream with it is browser_token_invalid', async () => {
  const client = await agent.loggedIn();
  await withRunningLab(client, 'ticketonce', async ({ yaml, state }) => {
    const ticket = ticketFrom(await client.attachConsole({ yaml, state, node: 'r1' }));
    const socket = await client.streamConsole({ ticket });
    socket.destroy();
    const err = await failsWith(client.streamConsole({ ticket }), 'browser_token_invalid');
    assert.equal(err.status, 403);
  });
});

test('a ticket expires after 30 seconds', async () => {
  const client = await agent.loggedIn();
  await withRunningLab(client, 'ticketexpiry', async ({ yaml, state }) => {
    const ticket = ticketFrom(await client.attachConsole({ yaml, state, node: 'r1' }));
    agent.clock.advance(TICKET_TTL_MS + 1);
    await failsWith(client.streamConsole({ ticket }), 'browser_token_invalid');
    const fresh = ticketFrom(await client.attachConsole({ yaml, state, node: 'r1' }));
    agent.clock.advance(TICKET_TTL_MS - 1000);
    (await client.streamConsole({ ticket: fresh })).destroy();
  });
});

test('a ticket works only with the token of the session that attached it', async () => {
  const owner = await agent.loggedIn();
  const other = await agent.loggedIn();
  await withRunningLab(owner, 'ticketowner', async ({ yaml, state }) => {
    const ticket = ticketFrom(await owner.attachConsole({ yaml, state, node: 'r1' }));
    await failsWith(other.streamConsole({ ticket }), 'browser_token_invalid');
  });
});
