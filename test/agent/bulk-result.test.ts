import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestAgent, type TestAgent } from '../support/agent';
import { emptyBulkResult } from '../../common/api/contract';

const BOOT_MS = 1000;
let agent: TestAgent;
let token: string;
let now = Date.parse('2026-02-01T08:00:00Z');

before(async () => {
  agent = await startTestAgent({ clock: () => now, bootMs: BOOT_MS });
  token = await agent.login();
  for (const lab of ['/examples/campus.unl', '/examples/dc-fabric.unl']) {
    assert.equal((await agent.call('POST', '/api/v1/projects/import', { lab }, token)).status, 200);
  }
});
after(() => agent.stop());

const CAMPUS = '/lab-agent/imported/campus.unl';

async function exec(body: Record<string, unknown>) {
  const reply = await agent.call('POST', '/api/v1/projects/exec', body, token);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.data;
}

const zero = emptyBulkResult();

test('start, start again while booting, and once booted: started, already_starting, already_running', async () => {
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'start' }), { ...zero, requested: 5, started: 5 });
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'start' }), { ...zero, requested: 5, already_starting: 5 });
  now += BOOT_MS;
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'start', node: 'edge' }), {
    ...zero,
    requested: 1,
    already_running: 1,
  });
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'start', node: '' }), {
    ...zero,
    requested: 5,
    already_running: 5,
  });
});

test('stop one node, then all: stopped and already_stopped counted per node (stopmode defaults to 3)', async () => {
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'stop', node: 'server' }), { ...zero, requested: 1, stopped: 1 });
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'stop', node: 'server', stopmode: 0 }), {
    ...zero,
    requested: 1,
    already_stopped: 1,
  });
  now += BOOT_MS;
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'stop', stopmode: 1 }), {
    ...zero,
    requested: 5,
    stopped: 4,
    already_stopped: 1,
  });
  const status = await agent.call('POST', '/api/v1/projects/status', { lab: CAMPUS }, token);
  assert.equal(status.body.data.state, 'stopped');
});

test('a mix: some running, some starting, some stopped', async () => {
  await exec({ lab: CAMPUS, action: 'start', node: 'edge' });
  now += BOOT_MS;
  await exec({ lab: CAMPUS, action: 'start', node: 'pc' });
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'start' }), {
    ...zero,
    requested: 5,
    started: 3,
    already_running: 1,
    already_starting: 1,
  });
  const status = await agent.call('POST', '/api/v1/projects/status', { lab: CAMPUS }, token);
  assert.equal(status.body.data.state, 'partial');
  now += BOOT_MS;
  assert.equal(
    (await agent.call('POST', '/api/v1/projects/status', { lab: CAMPUS }, token)).body.data.state,
    'running',
  );
});

test('wipe counts every node it wipes, running or not', async () => {
  await exec({ lab: CAMPUS, action: 'stop', node: 'pc', stopmode: 1 });
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'wipe' }), { ...zero, requested: 5, wiped: 5 });
  assert.equal(
    (await agent.call('POST', '/api/v1/projects/status', { lab: CAMPUS }, token)).body.data.state,
    'stopped',
  );
});

test('a named node that does not exist counts as invalid; the emulator refusing a node counts as failed', async () => {
  assert.deepEqual(await exec({ lab: CAMPUS, action: 'stop', node: 'ghost' }), { ...zero, requested: 1, invalid: 1 });
  // dc-fabric: two NX-OSv nodes (template not provisioned) and a Linux host.
  assert.deepEqual(await exec({ lab: '/lab-agent/imported/dc-fabric.unl', action: 'start' }), {
    ...zero,
    requested: 3,
    started: 1,
    failed: 2,
  });
  const named = await agent.call(
    'POST',
    '/api/v1/projects/exec',
    { lab: '/lab-agent/imported/dc-fabric.unl', action: 'start', node: 'spine1' },
    token,
  );
  assert.equal(named.status, 403);
  assert.equal(named.body.code, 'operation_not_allowed');
});

test('bad actions and stop modes are 400 invalid_request; a missing lab is 404 lab_not_found', async () => {
  for (const body of [
    { lab: CAMPUS },
    { lab: CAMPUS, action: 'reboot' },
    { lab: CAMPUS, action: 'stop', stopmode: 4 },
    { lab: CAMPUS, action: 'stop', stopmode: '1' },
  ]) {
    const reply = await agent.call('POST', '/api/v1/projects/exec', body, token);
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.equal(reply.body.code, 'invalid_request', JSON.stringify(body));
  }
  const missing = await agent.call(
    'POST',
    '/api/v1/projects/exec',
    { lab: '/lab-agent/nowhere.unl', action: 'start' },
    token,
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'lab_not_found');
});
