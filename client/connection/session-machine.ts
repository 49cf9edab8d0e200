/**
 * The session's states and transitions, without prompts, storage or network
 * (client/connection/session.ts carries them out). Every report of how a call
 * went, from a command, a view, the heartbeat or the language server, is an
 * event here; the answer is the next state and what to do about it: probe the
 * agent again after a back-off, tell the user once that the session ended, or
 * bring every part of the extension up to date because the agent answers again.
 */
import { isSessionErrorCode, type CapabilitiesData } from '../../common/api/contract';

export type ConnectionState = 'loggedOut' | 'connecting' | 'connected' | 'expired' | 'unreachable' | 'error';

/** What the status bar and the context keys show; holds no secret. */
export interface SessionInfo {
  state: ConnectionState;
  baseUrl?: string;
  username?: string;
  /** Agent version (getHealth). */
  version?: string;
  emuReachable?: boolean;
  emuBaseUrl?: string;
  capabilities?: CapabilitiesData;
  /** For unreachable/error/expired, and for a failed capabilities read: what is wrong. */
  problem?: string;
  pin?: string;
}

export interface MachineState {
  info: SessionInfo;
  /** Probes in a row that found the agent unreachable: paces the back-off. */
  failedProbes: number;
  /** Whether the user was told that this session ended (once per loss, whoever noticed it). */
  lossAnnounced: boolean;
}

export type SessionEvent =
  /** No session: logged out, nothing stored, or the settings name no usable agent. */
  | { type: 'loggedOut'; baseUrl?: string; problem?: string }
  /** A login or a restore is under way. */
  | { type: 'connecting'; baseUrl: string; username?: string }
  /** A login, restore or re-authentication gave a working token. */
  | { type: 'connected'; baseUrl: string; username: string; pin?: string }
  /** Capabilities and health were read (`problem`: what could not be). */
  | {
      type: 'agentInfo';
      capabilities?: CapabilitiesData;
      version?: string;
      problem?: string;
    }
  /** A call made with the current token succeeded. */
  | { type: 'callSucceeded' }
  /** A call made with the current token failed with this machine code. */
  | { type: 'callFailed'; code: string; message: string }
  /** A restore found the stored token refused: the user and agent are known, only a password is missing. */
  | { type: 'restoredExpired'; baseUrl: string; username?: string; message: string }
  /** A restore found nothing answering: keep the token, the agent may come back with the session valid. */
  | { type: 'restoredUnreachable'; baseUrl: string; username?: string; message: string }
  /** A probe found the agent still unreachable. */
  | { type: 'probeFailed'; message: string }
  /** The connection cannot be used as configured (CA file unreadable, pinned certificate changed). */
  | { type: 'failed'; problem: string };

export type SessionEffect =
  /** Ask the agent whether it is back (getHealth, then getSession) after this delay. */
  | { type: 'probe'; afterMs: number }
  /** Tell the user, once per loss, that the session ended; offer the password prompt (never a full log-in). */
  | { type: 'sessionLost'; message: string }
  /**
   * The session works again after being unreachable or expired: read the agent
   * info again, hand the session to the language server even if unchanged, reload the views.
   */
  | { type: 'resync' };

export interface Transition {
  state: MachineState;
  effects: SessionEffect[];
}

/** Codes that say nothing answers at the agent's address (a slow answer is not one: `timeout` is the operation's). */
const UNREACHABLE_CODES = new Set(['agent_unreachable']);

/** An idle connected session is checked this often, so the status never claims more than this old. */
export const HEARTBEAT_MS = 15_000;

/** Whether the heartbeat must ask the agent: only when no call of the session spoke with it lately. */
export function heartbeatDue(lastContact: number, now: number): boolean {
  return now - lastContact >= HEARTBEAT_MS;
}

export const FIRST_PROBE_MS = 1000;
export const MAX_PROBE_MS = 15_000;

/** The delay before the next probe: 1 s, 2 s, 4 s, … up to 15 s. */
export function probeDelayMs(failedProbes: number): number {
  return Math.min(MAX_PROBE_MS, FIRST_PROBE_MS * 2 ** Math.max(0, failedProbes));
}

export const initialState: MachineState = { info: { state: 'loggedOut' }, failedProbes: 0, lossAnnounced: false };

