import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  initialState,
  MAX_PROBE_MS,
  probeDelayMs,
  transition,
  type MachineState,
  type SessionEvent,
} from '../../client/connection/session-machine';

const URL = 'https://127.0.0.1:8787';

/** Runs events in order; returns the final state and every effect, in order. */
function run(events: SessionEvent[], from: MachineState = initialState) {
  let state = from;
  const effects: string[] = [];
  for (const event of events) {
    const next = transition(state, event);
    state = next.state;
    effects.push(...next.effects.map((e) => (e.type === 'probe' ? `probe ${e.afterMs}` : e.type)));
  }
  return { state, effects };
}

/** A log-in that succeeds: connecting, then connected. */
function logIn(baseUrl: string, username: string, pin?: string): SessionEvent[] {
  return [
    { type: 'connecting', baseUrl, username },
    { type: 'connected', baseUrl, username, ...(pin === undefined ? {} : { pin }) },
  ];
}

const connected = logIn(URL, 'lab', 'AA');
const unreachable: SessionEvent = { type: 'callFailed', code: 'agent_unreachable', message: 'Cannot reach the agent' };
const expired: SessionEvent = { type: 'callFailed', code: 'unauthenticated', message: 'Log in again.' };
/** The agent goes away and the first probe finds it still away. */
const stillAway: SessionEvent[] = [unreachable, { type: 'probeFailed', message: 'still away' }];

test('log-in: connecting, then connected, and the rest of the extension is brought up to date', () => {
  const { state, effects } = run(connected);
  assert.equal(state.info.state, 'connected');
  assert.equal(state.info.username, 'lab');
  assert.equal(state.info.pin, 'AA');
  assert.deepEqual(effects, ['resync']);
});

test('restore with a refused token: expired with user and agent known, and the user is told once', () => {
  const { state, effects } = run([
    { type: 'connecting', baseUrl: URL, username: 'lab' },
    { type: 'restoredExpired', baseUrl: URL, username: 'lab', message: 'Your session expired.' },
    expired,
  ]);
  assert.equal(state.info.state, 'expired');
  assert.equal(state.info.username, 'lab');
  assert.equal(state.info.baseUrl, URL);
  assert.deepEqual(effects, ['sessionLost']);
});

test('restore with nothing answering: unreachable, probing', () => {
  const { state, effects } = run([
    { type: 'connecting', baseUrl: URL, username: 'lab' },
    { type: 'restoredUnreachable', baseUrl: URL, username: 'lab', message: 'down' },
  ]);
  assert.equal(state.info.state, 'unreachable');
  assert.deepEqual(effects, ['probe 1000']);
});

test('expiry: every report of the same loss (commands, views, language server) asks once', () => {
  const { state, effects } = run([...connected, expired, expired, { ...expired, code: 'expired_agent_session' }]);
  assert.equal(state.info.state, 'expired');
  assert.equal(state.info.problem, 'Log in again.');
  assert.deepEqual(effects, ['resync', 'sessionLost']);
});

test('re-authentication: connected again, with a resync, and a later loss is told again', () => {
  const { state, effects } = run([...connected, expired, ...connected.slice(1), expired]);
  assert.equal(state.info.state, 'expired');
  assert.deepEqual(effects, ['resync', 'sessionLost', 'resync', 'sessionLost']);
});

test('re-authentication keeps what is known about the same agent until it is read again', () => {
  const caps = { emuReachable: true, emuBaseUrl: 'https://emu' };
  const { state } = run([
    ...connected,
    { type: 'agentInfo', capabilities: caps, version: '0.1.0' },
    expired,
    connected[1],
  ]);
  assert.equal(state.info.state, 'connected');
  assert.equal(state.info.version, '0.1.0');
  assert.equal(state.info.emuReachable, true);
});

test('unreachable: probes with back-off while the agent stays away, then recovers by itself on any success', () => {
  const { state, effects } = run([
    ...connected,
    unreachable,
    unreachable,
    { type: 'probeFailed', message: 'still down' },
    { type: 'probeFailed', message: 'still down' },
    { type: 'probeFailed', message: 'still down' },
  ]);
  assert.equal(state.info.state, 'unreachable');
  assert.equal(state.info.problem, 'still down');
  assert.deepEqual(effects, ['resync', 'probe 1000', 'probe 2000', 'probe 4000', 'probe 8000']);
  const back = run([{ type: 'callSucceeded' }], state);
  assert.equal(back.state.info.state, 'connected');
  assert.equal(back.state.info.problem, undefined);
  assert.deepEqual(back.effects, ['resync']);
  // And the back-off starts from the beginning the next time.
  assert.deepEqual(run([unreachable], back.state).effects, ['probe 1000']);
});

test('a probe that fails as the one before leaves what the session shows as it was: the views do not reload', () => {
  const away = run([...connected, unreachable, { type: 'probeFailed', message: 'still down' }]).state;
  const again = transition(away, { type: 'probeFailed', message: 'still down' }).state;
  assert.equal(again.info, away.info, 'the same failure made a new info, which reloads every view');
  assert.equal(again.failedProbes, away.failedProbes + 1);
  const other = transition(again, { type: 'probeFailed', message: 'timed out' }).state;
  assert.notEqual(other.info, again.info);
  assert.equal(other.info.problem, 'timed out');
});

