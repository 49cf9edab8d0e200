/**
 * Turns a failed agent call into what the user sees: a machine code, a message
 * that says what to do, and whether the failure concerns the session as a
 * whole (so every remote feature is affected) or just this one call.
 */
import { SESSION_ERROR_CODES, type ErrorCode } from '../common/api/contract';
import { adviceFor } from '../common/api/error-messages';
import { AgentError } from '../common/api/errors';

export interface AgentProblem {
  code: string;
  message: string;
  /** True when the session itself is unusable (auth, TLS, unreachable), not just one call. */
  affectsSession: boolean;
}

/** Codes after which no remote feature works until the session is fixed. */
const SESSION_WIDE: ReadonlySet<string> = new Set<ErrorCode>([
  ...SESSION_ERROR_CODES,
  'tls_required',
  'tls_untrusted',
  'tls_pin_mismatch',
  'agent_unreachable',
  'emu_unreachable',
  'invalid_response',
]);

export function describeAgentProblem(error: unknown): AgentProblem {
  if (!(error instanceof AgentError)) {
    return {
      code: 'internal_error',
      message: `Unexpected failure talking to the agent: ${String(error)}`,
      affectsSession: false,
    };
  }
  const advice = SESSION_WIDE.has(error.code) ? adviceFor(error.code) : undefined;
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
