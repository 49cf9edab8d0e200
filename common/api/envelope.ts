/**
 * Decoding of the agent's JSON envelope `{ ok, data, error, code }`. Anything
 * that is not such an envelope (a proxy's HTML page, truncated JSON, an empty
 * body) becomes `invalid_response` with the status and a short, safe excerpt.
 */
import { AGENT_TEXT_MAX_CHARS, agentCode, boundedText } from './agent-text';
import { AgentError, UNSPECIFIED_CODE } from './errors';

const EXCERPT_CHARS = 120;

/**
 * A printable, single-line start of a body for error messages. `secret` (the
 * bearer token) is masked in case a misbehaving server echoed it.
 */
export function safeExcerpt(text: string, secret?: string): string {
  let excerpt = text.slice(0, EXCERPT_CHARS * 4);
  if (secret) excerpt = excerpt.split(secret).join('***');
  excerpt = excerpt.replace(/\p{Cc}+/gu, ' ').trim();
  return excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
}

function invalid(operationId: string, status: number, why: string, text: string, secret?: string): AgentError {
  const excerpt = safeExcerpt(text, secret);
  return new AgentError(
    'invalid_response',
    `${operationId}: the agent's reply (HTTP ${status}) ${why}${excerpt ? `: "${excerpt}"` : ''}. Check that the URL points at the agent and not at a proxy or another server.`,
    operationId,
    status,
  );
}

/**
 * Returns `data` of a successful envelope (an empty object when the agent sent
 * none, so callers can read optional fields), or throws the AgentError the
 * envelope describes.
 */
export function decodeEnvelope(operationId: string, status: number, body: Buffer, secret?: string): unknown {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (text.trim() === '') throw invalid(operationId, status, 'is empty', '');
    throw invalid(operationId, status, 'is not JSON', text, secret);
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    typeof (parsed as { ok?: unknown }).ok !== 'boolean'
  ) {
    throw invalid(operationId, status, 'is JSON but not an API envelope (no boolean "ok")', text, secret);
  }
  const envelope = parsed as { ok: boolean; data?: unknown; error?: unknown; code?: unknown };
  if (envelope.ok) {
    if (status < 200 || status > 299)
      throw invalid(operationId, status, 'claims success with an error status', text, secret);
    // No data is an empty object (callers read optional fields); anything else is checked per operation (replies.ts).
    return envelope.data === undefined ? {} : envelope.data;
  }
  // A code that is not a short identifier (100 kB, control characters) is no code the client can act on.
  const code = agentCode(envelope.code) ?? UNSPECIFIED_CODE;
  const message =
    typeof envelope.error === 'string' && envelope.error !== '' ? envelope.error : `failed with HTTP ${status}`;
  throw new AgentError(code, `${operationId}: ${safeMessage(message, secret)}`, operationId, status);
}

/** The agent's diagnostic text, with the token masked and length bounded. */
function safeMessage(message: string, secret?: string): string {
  // Bound first (a little over, so a token cut at the edge is still masked whole), then mask, then bound.
  const head = message.slice(0, 2 * AGENT_TEXT_MAX_CHARS + (secret?.length ?? 0));
  return boundedText(secret ? head.split(secret).join('***') : head);
}