test('the probe back-off is bounded', () => {
  assert.equal(probeDelayMs(0), 1000);
  assert.equal(probeDelayMs(3), 8000);
  assert.equal(probeDelayMs(50), MAX_PROBE_MS);
});

test('an agent back without the session (restarted): expired, one question', () => {
  const down = run([...connected, unreachable]).state;
  const { state, effects } = run([expired, expired], down);
  assert.equal(state.info.state, 'expired');
  assert.deepEqual(effects, ['sessionLost']);
});

test('a lost session stays told while the agent goes away and comes back still without it', () => {
  const { state, effects } = run([...connected, expired, unreachable, expired]);
  assert.equal(state.info.state, 'expired');
  assert.deepEqual(effects, ['resync', 'sessionLost', 'probe 1000']);
});

test('other failures (a refused operation, a slow answer) leave the session as it is', () => {
  const up = run(connected).state;
  for (const code of ['lab_not_found', 'timeout', 'invalid_lab', 'internal_error']) {
    const next = transition(up, { type: 'callFailed', code, message: code });
    assert.equal(next.state, up, code);
    assert.deepEqual(next.effects, []);
  }
});

test('reports without a session (logged out, connecting, error) change nothing', () => {
  const states: MachineState[] = [
    initialState,
    run([connected[0]]).state,
    run([...connected, { type: 'failed', problem: 'pin changed' }]).state,
  ];
  const events: SessionEvent[] = [unreachable, expired, { type: 'callSucceeded' }];
  for (const from of states) {
    for (const event of events) {
      assert.equal(transition(from, event).state, from, `${from.info.state} + ${event.type}`);
    }
  }
});

test('re-pin: a changed certificate at restore is an error; the restore after re-pinning connects', () => {
  const failed = run([
    { type: 'connecting', baseUrl: URL, username: 'lab' },
    { type: 'failed', problem: 'the certificate no longer matches the pin' },
  ]).state;
  assert.equal(failed.info.state, 'error');
  assert.match(failed.info.problem ?? '', /certificate/);
  const { state, effects } = run(connected, failed);
  assert.equal(state.info.state, 'connected');
  assert.deepEqual(effects, ['resync']);
});

test('an unchanged agent info read changes nothing (the views do not load again)', () => {
  const caps = { emuReachable: true };
  const up = run([...connected, { type: 'agentInfo', capabilities: caps, version: '1' }]).state;
  assert.equal(transition(up, { type: 'agentInfo', capabilities: { ...caps } }).state, up);
  const down = transition(up, { type: 'agentInfo', capabilities: { emuReachable: false } }).state;
  assert.equal(down.info.emuReachable, false);
});

test('log-out forgets everything', () => {
  const { state } = run([...connected, expired, { type: 'loggedOut', baseUrl: URL }]);
  assert.deepEqual(state, {
    info: { state: 'loggedOut', baseUrl: URL, problem: undefined },
    failedProbes: 0,
    lossAnnounced: false,
  });
});

test('per agent: each agent has its own machine; one going away or expiring leaves the other as it was', () => {
  const eve = run(connected);
  const workstation = run(logIn('https://10.0.0.2:8787', 'me'));
  const eveDown = run(stillAway, eve.state);
  assert.equal(eveDown.state.info.state, 'unreachable');
  assert.deepEqual(eveDown.effects, ['probe 1000', 'probe 2000']);
  // The other agent's calls go on: no probe, no prompt, no resync.
  const wsCalls = run([{ type: 'callSucceeded' }, { type: 'callSucceeded' }], workstation.state);
  assert.equal(wsCalls.state, workstation.state);
  assert.deepEqual(wsCalls.effects, []);
  // Its session ending asks for its password once, whatever the first agent does.
  const wsExpired = run(
    [
      { type: 'callFailed', code: 'unauthenticated', message: 'ended' },
      { type: 'callFailed', code: 'unauthenticated', message: 'ended' },
    ],
    workstation.state,
  );
  assert.deepEqual(wsExpired.effects, ['sessionLost']);
  assert.equal(wsExpired.state.info.baseUrl, 'https://10.0.0.2:8787');
  assert.equal(eveDown.state.info.baseUrl, URL);
  assert.equal(eveDown.state.lossAnnounced, false);
});

test("each agent's session state is its own: one agent away or logged out leaves another's as it was", () => {
  // agents.ts keeps one Session per agent, each with its own machine state; the machine has no shared state.
  const eve = run(connected);
  const ws = run(logIn('https://127.0.0.1:8788', 'me'));
  const eveAway = run(stillAway, eve.state);
  const wsExpired = run([expired], ws.state);
  assert.equal(eveAway.state.info.state, 'unreachable');
  assert.equal(wsExpired.state.info.state, 'expired');
  // Neither transition touched the other agent's state, nor the states they started from.
  assert.equal(ws.state.info.state, 'connected');
  assert.equal(ws.state.info.baseUrl, 'https://127.0.0.1:8788');
  assert.equal(eve.state.info.state, 'connected');
  assert.equal(wsExpired.state.info.baseUrl, 'https://127.0.0.1:8788');
  assert.equal(eveAway.state.info.baseUrl, URL);
  assert.ok(!wsExpired.effects.some((e) => e.startsWith('probe')), `ws effects: ${wsExpired.effects.join(', ')}`);
});
