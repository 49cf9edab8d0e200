import { STATUS_OF_CODE, type ErrorCode } from '../../common/api/contract';
import { ApplyStopped, DomainError, type DomainErrorKind } from '../domain/domain-error';
import { EmuError } from '../emulator/backend';

/**
 * A failure that the agent reports to the client as an envelope. Handlers throw
 * it; the HTTP layer turns it into `{ ok: false, error, code }` with the status
 * decisions §2 assigns to the code.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra data for the envelope (e.g. diagnostics of invalid_lab). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS_OF_CODE[code] ?? 500;
  }
}

export function invalidRequest(message: string): ApiError {
  return new ApiError('invalid_request', message);
}

/** The envelope code of each domain error (its HTTP status is the code's). */
const CODE_OF_KIND: Record<DomainErrorKind, ErrorCode> = {
  invalid_input: 'invalid_request',
  invalid_document: 'invalid_lab',
  no_such_lab: 'lab_not_found',
  // Another user's lab is answered as if it did not exist (decisions §13).
  others_lab: 'lab_not_found',
  lab_locked: 'lab_locked',
  half_applied: 'lab_locked_mid_apply',
  lab_busy: 'lab_busy',
  over_quota: 'operation_not_allowed',
  stale_plan: 'plan_stale',
  stopping: 'agent_stopping',
};

/** The envelope error of a refusal the agent's own layers made (the wire's or the domain's); undefined for anything else. */
export function knownApiError(e: unknown): ApiError | undefined {
  if (e instanceof ApiError) return e;
  if (e instanceof DomainError) return new ApiError(CODE_OF_KIND[e.kind], e.message, e.data);
  return undefined;
}

/** The envelope error for anything a handler threw. Domain and emulator errors get their codes; the rest is a bug. */
export function toApiError(e: unknown, log: (message: string) => void): ApiError {
  const known = knownApiError(e);
  if (known) return known;
  if (e instanceof ApplyStopped) {
    // The code of what stopped it, its message followed by what changed, its data with the outcome.
    const cause = toApiError(e.stoppedBy, log);
    const data = { ...(cause.data && typeof cause.data === 'object' ? cause.data : {}), ...e.outcome };
    return new ApiError(cause.code, `${cause.message}${e.progress}`, data);
  }
  if (e instanceof EmuError) {
    switch (e.kind) {
      case 'session_expired':
        return new ApiError(
          'expired_emu_session',
          'The emulator session behind this agent session expired after an hour without use. Log in again.',
        );
      case 'unreachable':
        return new ApiError('emu_unreachable', `The emulator does not answer: ${e.message}`);
      case 'locked':
        return new ApiError('lab_locked', e.message);
      case 'busy':
        return new ApiError('lab_busy', e.message);
      case 'refused':
        return new ApiError('operation_not_allowed', `The emulator refused: ${e.message}`);
      case 'not_found':
        return new ApiError('lab_not_found', e.message);
      case 'exists':
        return new ApiError('lab_exists', e.message);
    }
  }
  const error = e instanceof Error ? e : new Error(String(e));
  log(`internal error: ${error.stack ?? error.message}`);
  return new ApiError(
    'internal_error',
    `The agent hit a bug and could not finish the request (${error.message}). The agent log has details.`,
  );
}
