/**
 * Console attach and stream: which field of the attach reply carries the
 * one-time ticket (decisions §3), and the two calls that open a console.
 */
import type { Duplex } from 'node:stream';
import { TICKET_PATTERN, type ConsoleAttachData, type ConsolePayload } from './contract';
import { AgentError } from './errors';
import type { CallOptions, OperationMethods } from './operations';

/** The ticket of an attach reply, in the order of decisions §3: `ticket`; the last segment of `stream`; `stream` itself. */
export function ticketOf(attach: ConsoleAttachData): string | undefined {
  if (typeof attach?.ticket === 'string' && TICKET_PATTERN.test(attach.ticket)) return attach.ticket;
  const stream = attach?.stream;
  if (typeof stream !== 'string') return undefined;
  const lastSegment =
    stream
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() ?? '';
  if (TICKET_PATTERN.test(lastSegment)) return lastSegment;
  return TICKET_PATTERN.test(stream) ? stream : undefined;
}

export interface OpenConsole {
  attach: ConsoleAttachData;
  /** The raw telnet byte stream; see common/telnet for the protocol. */
  socket: Duplex;
}

/** attachConsole, then streamConsole with its ticket (used at once: tickets live 30 seconds). */
export async function openConsole(
  client: Pick<OperationMethods, 'attachConsole' | 'streamConsole'>,
  request: ConsolePayload,
  options?: CallOptions,
): Promise<OpenConsole> {
  const attach = await client.attachConsole(request, options);
  const ticket = ticketOf(attach);
  if (ticket === undefined) {
    throw new AgentError(
      'invalid_response',
      'attachConsole: the agent granted the console but its reply carries no 64-hex ticket.',
      'attachConsole',
    );
  }
  const socket = await client.streamConsole({ ticket }, options);
  return { attach, socket };
}
