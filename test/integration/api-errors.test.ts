/**
 * Every error code the reference agent sends (decisions §2), each raised by a
 * real situation, arriving at the client as AgentError with code, status and
 * operation. The client-side codes are covered in api-tls and api-transport.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AgentError, type AgentClient } from '../../common/api/client';
import { STATUS_OF_CODE } from '../../common/api/contract';
import { labYaml, NO_LAB_LOCK, startTestAgent, TEST_USER, type TestAgent, withTestAgent } from '../support/agent';

let agent: TestAgent;
let client: AgentClient;

before(async () => {
  agent = await startTestAgent();
  client = await agent.loggedIn();
});
after(() => agent.stop());

/** Awaits a call that must fail, and checks its code, the agreed status and the operation. */
function assertAgentError(err: unknown, code: string, operationId: string): AgentError {
  assert.ok(err instanceof AgentError, `expected an AgentError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, STATUS_OF_CODE[code], `status of ${code}`);
  assert.equal(err.operationId, operationId);
  assert.ok(err.message.length > 0);
  return err;
}

async function rejectsWith(call: Promise<unknown>, code: string, operationId: string): Promise<AgentError> {
  try {
    await call;
  } catch (err) {
    return assertAgentError(err, code, operationId);
  }
  assert.fail(`${operationId} should have failed with ${code}`);
}

test('unauthenticated: no token, an unknown token, a logged-out token', async () => {
  const anonymous = agent.client();
  await rejectsWith(anonymous.getSession(), 'unauthenticated', 'getSession');
  const unknown = agent.client({ token: 'f'.repeat(64) });
  await rejectsWith(unknown.listIcons(), 'unauthenticated', 'listIcons');
  const leaving = await agent.loggedIn();
  const token = leaving.token;
  await leaving.logout();
  leaving.token = token;
  await rejectsWith(leaving.getSession(), 'unauthenticated', 'getSession');
});

test('invalid_credentials: a wrong password, with the password nowhere in the message', async () => {
  const err = await rejectsWith(
    agent.client().login({ username: 'lab', password: 'wrong-secret-pw' }),
    'invalid_credentials',
    'login',
  );
  assert.ok(!err.message.includes('wrong-secret-pw'));
});

test('invalid_request: an unknown login field, a non-empty dir, an unknown action', async () => {
  await rejectsWith(agent.client().login({ ...TEST_USER, extra: 1 } as typeof TEST_USER), 'invalid_request', 'login');
  await rejectsWith(client.validateProject({ yaml: labYaml('x'), dir: '/tmp' }), 'invalid_request', 'validateProject');
  await rejectsWith(
    client.execProject({ lab: '/examples/campus.unl', action: 'reboot' as 'start' }),
    'invalid_request',
    'execProject',
  );
});

test('invalid_json: a body that is not a JSON object', async () => {
  await rejectsWith(client.validateProject([] as never), 'invalid_json', 'validateProject');
});

test('not_found: an unknown template', async () => {
  await rejectsWith(client.getTemplate({ id: 'no-such-template' }), 'not_found', 'getTemplate');
});

test('invalid_direction: a direction other than to_emu / from_emu', async () => {
  for (const direction of ['push', 'auto', 'both']) {
    await rejectsWith(client.planProject({ yaml: labYaml('dir'), direction }), 'invalid_direction', 'planProject');
  }
});

test('plan_stale: a plan identity that is not the current plan', async () => {
  const yaml = labYaml('stale');
  const plan = await client.planProject({ yaml });
  await rejectsWith(client.planProject({ yaml, plan_identity: `${plan.plan_identity}x` }), 'plan_stale', 'planProject');
  // A from_emu identity is not valid for to_emu.
  const other = await client.planProject({ yaml, direction: 'from_emu' });
  await rejectsWith(client.planProject({ yaml, plan_identity: other.plan_identity }), 'plan_stale', 'planProject');
});

test('invalid_lab: plan of a document that does not validate', async () => {
  await rejectsWith(
    client.planProject({ yaml: 'name: bad\nnodes:\n  r1:\n    template: no-such-template\n' }),
    'invalid_lab',
    'planProject',
  );
});

test('lab_exists: deploying onto an existing managed lab without replace', async () => {
  const yaml = labYaml('exists');
  await client.deployProject({ yaml });
  await rejectsWith(client.deployProject({ yaml }), 'lab_exists', 'deployProject');
  const replaced = await client.deployProject({ yaml, replace: true });
  assert.equal(replaced.nodes, 3);
});

test('operation_not_allowed: a plan with an unprovisioned template; importing a managed lab', async () => {
  const yaml = labYaml('blocked', '  xr1:\n    template: xrv9k');
  await rejectsWith(client.deployProject({ yaml }), 'operation_not_allowed', 'deployProject');
  await client.deployProject({ yaml: labYaml('managed') });
  await rejectsWith(client.importProject({ lab: '/lab-agent/managed.unl' }), 'operation_not_allowed', 'importProject');
});

test('lab_locked: changing a lab its owner locked', async (t) => {
  if (!agent.emulatorLocksLabs) {
    t.skip(NO_LAB_LOCK);
    return;
  }
  await rejectsWith(client.execProject({ lab: '/examples/locked.unl', action: 'start' }), 'lab_locked', 'execProject');
  await rejectsWith(client.importProject({ lab: '/examples/locked.unl' }), 'lab_locked', 'importProject');
});

test('lab_not_found: exec and consoles on a lab that does not exist', async () => {
  await rejectsWith(
    client.execProject({ lab: '/lab-agent/absent.unl', action: 'stop' }),
    'lab_not_found',
    'execProject',
  );
  await rejectsWith(
    client.listProjectConsoles({ lab: '/lab-agent/absent.unl' }),
    'lab_not_found',
    'listProjectConsoles',
  );
});

test('node_not_found and node_not_running: console calls on a missing or stopped node', async () => {
  const yaml = labYaml('consoles');
  const { state } = await client.deployProject({ yaml });
  await rejectsWith(
    client.execConsole({ yaml, state, node: 'nope', command: 'show version' }),
    'node_not_found',
    'execConsole',
  );
  await rejectsWith(client.attachConsole({ yaml, state, node: 'r1' }), 'node_not_running', 'attachConsole');
});

test('browser_token_invalid: a stream ticket nobody issued', async () => {
  await rejectsWith(client.streamConsole({ ticket: 'a'.repeat(64) }), 'browser_token_invalid', 'streamConsole');
  await rejectsWith(client.streamConsole({ ticket: 'not-a-ticket' }), 'browser_token_invalid', 'streamConsole');
});

test('lab_busy: a second long operation on a lab while the first is in flight', async () => {
  await withTestAgent({ writeDelayMs: 40 }, async (slow) => {
    const user = await slow.loggedIn();
    const yaml = labYaml('busy');
    const outcomes = await Promise.allSettled([user.deployProject({ yaml }), user.deployProject({ yaml })]);
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(failures.length, 1, 'exactly one deploy must be refused');
    assertAgentError(failures[0].reason, 'lab_busy', 'deployProject');
  });
});

test('lab_locked_mid_apply: an apply cut short by an agent stop refuses exec and pull until a push finishes it', async () => {
  // Slow writes, so that even on a loaded machine the agent stops while the deploy is still writing.
  const first = await startTestAgent({ writeDelayMs: 1000 });
  const yaml = labYaml('midapply');
  try {
    const user = await first.loggedIn();
    // Logged in first: a login (scrypt) can take longer than the whole deploy.
    const watcher = await first.loggedIn();
    const deploying = user.deployProject({ yaml }).catch((err: unknown) => err);
    for (let i = 0; i < 2000 && !(await watcher.getProjectStatus({ yaml })).exists; i++)
      await new Promise((r) => setTimeout(r, 5));
    // close() lets the deploy stop between two emulator calls and answer before connections close.
    await first.close();
    const cut = await deploying;
    assert.ok(cut instanceof AgentError && cut.code === 'agent_stopping', `the cut deploy failed with ${String(cut)}`);
    assert.equal(cut.status, 503);

    await withTestAgent({ dataDir: first.dataDir }, async (second) => {
      const again = await second.loggedIn();
      await rejectsWith(again.execProject({ yaml, action: 'start' }), 'lab_locked_mid_apply', 'execProject');
      await rejectsWith(
        again.reconcileProject({ yaml, direction: 'from_emu' }),
        'lab_locked_mid_apply',
        'reconcileProject',
      );
      await again.reconcileProject({ yaml });
      assert.equal((await again.getProjectStatus({ yaml })).total, 3);
    });
  } finally {
    await first.stop();
  }
});

test('expired_emu_session: the emulator session ends after an hour idle, under a live agent session', async () => {
  await withTestAgent({}, async (timed) => {
    const user = await timed.loggedIn();
    timed.expireEmulatorSession();
    await rejectsWith(user.getCapabilities(), 'expired_emu_session', 'getCapabilities');
  });
});

test('expired_agent_session: the agent session ends after 8 hours idle', async () => {
  await withTestAgent({}, async (timed) => {
    const user = await timed.loggedIn();
    timed.clock.advance(8 * 60 * 60 * 1000 + 1);
    await rejectsWith(user.getSession(), 'expired_agent_session', 'getSession');
  });
});
