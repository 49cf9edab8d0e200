/**
 * How often a visible view of live lab data loads again: quickly while nodes
 * are in transition or just after an action, at the configured interval while
 * things change, and ever more slowly (up to a bound) while nothing does. The
 * view pauses its timer while hidden; this module only decides the delays.
 */

export interface PaceSettings {
  /** The interval while things change (setting labAgent.refresh.intervalSeconds). */
  intervalMs: number;
}

/** While nodes start or stop, and for a while after an action: this pace, whatever the interval. */
export const SETTLING_MS = 2000;
/** How long after an action the view follows at the settling pace even if nothing looks transitional yet. */
export const FOLLOW_ACTION_MS = 20_000;
/** An idle view slows down to this many intervals between loads. */
export const MAX_IDLE_FACTOR = 6;

export interface PaceState {
  /** What the last load showed, to tell change from idleness. */
  fingerprint: string | undefined;
  /** Loads in a row that showed nothing new. */
  idleLoads: number;
  /** Until when (ms since epoch) an action is being followed. */
  followUntil: number;
}

export const initialPace: PaceState = { fingerprint: undefined, idleLoads: 0, followUntil: 0 };

/** An action changed (or will change) the lab: follow it at the settling pace. */
export function actionTaken(state: PaceState, now: number): PaceState {
  return { ...state, idleLoads: 0, followUntil: now + FOLLOW_ACTION_MS };
}

/** A load finished: the next state and how long to wait before the next load. */
export function afterLoad(
  state: PaceState,
  load: { fingerprint: string; settling: boolean },
  now: number,
  settings: PaceSettings,
): { state: PaceState; delayMs: number } {
  const fresh = state.fingerprint === undefined || load.fingerprint !== state.fingerprint;
  const idleLoads = fresh || load.settling ? 0 : state.idleLoads + 1;
  const next: PaceState = { fingerprint: load.fingerprint, idleLoads, followUntil: state.followUntil };
  if (load.settling || now < state.followUntil) {
    return { state: next, delayMs: Math.min(SETTLING_MS, settings.intervalMs) };
  }
  const factor = Math.min(MAX_IDLE_FACTOR, 2 ** Math.max(0, idleLoads - 1));
  return { state: next, delayMs: settings.intervalMs * factor };
}

/** The interval from the setting, in bounds: at least 2 s, at most 10 minutes; anything else is the default. */
export function intervalMsOf(seconds: unknown, defaultSeconds = 10): number {
  const s = typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : defaultSeconds;
  return Math.round(Math.min(600, Math.max(2, s)) * 1000);
}
