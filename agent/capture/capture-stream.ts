/**
 * streamCapture (decisions §14): GET /api/v1/capture/stream/{ticket} with the
 * bearer token of the session that started the capture. Success is 200 and a
 * chunked pcapng body for as long as the capture runs, read only as fast as
 * the client takes it; when the capture ends by itself, the trailer
 * `Capture-End` says why. A failure before the first byte is an envelope
 * (thrown to the HTTP layer).
 */
import type { ServerResponse } from 'node:http';
import { CAPTURE_END_TRAILER, PCAPNG_MEDIA_TYPE, type CaptureEnd } from '../../common/api/contract';
import type { AgentContext } from '../context';
import { EmuError, type CaptureStop, type PacketCapture } from '../emulator/backend';
import { ApiError } from '../http/api-error';
import type { LoginSession } from '../sessions';
import type { CaptureOrder } from './captures';

/** Once a capture has ended, a client that does not take the rest within this long is cut off. */
const FLUSH_MS = 10_000;

/** Why the capture ended, when the emulator ended it (or the reason the agent gave, when it did). */
function endOf(stop: CaptureStop | undefined, asked: CaptureEnd | undefined): CaptureEnd {
  if (stop === 'node_stopped' || stop === 'agent_stopping') return stop;
  return asked ?? 'failed';
}

export async function streamCapture(
  ctx: AgentContext,
  session: LoginSession,
  ticket: string,
  res: ServerResponse,
): Promise<void> {
  const order = ctx.captures.redeem(ticket, session.token);
  const { summaries } = order;
  summaries?.opened();
  // A client that left while the capture started (or before: the emulator's status is read first)
  // is seen as soon as it has started, not when its duration runs out.
  let gone = res.socket?.destroyed !== false;
  res.once('close', () => (gone = true));
  const emulator = session.emulator.capture;
  let capture: PacketCapture;
  try {
    if (!emulator) throw new ApiError('operation_not_allowed', 'This emulator does not capture packets.');
    try {
      capture = await emulator.start(order.lab, order.spec);
    } catch (e) {
      if (e instanceof EmuError && (e.kind === 'refused' || e.kind === 'not_found'))
        throw new ApiError(
          'node_not_running',
          `The capture cannot start: ${e.message} Start the node, then the capture.`,
        );
      throw e;
    }
  } catch (e) {
    summaries?.finish(`The capture did not start: ${(e as Error).message}`);
    throw e;
  }
  // The dissector runs before the first byte is sent, so that it reads them all.
  await summaries?.begin();
  if (gone || res.socket?.destroyed !== false) {
    capture.stop();
    capture.output.destroy();
    summaries?.finish();
    return;
  }
  res.writeHead(200, {
    'Content-Type': PCAPNG_MEDIA_TYPE,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Trailer: CAPTURE_END_TRAILER,
  });
  pump(ctx, order, capture, res);
}

/** Copies the capture's blocks to the response within the limits, until either side ends. */
function pump(ctx: AgentContext, order: CaptureOrder, capture: PacketCapture, res: ServerResponse): void {
  const { username, durationMs, maxBytes, summaries } = order;
  const { output } = capture;
  let asked: CaptureEnd | undefined;
  let sent = 0;
  let cutOff: NodeJS.Timeout | undefined;
  const end = (reason: CaptureEnd) => {
    asked ??= reason;
    capture.stop();
    cutOff ??= setTimeout(() => res.destroy(), FLUSH_MS);
  };
  const timer = setTimeout(() => end('duration'), durationMs);
  output.on('data', (blocks: Buffer[]) => {
    if (asked === 'max_bytes') return;
    let size = 0;
    let take = 0;
    for (const block of blocks) {
      if (sent + size + block.length > maxBytes) {
        end('max_bytes');
        break;
      }
      size += block.length;
      take++;
    }
    if (!take) return;
    sent += size;
    const bytes = take === 1 ? blocks[0] : Buffer.concat(blocks.slice(0, take), size);
    summaries?.feed(bytes);
    if (!res.write(bytes)) output.pause();
  });
  res.on('drain', () => output.resume());
  output.on('end', () => {
    clearTimeout(timer);
    res.addTrailers({ [CAPTURE_END_TRAILER]: endOf(capture.endedBy, asked) });
    res.end();
  });
  output.on('error', () => res.destroy());
  const closed = new Promise<void>((resolve) =>
    res.on('close', () => {
      clearTimeout(timer);
      clearTimeout(cutOff);
      // The client went away: the capture stops at once and what it still holds is dropped.
      if (!res.writableFinished) output.destroy();
      summaries?.finish();
      resolve();
    }),
  );
  ctx.captures.track({ username, end, closed });
}