export function isUnreachableCode(code: string | undefined): boolean {
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

/** A state with a token behind it: calls may be made with it (and reported). */
export function isLive(state: ConnectionState): boolean {
  return state === 'connected' || state === 'unreachable' || state === 'expired';
}

export function transition(state: MachineState, event: SessionEvent): Transition {
  const info = state.info;
  const stay: Transition = { state, effects: [] };
  switch (event.type) {
    case 'loggedOut':
      return to({ state: 'loggedOut', baseUrl: event.baseUrl, problem: event.problem });
    case 'connecting':
      return {
        state: { ...state, info: { state: 'connecting', baseUrl: event.baseUrl, username: event.username } },
        effects: [],
      };
    case 'failed':
      return to({ state: 'error', baseUrl: info.baseUrl, username: info.username, problem: event.problem });
    case 'connected': {
      const next: SessionInfo = {
        state: 'connected',
        baseUrl: event.baseUrl,
        username: event.username,
        pin: event.pin,
      };
      // The same agent again: keep what is known about it until it is read again.
      if (info.baseUrl === event.baseUrl) {
        next.version = info.version;
        next.capabilities = info.capabilities;
        next.emuReachable = info.emuReachable;
        next.emuBaseUrl = info.emuBaseUrl;
      }
      return { state: { info: next, failedProbes: 0, lossAnnounced: false }, effects: [{ type: 'resync' }] };
    }
    case 'agentInfo': {
      if (info.state !== 'connected') return stay;
      const next: SessionInfo = { ...info, problem: event.problem };
      if (event.capabilities !== undefined) {
        next.capabilities = event.capabilities;
        next.emuReachable = event.capabilities.emuReachable;
        next.emuBaseUrl = event.capabilities.emuBaseUrl;
      }
      if (event.version !== undefined) next.version = event.version;
      if (sameInfo(info, next)) return stay;
      return { state: { ...state, info: next }, effects: [] };
    }
    case 'callSucceeded':
      if (info.state === 'unreachable') {
        return {
          state: { ...state, info: { ...info, state: 'connected', problem: undefined }, failedProbes: 0 },
          effects: [{ type: 'resync' }],
        };
      }
      return stay;
    case 'callFailed': {
      if (!isLive(info.state)) return stay;
      if (isSessionErrorCode(event.code)) {
        if (info.state === 'expired') return stay;
        return lost(state, { ...info, state: 'expired', problem: event.message }, event.message);
      }
      if (isUnreachableCode(event.code)) {
        if (info.state === 'unreachable') return stay;
        return {
          state: {
            ...state,
            info: { ...info, state: 'unreachable', problem: event.message },
            failedProbes: 0,
          },
          effects: [{ type: 'probe', afterMs: probeDelayMs(0) }],
        };
      }
      return stay;
    }
    case 'restoredExpired':
      return lost(
        state,
        { state: 'expired', baseUrl: event.baseUrl, username: event.username, problem: event.message },
        event.message,
      );
    case 'restoredUnreachable':
      return {
        state: {
          info: { state: 'unreachable', baseUrl: event.baseUrl, username: event.username, problem: event.message },
          failedProbes: 0,
          lossAnnounced: false,
        },
        effects: [{ type: 'probe', afterMs: probeDelayMs(0) }],
      };
    case 'probeFailed': {
      if (info.state !== 'unreachable') return stay;
      const failedProbes = state.failedProbes + 1;
      // The same info when the probe failed the same way: the views reload only on a change they show.
      const same = info.problem === event.message;
      return {
        state: { ...state, failedProbes, info: same ? info : { ...info, problem: event.message } },
        effects: [{ type: 'probe', afterMs: probeDelayMs(failedProbes) }],
      };
    }
  }
  function to(next: SessionInfo): Transition {
    return { state: { info: next, failedProbes: 0, lossAnnounced: false }, effects: [] };
  }
}

/** Whether two infos show the same: an unchanged read must not make every view load again. */
function sameInfo(a: SessionInfo, b: SessionInfo): boolean {
  return (
    a.problem === b.problem &&
    a.version === b.version &&
    JSON.stringify(a.capabilities) === JSON.stringify(b.capabilities)
  );
}

function lost(state: MachineState, info: SessionInfo, message: string): Transition {
  const effects: SessionEffect[] = state.lossAnnounced ? [] : [{ type: 'sessionLost', message }];
  return { state: { info, failedProbes: 0, lossAnnounced: true }, effects };
}
