import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { ApiError } from './api-error';

/** Thrown when a body is over the limit; the connection closes because the rest of the body is not read. */
export class BodyTooLargeError extends ApiError {
  constructor(limit: number) {
    super(
      'payload_too_large',
      `The request body is larger than the agent accepts (${limit} bytes). Send a smaller lab or split the request.`,
    );
  }
}

/**
 * Reads a JSON object body. The limit is checked against Content-Length before
 * reading and against a running count while streaming, so an oversized body is
 * refused without buffering what is over the limit (the rest is discarded as it
 * arrives, which lets the client read the 413 before the connection closes).
 */
export function readJsonObject(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      req.resume();
      reject(new BodyTooLargeError(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.off('end', onEnd);
      chunks.length = 0;
      req.resume();
      reject(new BodyTooLargeError(limit));
    };
    const onEnd = () => {
      try {
        resolve(parseObject(Buffer.concat(chunks, received).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

function parseObject(text: string): Record<string, unknown> {
  if (text.trim() === '')
    throw new ApiError('invalid_json', 'The request body is empty; send a JSON object (for example {}).');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('invalid_json', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
