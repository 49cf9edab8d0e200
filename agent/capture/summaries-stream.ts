/**
 * streamCaptureSummaries (decisions §14): GET /api/v1/capture/summaries/{ticket},
 * with the `summaries_ticket` of startCapture and the bearer token of the
 * session that started it. Success is 200 and a chunked body of one JSON
 * object a line (capture-summaries.ts); a refused ticket is an envelope
 * (thrown to the HTTP layer) before the first byte.
 */
import type { ServerResponse } from 'node:http';
import type { AgentContext } from '../context';
import type { LoginSession } from '../sessions';

export function streamCaptureSummaries(
  ctx: AgentContext,
  session: LoginSession,
  ticket: string,
  res: ServerResponse,
): void {
  ctx.captures.redeemSummaries(ticket, session.token).attach(res);
}
