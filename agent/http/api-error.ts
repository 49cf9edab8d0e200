import { STATUS_OF_CODE, type ErrorCode } from '../../common/api/contract';
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

/** The envelope error for anything a handler threw. Emulator errors get their codes; the rest is a bug. */
export function toApiError(e: unknown, log: (message: string) => void): ApiError {
  if (e instanceof ApiError) return e;
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
