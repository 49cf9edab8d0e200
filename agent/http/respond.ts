import type { ServerResponse } from 'node:http';
import type { Envelope } from '../../common/api/contract';
import type { ApiError } from './api-error';

export function sendEnvelope(
  res: ServerResponse,
  status: number,
  envelope: Envelope,
  headers: Record<string, string> = {},
): void {
  sendBody(res, status, JSON.stringify(envelope), headers);
}

/** Data already serialized (on a worker thread) as JSON. */
export function sendDataJson(res: ServerResponse, json: string, headers: Record<string, string> = {}): void {
  sendBody(res, 200, `{"ok":true,"data":${json}}`, headers);
}

function sendBody(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

export function sendData(res: ServerResponse, data: unknown, headers: Record<string, string> = {}): void {
  sendEnvelope(res, 200, data === undefined ? { ok: true } : { ok: true, data }, headers);
}

export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  const envelope: Envelope = { ok: false, error: error.message, code: error.code };
  if (error.data !== undefined) envelope.data = error.data;
  sendEnvelope(res, error.status, envelope, headers);
}
