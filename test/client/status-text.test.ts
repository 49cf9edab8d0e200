import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentStatusView, statusView } from '../../client/model/status-text';

test('logged out invites to log in', () => {
  const v = statusView({ state: 'loggedOut' }, undefined);
  assert.equal(v.text, '$(debug-disconnect) Lab Agent: Log In');
  assert.equal(v.tone, 'normal');
});

test('connected shows user, host and version; an unreachable emulator is a warning', () => {
  const ok = statusView(
    { state: 'connected', baseUrl: 'https://127.0.0.1:8787', username: 'lab', version: '1.2.0', emuReachable: true },
    { state: 'connected' },
  );
  assert.equal(ok.text, '$(vm-connect) lab@127.0.0.1:8787 v1.2.0');
  assert.equal(ok.tone, 'normal');
  assert.match(ok.tooltip, /The emulator is reachable/);
  assert.doesNotMatch(ok.tooltip, /Emulator:/, 'no emulator line when the agent does not say');
  const linux = statusView(
    { state: 'connected', baseUrl: 'https://a:1', capabilities: { emuDescription: 'Linux network namespaces (FRR)' } },
    undefined,
  );
  assert.match(linux.tooltip, /^Emulator: Linux network namespaces \(FRR\)$/m);
  const down = statusView(
    { state: 'connected', baseUrl: 'https://127.0.0.1:8787', username: 'lab', emuReachable: false },
    undefined,
  );
  assert.match(down.text, /emulator down/);
  assert.equal(down.tone, 'warning');
});

test('a language server error shows in the tooltip and colours the item', () => {
  const v = statusView(
    { state: 'connected', baseUrl: 'https://a:1', emuReachable: true },
    { state: 'error', message: 'session expired' },
  );
  assert.match(v.tooltip, /Editor features: session expired/);
  assert.equal(v.tone, 'warning');
});

test('expired, unreachable and error states say what to do', () => {
  assert.match(statusView({ state: 'expired' }, undefined).tooltip, /password again/);
  assert.match(statusView({ state: 'unreachable', baseUrl: 'https://a:8787' }, undefined).text, /a:8787 unreachable/);
  assert.equal(statusView({ state: 'error', problem: 'pin mismatch' }, undefined).tone, 'error');
});

test('with several agents, the status names the active agent and why; an unconfigured one is an error', () => {
  const base = statusView({ state: 'connected', baseUrl: 'https://10.0.0.2:8787', username: 'me' }, undefined);
  const named = agentStatusView(base, 'eve', "the folder's setting labAgent.agent");
  assert.equal(named.text, `$(vm-connect) eve · ${base.text.slice('$(vm-connect) '.length)}`);
  assert.match(named.tooltip, /^Agent "eve" \(the folder's setting labAgent.agent\)\nConnected to/);
  assert.equal(named.tone, base.tone);
  const missing = agentStatusView(undefined, 'lab-2', 'chosen for this lab file', 'not configured: add it');
  assert.equal(missing.text, '$(error) lab-2: not configured');
  assert.equal(missing.tone, 'error');
  assert.match(missing.tooltip, /not configured: add it/);
});
