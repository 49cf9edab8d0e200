/**
 * Console tickets (decisions §3): 64 lowercase hex characters, valid once, for
 * 30 seconds, and only with the bearer token of the session that attached.
 */
import { randomBytes } from 'node:crypto';
import { TICKET_PATTERN, TICKET_TTL_MS } from '../../common/api/contract';
import { ApiError } from '../http/api-error';

export interface ConsoleTarget {
  lab: string;
  nodeId: number;
  nodeName: string;
}

interface Ticket extends ConsoleTarget {
  sessionToken: string;
  expiresAt: number;
}

export class ConsoleTickets {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly clock: () => number) {}

  issue(sessionToken: string, target: ConsoleTarget): string {
    const now = this.clock();
    for (const [id, t] of this.tickets) if (t.expiresAt <= now) this.tickets.delete(id);
    const ticket = randomBytes(32).toString('hex');
    this.tickets.set(ticket, { ...target, sessionToken, expiresAt: now + TICKET_TTL_MS });
    return ticket;
  }

  /** Uses up a ticket; any failure is the same 403, so a caller learns nothing about other sessions' tickets. */
  redeem(ticket: string, sessionToken: string): ConsoleTarget {
    const invalid = new ApiError(
      'browser_token_invalid',
      'The console ticket is unknown, already used, expired (tickets last 30 seconds) or belongs to another session. Attach again for a new one.',
    );
    if (!TICKET_PATTERN.test(ticket)) throw invalid;
    const found = this.tickets.get(ticket);
    if (!found || found.sessionToken !== sessionToken) throw invalid;
    this.tickets.delete(ticket);
    if (found.expiresAt <= this.clock()) throw invalid;
    return { lab: found.lab, nodeId: found.nodeId, nodeName: found.nodeName };
  }
}
