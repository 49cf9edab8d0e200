import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { ApiError } from './api-error';

/** Thrown when a body is over the limit; the connection closes because the rest of the body is not read. */
export class BodyTooLargeError extends ApiError {
  constructor(limit: number, what: string, size: string) {
    super(
      'payload_too_large',
      `The request body ${size} is larger than the agent accepts for ${what} (${limit} bytes). Send a smaller lab or split the request.`,
    );
  }
}

/** Bytes that the bodies being read at once may hold, in one pool (all bodies, public ones, one user's). */
class BytePool {
  used = 0;
  /** Bodies drawing on this pool that are not done yet. */
  readers = 0;

  constructor(
    readonly limit: number,
    /** Whose bodies, in words for the error message. */
    readonly whose: string,
  ) {}
}

export interface BodyLimits {
  /** All bodies being read at once. */
  total: number;
  /** Bodies of calls without a session (logins) being read at once. */
  public: number;
  /** Bodies of one user's calls being read at once, over all of the user's sessions. */
  perUser: number;
}

/**
 * The bytes of request bodies being read at once, bounded three ways: in all, for calls without a
 * session, and per user. A body takes its bytes as they arrive (never what it declares), and gives
 * them back once it is parsed or refused; a body that does not fit gets 503 agent_busy. So callers
 * that declare large bodies and send them slowly hold only what they sent, logins cannot crowd out
 * logged-in users, and one user cannot crowd out the others.
 */
export class BodyBudgets {
  private readonly all: BytePool;
  private readonly publicBodies: BytePool;
  private readonly users = new Map<string, BytePool>();

  constructor(private readonly limits: BodyLimits) {
    this.all = new BytePool(limits.total, 'all callers');
    this.publicBodies = new BytePool(limits.public, 'callers without a session (logins)');
  }

  /** The share of a caller: `username` for a call with a session, undefined for a public one. */
  shareOf(username?: string): BodyShare {
    let own = this.publicBodies;
    if (username !== undefined) {
      own = this.users.get(username) ?? new BytePool(this.limits.perUser, `user ${JSON.stringify(username)}`);
      this.users.set(username, own);
    }
    own.readers++;
    return new BodyShare([this.all, own], () => {
      own.readers--;
      if (username !== undefined && own.readers === 0) this.users.delete(username);
    });
  }
}

/** What one body holds of the pools it draws on. */
export class BodyShare {
  private held = 0;
  private done = false;

  constructor(
    private readonly pools: BytePool[],
    private readonly onDone: () => void,
  ) {}

  /** Takes `bytes` more from every pool, or none if one of them has not that much left. */
  grow(bytes: number): void {
    const short = this.pools.find((pool) => pool.used + bytes > pool.limit);
    if (short)
      throw new ApiError(
        'agent_busy',
        `The agent is reading too many request bodies at once for ${short.whose} (${Math.round(short.limit / 1024)} KiB in all). Try again in a moment.`,
      );
    for (const pool of this.pools) pool.used += bytes;
    this.held += bytes;
  }

  /** Gives everything back; the body is done (parsed, refused or abandoned). */
  releaseAll(): void {
    if (this.done) return;
    this.done = true;
    for (const pool of this.pools) pool.used -= this.held;
    this.held = 0;
    this.onDone();
  }
}

/** Reads a JSON object body (see readBody). */
export async function readJsonObject(
  req: IncomingMessage,
  share: BodyShare,
  limit = MAX_BODY_BYTES,
  what = 'this call',
): Promise<Record<string, unknown>> {
  return parseObject((await readBody(req, share, limit, what)).toString('utf8'));
}

/**
 * Reads a body. The limit is checked against Content-Length before reading and against a running
 * count while streaming, so an oversized body is refused without buffering what is over the limit
 * (the rest is discarded as it arrives, which lets the client read the 413 before the connection
 * closes). `what` names the call in the error.
 */
export function readBody(
  req: IncomingMessage,
  share: BodyShare,
  limit = MAX_BODY_BYTES,
  what = 'this call',
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLargeError(limit, what, `(${declared} bytes declared)`));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const releaseAll = () => {
      chunks.length = 0;
      share.releaseAll();
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
        fail(new BodyTooLargeError(limit, what, `(over ${limit} bytes received)`));
        return;
      }
      try {
        share.grow(chunk.length);
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
