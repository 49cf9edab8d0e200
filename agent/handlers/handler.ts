import type { AgentContext } from '../context';
import type { Body } from '../http/fields';
import type { LoginSession } from '../sessions';

export interface PublicRequest {
  ctx: AgentContext;
  body: Body;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The caller's address (for login throttling and logs). */
  address: string;
}

export interface SessionRequest extends PublicRequest {
  session: LoginSession;
}

export type PublicHandler = (req: PublicRequest) => Promise<unknown>;
export type SessionHandler = (req: SessionRequest) => Promise<unknown>;
