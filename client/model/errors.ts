/**
 * Turns anything a command can throw into a message a network engineer can act
 * on. Decisions are taken on the machine `code` only (contract, Errors); the
 * agent's own text is kept as detail because it often names the culprit.
 */

/** The parts of an AgentError (common/api/errors.ts) this module reads. */
export interface ErrorLike {
  code?: unknown;
  status?: unknown;
  message?: unknown;
}

export type ErrorKind =
  /** The user cancelled: say nothing. */
  | 'cancelled'
  /** The session is gone: offer to log in again. */
  | 'session'
  /** The certificate check failed: offer the trust flow. */
  | 'trust'
  | 'other';

export interface DescribedError {
  kind: ErrorKind;
  code?: string;
  /** One or two sentences saying what happened and what to do. */
  message: string;
}

const SESSION_CODES = new Set(['unauthenticated', 'expired_agent_session', 'expired_emu_session']);
const TRUST_CODES = new Set(['tls_untrusted', 'tls_pin_mismatch']);

/** Messages that replace the agent's text entirely: the code says everything. */
const FIXED: Readonly<Record<string, string>> = {
  unauthenticated: 'You are not logged in to the Lab Agent (or the session was ended). Log in again.',
  expired_agent_session: 'Your Lab Agent session expired after 8 hours without use. Log in again.',
  expired_emu_session: "The agent's session with the emulator expired. Log in again to renew it.",
  invalid_credentials: 'The agent refused the user name or password.',
  plan_stale: 'The lab changed since this plan was computed. Plan again, review, then apply.',
  lab_exists: 'This lab already exists on the emulator.',
  lab_busy: 'Another operation is running on this lab. Wait for it to finish, then try again.',
  lab_locked: 'The lab is locked in the emulator. Unlock it there, then try again.',
  lab_locked_mid_apply:
    'An earlier apply did not finish, so the lab is locked. Destroy the lab, or deploy it again choosing Replace.',
  browser_token_invalid: 'The console ticket was refused (used or expired). Reconnect to get a fresh one.',
  lab_not_found: 'This lab is not deployed on the emulator. Deploy it first.',
  node_not_running: 'The node is not running. Start it, wait for it to boot, then try again.',
  invalid_lab: 'The lab document has errors. Fix them (see the Problems view) and try again.',
  emu_unreachable: 'The agent cannot reach the emulator. Check that the emulator is up and reachable from the agent.',
  timeout: 'The agent did not answer in time. Try again; if it keeps happening, check the agent and the emulator.',
  payload_too_large: 'The lab and its config files are larger than the 32 MiB the agent accepts.',
  invalid_response: 'The server did not answer like a Lab Agent. Check the agent URL.',
  upgrade_required: 'The console stream was refused: the connection did not ask for the emu-telnet upgrade.',
};

/** Messages that keep the agent's text after them, because it says what exactly was wrong. */
const WITH_DETAIL: Readonly<Record<string, string>> = {
  operation_not_allowed: 'The agent refused the operation.',
  invalid_direction: 'The agent refused the reconcile direction.',
  invalid_request: 'The agent rejected the request.',
  node_not_found: 'The deployed lab has no such node. Deploy or reconcile the lab first.',
  internal_error: 'The agent hit an internal error (a bug in the agent).',
  not_found: 'The agent does not know this item.',
};

/** Client-side messages (common/api) are already actionable and carry no secret: use them as they are. */
const OWN_MESSAGE = new Set(['agent_unreachable', 'tls_required', 'tls_untrusted', 'tls_pin_mismatch']);

export function describeError(err: unknown): DescribedError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const text = typeof e.message === 'string' && e.message.trim() !== '' ? e.message.trim() : String(err);
  if (code === 'aborted' || (err instanceof Error && err.name === 'AbortError')) {
    return { kind: 'cancelled', code: code ?? 'aborted', message: 'Cancelled.' };
  }
  const kind: ErrorKind =
    code && SESSION_CODES.has(code) ? 'session' : code && TRUST_CODES.has(code) ? 'trust' : 'other';
  if (code === undefined) return { kind, message: text };
  if (OWN_MESSAGE.has(code)) return { kind, code, message: text };
  if (FIXED[code] !== undefined) return { kind, code, message: FIXED[code] };
  if (WITH_DETAIL[code] !== undefined) return { kind, code, message: joinDetail(WITH_DETAIL[code], text) };
  return { kind, code, message: `${text} (${code})` };
}

function joinDetail(summary: string, detail: string): string {
  return detail === '' || detail === summary ? summary : `${summary} ${detail.endsWith('.') ? detail : `${detail}.`}`;
}
