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
 * The bytes of all request bodies being read at once, bounded: each body
 * reserves what it declares (or what has arrived so far) and gives it back when
 * it is parsed or refused. A body that does not fit gets 503 agent_busy, so many
 * large requests at once cannot take the agent's memory.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  reserve(bytes: number): void {
    if (this.used + bytes > this.limit)
      throw new ApiError(
        'agent_busy',
        `The agent is reading too many large requests at once (${Math.round(this.limit / 1048576)} MiB in all). Try again in a moment.`,
      );
    this.used += bytes;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** Reads a JSON object body (see readBody). */
export async function readJsonObject(
  req: IncomingMessage,
  budget: BodyBudget,
  limit = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  return parseObject((await readBody(req, budget, limit)).toString('utf8'));
}

/**
 * Reads a body. The limit is checked against Content-Length before
 * reading and against a running count while streaming, so an oversized body is
 * refused without buffering what is over the limit (the rest is discarded as it
 * arrives, which lets the client read the 413 before the connection closes).
 */
export function readBody(req: IncomingMessage, budget: BodyBudget, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLargeError(limit));
      return;
    }
    let reserved = 0;
    const grow = (bytes: number) => {
      if (bytes <= reserved) return;
      budget.reserve(bytes - reserved);
      reserved = bytes;
    };
    const chunks: Buffer[] = [];
    let received = 0;
    const releaseAll = () => {
      chunks.length = 0;
      budget.release(reserved);
      reserved = 0;
    };
    const fail = (error: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      releaseAll();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        fail(new BodyTooLargeError(limit));
        return;
      }
      try {
        grow(received);
      } catch (e) {
        fail(e as Error);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      // The budget is given back once the bytes are handed on: parsing them is the caller's.
      resolve(Buffer.concat(chunks, received));
      releaseAll();
    };
    try {
      grow(Number.isFinite(declared) ? declared : 0);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', fail);
    // A client that goes away mid-body gives its share back.
    req.on('close', releaseAll);
  });
}

export function parseObject(text: string): Record<string, unknown> {
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
