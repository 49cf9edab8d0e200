/**
 * One-time tickets (decisions §3, §14): 64 lowercase hex characters, valid
 * once, for 30 seconds, and only with the bearer token of the session that
 * got them. Console attach and capture start each hand out their own kind.
 */
import { randomBytes } from 'node:crypto';
import { TICKET_PATTERN, TICKET_TTL_MS } from '../../common/api/contract';
import { ApiError } from '../http/api-error';

export interface ConsoleTarget {
  lab: string;
  nodeId: number;
  nodeName: string;
}

interface Ticket<T> {
  value: T;
  sessionToken: string;
  expiresAt: number;
}

export class OneTimeTickets<T> {
  private readonly tickets = new Map<string, Ticket<T>>();

  constructor(
    private readonly clock: () => number,
    /** What a refused ticket answers: what it was for and how to get a new one. */
    private readonly refusal: string,
  ) {}

  issue(sessionToken: string, value: T): string {
    this.prune();
    const ticket = randomBytes(32).toString('hex');
    this.tickets.set(ticket, { value, sessionToken, expiresAt: this.clock() + TICKET_TTL_MS });
    return ticket;
  }

  /** Uses up a ticket; any failure is the same 403, so a caller learns nothing about other sessions' tickets. */
  redeem(ticket: string, sessionToken: string): T {
    const invalid = new ApiError('browser_token_invalid', this.refusal);
    if (!TICKET_PATTERN.test(ticket)) throw invalid;
    const found = this.tickets.get(ticket);
    if (!found || found.sessionToken !== sessionToken) throw invalid;
    this.tickets.delete(ticket);
    if (found.expiresAt <= this.clock()) throw invalid;
    return found.value;
  }

  /** The unexpired tickets whose value `matches`. */
  count(matches: (value: T) => boolean): number {
    this.prune();
    let n = 0;
    for (const { value } of this.tickets.values()) if (matches(value)) n++;
    return n;
  }

  private prune(): void {
    const now = this.clock();
    for (const [id, t] of this.tickets) if (t.expiresAt <= now) this.tickets.delete(id);
  }
}

export class ConsoleTickets extends OneTimeTickets<ConsoleTarget> {
  constructor(clock: () => number) {
    super(
      clock,
      'The console ticket is unknown, already used, expired (tickets last 30 seconds) or belongs to another session. Attach again for a new one.',
    );
  }
}
