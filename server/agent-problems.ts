/**
 * Turns a failed agent call into what the user sees: a machine code, a message
 * that says what to do, and whether the failure concerns the session as a
 * whole (so every remote feature is affected) or just this one call.
 */
import { AgentError } from '../common/api/errors';

export interface AgentProblem {
  code: string;
  message: string;
  /** True when the session itself is unusable (auth, TLS, unreachable), not just one call. */
  affectsSession: boolean;
}

const SESSION_PROBLEMS: Readonly<Record<string, string>> = {
  unauthenticated: 'The agent no longer accepts this session. Log in to the agent again.',
  expired_agent_session: 'The agent session expired after 8 hours without use. Log in to the agent again.',
  expired_emu_session: "The emulator's session behind the agent expired. Log in to the agent again.",
  tls_required: 'The agent is reached over HTTPS only. Change the agent URL to https://…',
  tls_untrusted: "The agent's certificate is not trusted. Configure its CA file or pin its certificate fingerprint.",
  tls_pin_mismatch:
    "The agent's certificate does not match the pinned fingerprint. Check the agent URL, or log in again to pin the new certificate.",
  agent_unreachable: 'Cannot reach the agent. Check that it is running and that the agent URL is right.',
  emu_unreachable: 'The agent cannot reach the emulator. Check that the emulator is running.',
  invalid_response:
    'The agent answers with replies this extension does not understand. Check that the agent URL points at a Lab Agent (API v1).',
};

export function describeAgentProblem(error: unknown): AgentProblem {
  if (!(error instanceof AgentError)) {
    return {
      code: 'internal_error',
      message: `Unexpected failure talking to the agent: ${String(error)}`,
      affectsSession: false,
    };
  }
  const advice = SESSION_PROBLEMS[error.code];
  if (advice !== undefined) {
    // The client's message often names the address or the cause (ECONNREFUSED); keep it after the advice.
    const detail = error.message && !advice.includes(error.message) ? ` (${error.message})` : '';
    return { code: error.code, message: `${advice}${detail}`, affectsSession: true };
  }
  if (error.code === 'timeout') {
    return {
      code: error.code,
      message: `The agent did not answer in time (${error.operationId}).`,
      affectsSession: false,
    };
  }
  return {
    code: error.code,
    message: error.message || `The agent refused ${error.operationId} (${error.code}).`,
    affectsSession: false,
  };
}

/** A cancellation we asked for is not a problem to report. */
export function isCancellation(error: unknown): boolean {
  return error instanceof AgentError && error.code === 'aborted';
}
