/**
 * The packet summaries of one capture (decisions §14): they join its pcapng
 * stream, which starts the agent's dissector and feeds it the bytes it sends,
 * and its summaries stream (summaries-stream.ts), which writes the dissector's
 * lines: one JSON object a line, a PacketSummary per packet numbered as in the
 * pcapng, and a last line (SummariesEndLine) saying why they ended. The
 * dissector never slows the pcapng stream (backend.ts, PacketSummarizer).
 */
import type { ServerResponse } from 'node:http';
import { NDJSON_MEDIA_TYPE, TICKET_TTL_MS, type SummariesEndLine } from '../../common/api/contract';
import type { PacketSummarizer } from '../emulator/backend';

/** Once the capture has ended, a reader that does not take the rest within this long is cut off. */
const FLUSH_MS = 10_000;

/**
 * The summaries of one capture: the pcapng stream starts the dissector and
 * feeds it; the summaries stream reads it. Either may open first; each ticket
 * lives 30 s, so one not used by then ends the other's part.
 */
export class CaptureSummaries {
  private summarizer: PacketSummarizer | undefined;
  private reader: ServerResponse | undefined;
  /** How the summaries ended without a dissector (it could not start, or the capture never did). */
  private ending: SummariesEndLine | undefined;
  private captureOpened = false;
  private abandoned = false;

  constructor(private readonly startDissector: () => Promise<PacketSummarizer>) {
    const expiry = setTimeout(() => {
      if (!this.reader) this.abandon();
      if (!this.captureOpened)
        this.close(
          "The capture's pcapng stream was not opened within 30 seconds of startCapture, so there is nothing to summarize.",
        );
    }, TICKET_TTL_MS + 1000);
    expiry.unref();
  }

  /** The pcapng stream's ticket was used. */
  opened(): void {
    this.captureOpened = true;
  }

  /** The capture runs: the dissector starts, before the stream's first byte. */
  async begin(): Promise<void> {
    if (this.abandoned || this.ending) return;
    try {
      this.summarizer = await this.startDissector();
    } catch (e) {
      this.close(`The agent could not start tshark: ${(e as Error).message}`);
      return;
    }
    if (this.abandoned) this.summarizer.stop();
    else if (this.reader) this.pipe(this.reader, this.summarizer);
  }

  /** Bytes the pcapng stream sent. */
  feed(bytes: Buffer): void {
    this.summarizer?.write(bytes);
  }

  /** The pcapng stream has ended (or could not start: `problem` says why). */
  finish(problem?: string): void {
    if (this.summarizer) this.summarizer.end();
    else this.close(problem ?? 'The capture ended before its summaries began.');
  }

  /** Ends summaries that have no dissector with `failed` (an agent stopping, a capture that never ran). */
  close(message: string): void {
    if (this.summarizer || this.ending) return;
    this.ending = { end: 'failed', packets: 0, message };
    if (this.reader) this.endWith(this.reader, this.ending);
  }

  /** The summaries stream opened: its head now, the lines as the dissector prints them. */
  attach(res: ServerResponse): void {
    this.reader = res;
    res.writeHead(200, {
      'Content-Type': NDJSON_MEDIA_TYPE,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    // The head goes now: the first line may be a while (the capture not opened yet, a quiet link).
    res.flushHeaders();
    if (this.summarizer) this.pipe(res, this.summarizer);
    else if (this.ending) this.endWith(res, this.ending);
    res.on('close', () => {
      if (!res.writableFinished) this.abandon();
    });
  }

  /** Nobody reads the summaries: the dissector stops (the capture goes on). */
  private abandon(): void {
    this.abandoned = true;
    this.summarizer?.stop();
  }

  private pipe(res: ServerResponse, summarizer: PacketSummarizer): void {
    const { summaries } = summarizer;
    summaries.on('data', (summary: object) => {
      if (!res.write(`${JSON.stringify(summary)}\n`)) summaries.pause();
    });
    res.on('drain', () => summaries.resume());
    summaries.on('end', () =>
      this.endWith(res, summarizer.outcome ?? { end: 'failed', packets: 0, message: 'tshark ended.' }),
    );
  }

  private endWith(res: ServerResponse, line: SummariesEndLine): void {
    if (res.writableEnded) return;
    res.end(`${JSON.stringify(line)}\n`);
    setTimeout(() => res.destroy(), FLUSH_MS).unref();
  }
}
