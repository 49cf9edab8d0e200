/**
 * The one error type the API client throws, and the mapping of transport
 * failures (sockets, DNS, TLS) onto the client-side machine codes of
 * docs/contract-decisions.md §2. Callers decide on `code` and `status`, never
 * on `message`; the message is for people and never carries a token or password.
 */

export class AgentError extends Error {
  override readonly name = 'AgentError';
  /** Machine code: the agent's `code`, or a client-side one (tls_*, timeout, aborted, …). */
  readonly code: string;
  /** HTTP status of the agent's answer; absent when no answer arrived. */
  readonly status?: number;
  /** The operation that failed (an operationId, or a helper's name such as readServerCertificate). */
  readonly operationId: string;

  constructor(code: string, message: string, operationId: string, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.operationId = operationId;
    if (status !== undefined) this.status = status;
  }
}

/** Code for a failure envelope that names no code (the contract allows it). */
export const UNSPECIFIED_CODE = 'unspecified_error';

/**
 * A failed check of the agent's certificate, raised inside the TLS connector
 * (which knows no operation) and turned into an AgentError by the transport.
 */
export class TlsCheckError extends Error {
  constructor(
    readonly code: 'tls_untrusted' | 'tls_pin_mismatch',
    message: string,
  ) {
    super(message);
  }
}

/** Socket-level error codes that mean "nobody answered at that address". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** undici's codes for a call made on a client after close(). */
const CLOSED_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** TLS handshake failures that are not about trust in a certificate (wrong protocol, no cipher, …). */
function isHandshakeFailure(code: string | undefined, message: string): boolean {
  return (
    (code !== undefined && (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) ||
    /\bSSL routines\b/.test(message)
  );
}

/**
 * Turns whatever a connection attempt threw into an AgentError with an
 * actionable message. `origin` is the agent's URL as the user configured it.
 */
export function toTransportError(err: unknown, operationId: string, origin: string): AgentError {
  if (err instanceof AgentError) return err;
  if (err instanceof TlsCheckError) return new AgentError(err.code, err.message, operationId, undefined, err);
  const code = errorCode(err);
  if (code && CLOSED_CODES.has(code)) {
    return new AgentError(
      'aborted',
      `${operationId} cannot run: this agent client has been closed.`,
      operationId,
      undefined,
      err,
    );
  }
  const detail = err instanceof Error ? err.message : String(err);
  if (isHandshakeFailure(code, detail)) {
    return new AgentError(
      'tls_untrusted',
      `TLS handshake with ${origin} failed (${code ?? detail}). Check that the URL points at the agent's HTTPS port.`,
      operationId,
      undefined,
      err,
    );
  }
  const reason = code && UNREACHABLE_CODES.has(code) ? code : detail;
  return new AgentError(
    'agent_unreachable',
    `Cannot reach the agent (${reason}). Is the agent running at ${origin}?`,
    operationId,
    undefined,
    err,
  );
}
