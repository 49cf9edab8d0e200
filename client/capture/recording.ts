/**
 * One capture, client side: asks the agent for it (startCapture), writes the
 * pcapng stream to its file as it arrives, and lets readers (the tshark
 * decoder, Wireshark) follow the file from its first byte at their own pace.
 *
 * The file is the only copy: a reader that falls behind stops taking live
 * chunks and catches up by reading the file, so a slow reader never grows
 * memory nor slows the capture, and a reader started late (a new display
 * filter, Wireshark opened mid-capture) still sees every packet. No `vscode`
 * import: the integration test runs it against the real agent.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { AgentClient } from '../../common/api/client';
import { CAPTURE_END_TRAILER, type CapturePayload, type CaptureStartData } from '../../common/api/contract';

/** Bytes read from the file at once by a reader catching up. */
const CATCH_UP_CHUNK = 1 << 20;

/**
 * How a capture ended: the user stopped it, the agent ended it (its Capture-End reason), the
 * connection to the agent broke off (`lost`: the agent died, the network failed), or writing
 * the file failed (`error`).
 */
export type CaptureEnding =
  { by: 'user' } | { by: 'agent'; reason: string } | { by: 'lost'; error: unknown } | { by: 'error'; error: unknown };

type CaptureCalls = Pick<AgentClient, 'startCapture' | 'streamCapture' | 'streamCaptureSummaries'>;

export class CaptureRecording {
  /** Bytes of the stream in the file (written and readable). */
  private written = 0;
  private finished = false;
  private readonly readers = new Set<FileReader>();
  private readonly controller = new AbortController();
  private stoppedByUser = false;
  /** Settles once the stream has ended and the file is closed; never rejects. */
  readonly ended: Promise<CaptureEnding>;

  private constructor(
    readonly file: string,
    readonly started: CaptureStartData,
    /** The agent's packet summaries (decisions §14), when asked for and offered; read them or destroy them. */
    readonly summaries: Readable | undefined,
    private readonly writer: FileHandle,
    private readonly reader: FileHandle,
    body: AsyncIterable<Buffer> & { destroy(): void },
    trailers: Record<string, string>,
  ) {
    this.ended = this.record(body, trailers);
  }

  /**
   * Starts a capture and opens its stream; the file is created (with its folders) only once the
   * agent has accepted, and never overwrites one. Errors of the agent throw (AgentError). With
   * `summaries` (the agent has `capture_summaries`), the agent's summaries stream is opened too;
   * one that cannot be opened leaves `summaries` undefined and the capture as it is.
   */
  static async start(
    client: CaptureCalls,
    payload: CapturePayload,
    file: string,
    options: { summaries?: boolean } = {},
  ): Promise<CaptureRecording> {
    const started = await client.startCapture(options.summaries === true ? { ...payload, summaries: true } : payload);
    if (typeof started.ticket !== 'string')
      throw new Error('The agent accepted the capture but sent no ticket to stream it with.');
    const summaries =
      typeof started.summaries_ticket === 'string'
        ? await client
            .streamCaptureSummaries({ ticket: started.summaries_ticket })
            .then((reply) => reply.body)
            .catch(() => undefined)
        : undefined;
    let reply;
    try {
      reply = await client.streamCapture({ ticket: started.ticket });
    } catch (err) {
      summaries?.destroy();
      throw err;
    }
    let writer: FileHandle | undefined;
    try {
      await mkdir(dirname(file), { recursive: true });
      writer = await open(file, 'wx');
      const reader = await open(file, 'r');
      return new CaptureRecording(file, started, summaries, writer, reader, reply.body, reply.trailers);
    } catch (err) {
      // Closing the stream stops the capture on the agent.
      reply.body.destroy();
      summaries?.destroy();
      await writer?.close();
      throw new Error(`Cannot write the capture file ${file}: ${(err as Error).message}`, { cause: err });
    }
  }

  get bytes(): number {
    return this.written;
  }

