/**
 * Agent sessions (decisions §8): opaque 32-byte hex tokens, 8 hours idle with a
 * sliding timer, each holding its own emulator session. Expired tokens stay
 * known for a while so a client is told "expired" rather than "unknown".
 */
import { randomBytes } from 'node:crypto';
import { SESSION_IDLE_MS } from '../common/api/contract';
import type { EmulatorClient } from './emulator/backend';
import { DocumentCache } from './domain/document-cache';
import { SharedReads } from './domain/shared-reads';
import { ApiError } from './http/api-error';

export interface LoginSession {
  token: string;
  username: string;
  lastUsedAt: number;
  emulator: EmulatorClient;
  /** Inspect results of this session, per lab path (decisions §4). */
  inspectCache: Map<string, { generation: number; data: unknown }>;
  /** The last document this session sent, parsed. */
  documents: DocumentCache;
  /** Plan, status and lab observations in flight, shared by identical calls of this session. */
  reads: SharedReads;
}

/** How long an expired token is still recognised as expired before it counts as unknown. */
const EXPIRED_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;

export class SessionStore {
  private readonly sessions = new Map<string, LoginSession>();

  constructor(private readonly clock: () => number) {}

  create(username: string, emulator: EmulatorClient): LoginSession {
    this.forgetOld();
    const session: LoginSession = {
      token: randomBytes(32).toString('hex'),
      username,
      lastUsedAt: this.clock(),
      emulator,
      inspectCache: new Map(),
      documents: new DocumentCache(),
      reads: new SharedReads(),
    };
    this.sessions.set(session.token, session);
    return session;
  }

  /** The session of a bearer token; every successful use slides its idle timer. */
  authenticate(authorization: string | undefined): LoginSession {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match)
      throw new ApiError('unauthenticated', 'Log in first: this call needs an "Authorization: Bearer <token>" header.');
    const session = this.sessions.get(match[1]);
    if (!session)
      throw new ApiError(
        'unauthenticated',
        'The session token is not known to this agent (it may have been logged out or the agent restarted). Log in again.',
      );
    const now = this.clock();
    if (now - session.lastUsedAt > SESSION_IDLE_MS) {
      throw new ApiError('expired_agent_session', 'The agent session expired after 8 hours without use. Log in again.');
    }
    session.lastUsedAt = now;
    return session;
  }

  end(session: LoginSession): void {
    this.sessions.delete(session.token);
  }

  private forgetOld(): void {
    const horizon = this.clock() - SESSION_IDLE_MS - EXPIRED_MEMORY_MS;
    for (const [token, session] of this.sessions) if (session.lastUsedAt < horizon) this.sessions.delete(token);
  }
}
