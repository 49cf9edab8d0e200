/**
 * What each machine code means for the user and what to do about it: one
 * wording per code, shown by the extension (client/model/errors.ts) and by the
 * language server (server/agent-problems.ts) alike.
 */
import type { ErrorCode } from './contract';

export const ERROR_ADVICE: Readonly<Partial<Record<ErrorCode, string>>> = {
  unauthenticated: 'You are not logged in to the Lab Agent (or the session was ended). Log in again.',
  expired_agent_session: 'Your Lab Agent session expired after 8 hours without use. Log in again.',
  expired_emu_session: "The agent's session with the emulator expired. Log in again to renew it.",
  invalid_credentials: 'The agent refused the user name or password.',
  plan_stale: 'The lab changed since this plan was computed. Plan again, review, then apply.',
  lab_exists: 'This lab already exists on the emulator.',
  lab_busy: 'Another operation is running on this lab. Wait for it to finish, then try again.',
  lab_locked: 'The lab is locked in the emulator. Unlock it there, then try again.',
  lab_locked_mid_apply:
    'An earlier apply did not finish, so the lab is half-applied. Push the document (Apply This Plan) to finish it, or destroy the lab.',
  browser_token_invalid: 'The console ticket was refused (used or expired). Reconnect to get a fresh one.',
  lab_not_found: 'This lab is not deployed on the emulator. Deploy it first.',
  node_not_running: 'The node is not running. Start it, wait for it to boot, then try again.',
  invalid_lab: 'The lab document has errors. Fix them (see the Problems view) and try again.',
  emu_unreachable: 'The agent cannot reach the emulator. Check that the emulator is up and reachable from the agent.',
  timeout: 'The agent did not answer in time. Try again; if it keeps happening, check the agent and the emulator.',
  payload_too_large: 'The lab and its config files are larger than the 32 MiB the agent accepts.',
  invalid_response:
    'The agent answers with replies this extension does not understand. Check that the agent URL points at a Lab Agent (API v1).',
  upgrade_required: 'The console stream was refused: the connection did not ask for the emu-telnet upgrade.',
  tls_required: 'The agent is reached over HTTPS only. Change the agent URL to https://…',
  tls_untrusted: "The agent's certificate is not trusted. Configure its CA file or pin its certificate fingerprint.",
  tls_pin_mismatch:
    "The agent's certificate does not match the pinned fingerprint. Check the agent URL, or log in again to pin the new certificate.",
  agent_unreachable: 'Cannot reach the agent. Check that it is running and that the agent URL is right.',
  // Followed by the agent's own text (ADVICE_WITH_DETAIL).
  operation_not_allowed: 'The agent refused the operation.',
  invalid_direction: 'The agent refused the reconcile direction.',
  invalid_request: 'The agent rejected the request.',
  node_not_found: 'The deployed lab has no such node. Deploy or reconcile the lab first.',
  internal_error: 'The agent hit an internal error (a bug in the agent).',
  not_found: 'The agent does not know this item.',
};

/** Codes whose advice is followed by the error's own text, because that says what exactly was wrong. */
export const ADVICE_WITH_DETAIL: ReadonlySet<string> = new Set<ErrorCode>([
  'operation_not_allowed',
  'invalid_direction',
  'invalid_request',
  'node_not_found',
  'internal_error',
  'not_found',
]);

/** The advice for a code, if it has one (codes are strings: the agent may send any). */
export function adviceFor(code: string): string | undefined {
  return (ERROR_ADVICE as Readonly<Record<string, string | undefined>>)[code];
}
