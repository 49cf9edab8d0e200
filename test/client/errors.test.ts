import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentError } from '../../common/api/errors';
import { describeError } from '../../client/model/errors';

test('session codes ask for a new login', () => {
  for (const code of ['unauthenticated', 'expired_agent_session', 'expired_emu_session']) {
    const d = describeError(new AgentError(code, 'whatever the agent said', 'getCapabilities', 401));
    assert.equal(d.kind, 'session', code);
    assert.match(d.message, /Log in again|log in again|Log in/i);
  }
});

test('an abort is a silent cancellation', () => {
  assert.equal(describeError(new AgentError('aborted', 'aborted', 'deployProject')).kind, 'cancelled');
  const abort = new Error('The operation was aborted');
  abort.name = 'AbortError';
  assert.equal(describeError(abort).kind, 'cancelled');
});

test('codes decide the message, not the agent text', () => {
  const d = describeError(new AgentError('lab_locked_mid_apply', 'locked: apply 3 of 7', 'deployProject', 423));
  assert.equal(d.kind, 'other');
  assert.match(d.message, /Push the document \(Apply This Plan\) to finish it, or destroy the lab/);
  assert.match(describeError(new AgentError('node_not_running', 'x', 'execConsole', 409)).message, /Start it/);
  assert.match(describeError(new AgentError('plan_stale', 'x', 'reconcileProject', 409)).message, /Plan again/);
});

test('codes whose agent text names the culprit keep it as detail', () => {
  const d = describeError(
    new AgentError('operation_not_allowed', 'node r3: template asav is not provisioned', 'deployProject', 403),
  );
  assert.equal(d.message, 'The agent refused the operation. node r3: template asav is not provisioned.');
});

test('client-side transport messages are used as they are; trust codes are marked', () => {
  const unreachable = describeError(
    new AgentError(
      'agent_unreachable',
      'Cannot reach the agent (ECONNREFUSED). Is the agent running at https://127.0.0.1:8787?',
      'login',
    ),
  );
  assert.equal(
    unreachable.message,
    'Cannot reach the agent (ECONNREFUSED). Is the agent running at https://127.0.0.1:8787?',
  );
  assert.equal(describeError(new AgentError('tls_pin_mismatch', 'pin differs', 'login')).kind, 'trust');
});

test('unknown codes keep the text and show the code; plain errors show their message', () => {
  assert.equal(
    describeError(new AgentError('brand_new_code', 'Something new.', 'getHealth', 500)).message,
    'Something new. (brand_new_code)',
  );
  assert.deepEqual(describeError(new Error('Cannot read the lab file')), {
    kind: 'other',
    message: 'Cannot read the lab file',
  });
  assert.equal(describeError('just a string').message, 'just a string');
  assert.equal(describeError(undefined).message, 'undefined');
});
