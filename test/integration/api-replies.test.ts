/**
 * Replies of the wrong shape, from a fake HTTPS agent: each becomes one
 * `invalid_response` naming the operation and the field, never data that
 * throws later inside a feature. What the contract allows (extra properties,
 * absent or null optional fields) still passes. Error codes and messages from
 * the agent arrive bounded.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentClient } from '../../common/api/client';
import { OPERATIONS, type OperationId } from '../../common/api/contract';
import { failsWith } from '../support/agent';
import type { JsonOperationId } from '../../common/api/operations';
import { fakeAgent, fakeCertificate, json, type FakeCertificate } from '../support/fake-agent';

let certificate: FakeCertificate;

before(async () => {
  certificate = await fakeCertificate();
});

/** Calls `op` with a request good enough to be sent (the fake does not read it). */
function call(client: AgentClient, op: JsonOperationId): Promise<unknown> {
  const request: Record<string, unknown> = { id: 't', lab: '/x.unl', action: 'start', yaml: 'name: x\n' };
  return (client as unknown as Record<string, (request: unknown) => Promise<unknown>>)[op](request);
}

const JSON_OPERATIONS = (Object.keys(OPERATIONS) as OperationId[]).filter(
  (op): op is JsonOperationId => op !== 'streamConsole' && op !== 'streamCapture' && op !== 'streamCaptureSummaries',
);

test('every operation refuses data that is not an object: 5, null, a string, an array', async (t) => {
  for (const data of [5, null, 'x', [1]]) {
    const fake = await fakeAgent(t, certificate, json(200, { ok: true, data }));
    const client = fake.client();
    for (const op of JSON_OPERATIONS) {
      const err = await failsWith(call(client, op), 'invalid_response');
      assert.equal(err.operationId, op);
      assert.equal(err.status, 200);
      assert.match(
        err.message,
        new RegExp(`^${op}: .*its data is (number|null|string|an array), expected an object`),
        err.message,
      );
    }
  }
});

test('a wrong field becomes invalid_response naming the field and what was expected', async (t) => {
  const cases: [JsonOperationId, unknown, RegExp][] = [
    ['listTemplates', { templates: 'x' }, /data\.templates is string, expected Array/],
    ['listTemplates', { templates: [{ id: 'vios' }, 5] }, /data\.templates\.1 is number, expected an object/],
    ['listTemplates', { templates: [{ id: 5 }] }, /data\.templates\.0\.id is number, expected string/],
    ['completeLinkInterfaces', { items: {} }, /data\.items is object, expected Array/],
    ['completeLinkInterfaces', { items: [{ name: 'Gi0/1', index: '1' }] }, /data\.items\.0\.index is string/],
    ['getCapabilities', { features: { console_stream: 'yes' } }, /data\.features\.console_stream is string/],
    ['getCapabilities', { projectModes: { managed: { lifecycle: 1 } } }, /projectModes\.managed\.lifecycle/],
    ['validateProject', {}, /data\.status is missing/],
    ['validateProject', { status: 'invalid', diagnostics: [{ path: [{}] }] }, /data\.diagnostics\.0\.path\.0/],
    ['validateProject', { status: 'invalid', diagnostics: [{ severity: 'fatal' }] }, /severity is string/],
    ['planProject', { summary: 'x' }, /data\.summary is string/],
    ['planProject', { actions: [{ op: 'explode' }] }, /data\.actions\.0\.op/],
    ['getProjectStatus', { nodes: [{ name: 'r1', state: 2 }] }, /data\.nodes\.0\.state is number/],
    ['execProject', { requested: 1 }, /data\.started is missing/],
    ['listIcons', { icons: [{ label: 'Router' }] }, /data\.icons\.0\.id is missing/],
    ['login', { token: 5 }, /data\.token is number, expected string/],
    ['reconcileProject', { files: { 'r1.cfg': 1 } }, /data\.files\.r1\.cfg is number/],
    ['execConsoleMany', { results: [{ ok: 'true' }] }, /data\.results\.0\.ok is string, expected boolean/],
  ];
  for (const [op, data, message] of cases) {
    const fake = await fakeAgent(t, certificate, json(200, { ok: true, data }));
    const err = await failsWith(call(fake.client(), op), 'invalid_response');
    assert.match(err.message, message, `${op} ${JSON.stringify(data)}`);
    assert.match(err.message, /Check that the agent implements API v1\./);
  }
});

test('a login reply with a bad token leaves the client without one', async (t) => {
  const fake = await fakeAgent(t, certificate, json(200, { ok: true, data: { token: { t: 1 } } }));
  const client = fake.client('');
  await failsWith(client.login({ username: 'lab', password: 'lab' }), 'invalid_response');
  assert.equal(client.token, '');
});

test('extra properties are kept; absent and null optional fields are absent', async (t) => {
  const fake = await fakeAgent(
    t,
    certificate,
    json(200, {
      ok: true,
      data: { templates: [{ id: 'vios', description: null, vendor: 'cisco' }], unsupported: null, page: 1 },
    }),
  );
  const reply = await fake.client().listTemplates();
  assert.deepEqual(reply, {
    templates: [{ id: 'vios', description: undefined, vendor: 'cisco' }],
    unsupported: null,
    page: 1,
  });
  assert.equal(reply.templates?.[0].description, undefined);

  const nulls = await fakeAgent(t, certificate, json(200, { ok: true, data: { lab: null, unsupported: null } }));
  const plan = await nulls.client().planProject({ yaml: 'name: x\n' });
  assert.equal(plan.lab, undefined);
  assert.equal(plan.unsupported, undefined);

  const none = await fakeAgent(t, certificate, json(200, { ok: true }));
  assert.deepEqual(await none.client().getSession(), {});
});

test('an error code that is not a short identifier is unspecified_error; a huge message is bounded', async (t) => {
  const huge = 'E'.repeat(100_000);
  const fake = await fakeAgent(t, certificate, json(409, { ok: false, code: huge, error: `bad\u0007\u202e ${huge}` }));
  const err = await failsWith(fake.client().planProject({ yaml: 'name: x\n' }), 'unspecified_error');
  assert.equal(err.status, 409);
  assert.ok(err.message.length <= 2100, `message of ${err.message.length} chars`);
  assert.ok(err.message.endsWith('…'));
  assert.ok(
    !err.message.includes('\u0007') && !err.message.includes('\u202e'),
    'control and bidi characters are removed',
  );

  for (const code of ['has space', 'x'.repeat(65), '\u0000null', '']) {
    const odd = await fakeAgent(t, certificate, json(400, { ok: false, code, error: 'refused' }));
    await failsWith(odd.client().getSession(), 'unspecified_error');
  }
  const fine = await fakeAgent(t, certificate, json(400, { ok: false, code: 'lab_busy', error: 'busy' }));
  await failsWith(fine.client().getSession(), 'lab_busy');
});
