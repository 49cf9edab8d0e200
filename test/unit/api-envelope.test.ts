import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, safeExcerpt } from '../../common/api/envelope';
import { AgentError } from '../../common/api/errors';

const body = (text: string): Buffer => Buffer.from(text, 'utf8');

function failure(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AgentError, `expected an AgentError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a failure');
}

test('a success envelope yields its data, extra properties included', () => {
  const data = decodeEnvelope('getHealth', 200, body('{"ok":true,"data":{"status":"ok","future":1},"extra":true}'));
  assert.deepEqual(data, { status: 'ok', future: 1 });
});

test('a success envelope without data yields an empty object', () => {
  assert.deepEqual(decodeEnvelope('logout', 200, body('{"ok":true}')), {});
});

test('a failure envelope becomes an AgentError with code, status and operation', () => {
  const err = failure(() =>
    decodeEnvelope('planProject', 409, body('{"ok":false,"error":"the plan changed","code":"plan_stale"}')),
  );
  assert.equal(err.code, 'plan_stale');
  assert.equal(err.status, 409);
  assert.equal(err.operationId, 'planProject');
  assert.match(err.message, /planProject: the plan changed/);
});

test('a failure envelope without a code gets the unspecified code and keeps the status', () => {
  const err = failure(() => decodeEnvelope('getSession', 500, body('{"ok":false,"error":"boom"}')));
  assert.equal(err.code, 'unspecified_error');
  assert.equal(err.status, 500);
});

const notEnvelopes: [string, number, string, RegExp][] = [
  [
    'an HTML page from a proxy',
    502,
    '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
    /HTTP 502\) is not JSON: "<html><head><title>502 Bad Gateway/,
  ],
  ['truncated JSON', 200, '{"ok":true,"data":{"sta', /HTTP 200\) is not JSON: "\{"ok":true,"data":\{"sta"/],
  ['an empty body', 200, '', /HTTP 200\) is empty/],
  ['whitespace only', 204, ' \n', /HTTP 204\) is empty/],
  ['a JSON array', 200, '[1,2]', /not an API envelope/],
  ['JSON null', 200, 'null', /not an API envelope/],
  ['an object without ok', 200, '{"status":"ok"}', /not an API envelope/],
  ['ok as a string', 200, '{"ok":"true"}', /not an API envelope/],
  ['success with an error status', 500, '{"ok":true,"data":{}}', /claims success with an error status/],
];
for (const [what, status, text, message] of notEnvelopes) {
  test(`${what} is invalid_response with the status and an excerpt`, () => {
    const err = failure(() => decodeEnvelope('listIcons', status, body(text)));
    assert.equal(err.code, 'invalid_response');
    assert.equal(err.status, status);
    assert.equal(err.operationId, 'listIcons');
    assert.match(err.message, message);
  });
}

test('the excerpt is one short line, and the token is masked wherever it appears', () => {
  const token = 'a'.repeat(64);
  const err = failure(() =>
    decodeEnvelope(
      'getSession',
      401,
      body(`<pre>Authorization: Bearer ${token}\n\u0007${'x'.repeat(5000)}</pre>`),
      token,
    ),
  );
  assert.ok(!err.message.includes(token));
  assert.match(err.message, /Bearer \*\*\*/);
  assert.ok(!err.message.includes('\n') && !err.message.includes('\u0007'));
  assert.ok(err.message.length < 400, `message is ${err.message.length} characters`);
  const failed = failure(() =>
    decodeEnvelope(
      'getSession',
      401,
      body(JSON.stringify({ ok: false, code: 'unauthenticated', error: `bad token ${token}` })),
      token,
    ),
  );
  assert.ok(!failed.message.includes(token));
});

test('safeExcerpt keeps short printable text as it is', () => {
  assert.equal(safeExcerpt('Service Unavailable'), 'Service Unavailable');
});
