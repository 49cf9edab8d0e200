/**
 * Reading EVE-NG's answers with the tolerance its documentation asks for:
 * the JSend-like envelope `{code, status, message[, data]}` where `code` may be
 * a number or a string, success as 200 or 201, a failure carried by an HTTP
 * 200 (the 2025 fork's refused login), bodies with no envelope at all (the
 * forks' /api/icons), and collections as objects keyed by id or as arrays.
 */

export interface EveAnswer {
  /** The HTTP status. */
  http: number;
  /** The envelope's code (the HTTP status when the body has no envelope). */
  code: number;
  ok: boolean;
  message: string;
  /** `data`, or the whole body when it has no envelope. */
  data: unknown;
  /** The parsed body, for fields beside `data` (e.g. the network list's `icons`). */
  body: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses one EVE-NG answer; a body that is not JSON is kept as text in `data`. */
export function readAnswer(http: number, text: string): EveAnswer {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an HTML error page from the web server in front of the API): keep the text.
  }
  if (!isRecord(body) || !('code' in body || 'status' in body) || !('message' in body || 'data' in body)) {
    // An HTML error page (a PHP error under Slim) is reduced to its text.
    const message =
      typeof body === 'string'
        ? body
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 200)
        : '';
    return { http, code: http, ok: http >= 200 && http < 300, message, data: body, body };
  }
  const codeNumber = Number(body.code);
  const code = Number.isFinite(codeNumber) && body.code !== '' && body.code !== null ? codeNumber : http;
  const status = typeof body.status === 'string' ? body.status.toLowerCase() : '';
  // Success needs both a 2xx HTTP status and a 2xx code; `status` is "success" then (when present).
  const ok = http >= 200 && http < 300 && code >= 200 && code < 300 && (status === '' || status === 'success');
  const message = typeof body.message === 'string' ? body.message : '';
  return { http, code: ok ? code : code >= 200 && code < 300 ? http : code, ok, message, data: body.data, body };
}

/** EVE-NG ends messages with a numeric id in parentheses, e.g. "User logged in (90013)." */
export function messageId(message: string): number | undefined {
  const match = /\((\d{5})\)\.?\s*$/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** The items of a collection that is an object keyed by id (2.0.3) or an array (6.2 write-up). */
export function itemsOf(collection: unknown): Record<string, unknown>[] {
  const values = Array.isArray(collection) ? collection : isRecord(collection) ? Object.values(collection) : [];
  return values.filter(isRecord);
}

/** Entries of a keyed collection with their keys (array positions for arrays). */
export function entriesOf(collection: unknown): [string, unknown][] {
  if (Array.isArray(collection)) return collection.map((v, i) => [String(i), v]);
  return isRecord(collection) ? Object.entries(collection) : [];
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;
}

export function num(value: unknown, fallback = 0): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** EVE-NG flags arrive as 0/1, "0"/"1" or booleans. */
export function flag(value: unknown): boolean {
  return value === true || num(value) === 1;
}