  /** Ends the capture: the stream is closed, which stops it on the agent. */
  stop(): void {
    this.stoppedByUser = true;
    this.controller.abort();
  }

  /**
   * Writes the capture to `sink` from its first byte, then as it arrives, and ends `sink`
   * when the capture has ended. A sink that fails (a reader that exits) is dropped quietly.
   */
  follow(sink: Writable): { stop(): void } {
    const reader = new FileReader(this, sink, () => this.readers.delete(reader));
    this.readers.add(reader);
    reader.catchUp();
    return { stop: () => reader.close() };
  }

  private async record(body: AsyncIterable<Buffer> & { destroy(): void }, trailers: Record<string, string>) {
    let ending: CaptureEnding;
    let writing = false;
    const abort = () => body.destroy();
    this.controller.signal.addEventListener('abort', abort);
    try {
      for await (const chunk of body) {
        // Waiting for the disk slows reading, and the agent with it (it holds at most 4 MiB).
        writing = true;
        await this.writer.write(chunk, 0, chunk.length, this.written);
        writing = false;
        this.written += chunk.length;
        for (const reader of this.readers) reader.live(chunk);
      }
      const reason = trailers[CAPTURE_END_TRAILER];
      ending = this.stoppedByUser
        ? { by: 'user' }
        : reason
          ? { by: 'agent', reason }
          : { by: 'lost', error: new Error('the stream ended without saying why (no Capture-End trailer)') };
    } catch (err) {
      ending = this.stoppedByUser ? { by: 'user' } : { by: writing ? 'error' : 'lost', error: err };
    } finally {
      this.controller.signal.removeEventListener('abort', abort);
    }
    await this.writer.close().catch(() => undefined);
    this.finished = true;
    for (const reader of [...this.readers]) reader.catchUp();
    return ending;
  }

  /** For FileReader: the file's readable length, whether it is complete, and a read of it. */
  get state(): { written: number; finished: boolean } {
    return { written: this.written, finished: this.finished };
  }

  async read(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.reader.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  }

  /** Closes the file the readers read; call once the capture has ended and no reader is needed. */
  async close(): Promise<void> {
    for (const reader of [...this.readers]) reader.close();
    await this.reader.close().catch(() => undefined);
  }
}

/** One follower of the file: live while it keeps up, reading the file while it catches up. */
class FileReader {
  /** Bytes given to the sink so far. */
  private offset = 0;
  private isLive = false;
  private catchingUp = false;
  private closed = false;

  constructor(
    private readonly recording: CaptureRecording,
    private readonly sink: Writable,
    private readonly onClosed: () => void,
  ) {
    sink.on('error', () => this.close());
    sink.on('close', () => this.close());
  }

  /** A chunk just written to the file at the end of what this reader has had (when live). */
  live(chunk: Buffer): void {
    if (!this.isLive || this.closed) return;
    this.offset += chunk.length;
    // Over its buffer: take no more live chunks until it drains, then read the file.
    if (!this.sink.write(chunk)) {
      this.isLive = false;
      this.sink.once('drain', () => this.catchUp());
    }
  }

  catchUp(): void {
    if (this.catchingUp || this.closed) return;
    this.catchingUp = true;
    void this.readFile().finally(() => (this.catchingUp = false));
  }

  private async readFile(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const { written, finished } = this.recording.state;
      if (this.offset >= written) {
        // Caught up: this check and going live are in one turn, so no chunk is missed.
        if (finished) {
          this.sink.end();
          this.close();
        } else this.isLive = true;
        return;
      }
      const chunk = await this.recording.read(this.offset, Math.min(CATCH_UP_CHUNK, written - this.offset));
      if (chunk.length === 0 || this.closed) return;
      this.offset += chunk.length;
      if (!this.sink.write(chunk))
        await new Promise((resolve) => {
          this.sink.once('drain', resolve);
          this.sink.once('close', resolve);
        });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.isLive = false;
    this.onClosed();
  }
}
