/**
 * Requests Node's HTTP parser refuses (malformed request lines or headers,
 * headers over the size limit) never reach a handler. They still get the
 * envelope, written straight to the socket, whenever the socket can take it.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Envelope } from '../../common/api/contract';
import { ApiError } from './api-error';

/** Node's default limit on the request line and headers together, in bytes. */
export const MAX_HEADER_BYTES = 16 * 1024;

export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // The parser can complain again about bytes that arrive after the answer: that answer stands.
  if (socket.writableEnded) return;
  // A client that went away, or a request that timed out, has nobody left to read an answer.
  if (!socket.writable || error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const refused =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(
          'headers_too_large',
          `The request line and headers are larger than the agent reads (${MAX_HEADER_BYTES} bytes). Send a shorter request.`,
        )
      : new ApiError(
          'invalid_request',
          `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}), so the agent cannot read it.`,
        );
  const envelope: Envelope = { ok: false, error: refused.message, code: refused.code };
  const body = JSON.stringify(envelope);
  socket.end(
    `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
