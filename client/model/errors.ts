/**
 * Turns anything a command can throw into a message a network engineer can act
 * on. Decisions are taken on the machine `code` only (contract, Errors); the
 * agent's own text is kept as detail because it often names the culprit.
 */
import { isSessionErrorCode, type ErrorCode } from '../../common/api/contract';
import { ADVICE_WITH_DETAIL, adviceFor } from '../../common/api/error-messages';

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

const TRUST_CODES: ReadonlySet<string> = new Set<ErrorCode>(['tls_untrusted', 'tls_pin_mismatch']);

/** Client-side messages (common/api) are already actionable and carry no secret: use them as they are. */
const OWN_MESSAGE: ReadonlySet<string> = new Set<ErrorCode>([
  'agent_unreachable',
  'tls_required',
  'tls_untrusted',
  'tls_pin_mismatch',
]);

export function describeError(err: unknown): DescribedError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const text = typeof e.message === 'string' && e.message.trim() !== '' ? e.message.trim() : String(err);
  if (code === 'aborted' || (err instanceof Error && err.name === 'AbortError')) {
    return { kind: 'cancelled', code: code ?? 'aborted', message: 'Cancelled.' };
  }
  const kind: ErrorKind = isSessionErrorCode(code) ? 'session' : code && TRUST_CODES.has(code) ? 'trust' : 'other';
  if (code === undefined) return { kind, message: text };
  if (OWN_MESSAGE.has(code)) return { kind, code, message: text };
  const advice = adviceFor(code);
  if (advice !== undefined)
    return { kind, code, message: ADVICE_WITH_DETAIL.has(code) ? joinDetail(advice, text) : advice };
  return { kind, code, message: `${text} (${code})` };
}

function joinDetail(summary: string, detail: string): string {
  return detail === '' || detail === summary ? summary : `${summary} ${detail.endsWith('.') ? detail : `${detail}.`}`;
}
