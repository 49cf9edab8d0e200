/**
 * The captures of one agent (decisions §14): their tickets, the streams that
 * run, the limits on how many a user and the agent hold, and their end when
 * the agent stops.
 */
import type { CaptureEnd } from '../../common/api/contract';
import type { CaptureSpec } from '../emulator/backend';
import { ApiError } from '../http/api-error';
import { OneTimeTickets } from '../console/tickets';
import type { CaptureSummaries } from './capture-summaries';

/** Captures held at once (tickets not yet used count too). */
export const CAPTURE_QUOTAS = { perUser: 4, perAgent: 16 };

/** A capture asked for and not yet streamed: what a ticket stands for. */
export interface CaptureOrder {
  username: string;
  lab: string;
  spec: CaptureSpec;
  durationMs: number;
  maxBytes: number;
  /** The packet summaries asked for with the capture. */
  summaries?: CaptureSummaries;
}

interface OpenStream {
  username: string;
  /** Ends the stream with the reason given. */
  end: (reason: CaptureEnd) => void;
  closed: Promise<void>;
}

export class Captures {
  private readonly tickets: OneTimeTickets<CaptureOrder>;
  /** The summaries streams' tickets: counted with their capture's, not on their own. */
  private readonly summaryTickets: OneTimeTickets<CaptureSummaries>;
  private readonly streams = new Set<OpenStream>();

  constructor(clock: () => number) {
    this.tickets = new OneTimeTickets(
      clock,
      'The capture ticket is unknown, already used, expired (tickets last 30 seconds) or belongs to another session. Start the capture again for a new one.',
    );
    this.summaryTickets = new OneTimeTickets(
      clock,
      'The summaries ticket is unknown, already used, expired (tickets last 30 seconds) or belongs to another session. Start the capture again, with summaries, for a new one.',
    );
  }

  /**
   * A ticket for the order (and one for its summaries when it has them), or 503 agent_busy when the
   * user or the agent holds as many captures as it may.
   */
  issue(sessionToken: string, order: CaptureOrder): { ticket: string; summariesTicket?: string } {
    const mine = this.held((username) => username === order.username);
    if (mine >= CAPTURE_QUOTAS.perUser)
      throw new ApiError(
        'agent_busy',
        `You hold ${mine} captures (running or about to start), the most a user may; stop one before starting another.`,
      );
    if (this.held(() => true) >= CAPTURE_QUOTAS.perAgent)
      throw new ApiError(
        'agent_busy',
        `This agent runs ${CAPTURE_QUOTAS.perAgent} captures, the most it takes at once; try again when one has ended.`,
      );
    return {
      ticket: this.tickets.issue(sessionToken, order),
      summariesTicket: order.summaries && this.summaryTickets.issue(sessionToken, order.summaries),
    };
  }

  redeem(ticket: string, sessionToken: string): CaptureOrder {
    return this.tickets.redeem(ticket, sessionToken);
  }

  redeemSummaries(ticket: string, sessionToken: string): CaptureSummaries {
    return this.summaryTickets.redeem(ticket, sessionToken);
  }

  /** Counts a running stream until `closed` settles. */
  track(stream: OpenStream): void {
    this.streams.add(stream);
    void stream.closed.finally(() => this.streams.delete(stream));
  }

  /** The agent stops: every stream ends with `agent_stopping`; resolves when they are closed. */
  async stopAll(): Promise<void> {
    const all = [...this.streams];
    for (const stream of all) stream.end('agent_stopping');
    await Promise.all(all.map((s) => s.closed));
  }

  private held(of: (username: string) => boolean): number {
    let n = this.tickets.count((order) => of(order.username));
    for (const stream of this.streams) if (of(stream.username)) n++;
    return n;
  }
}
