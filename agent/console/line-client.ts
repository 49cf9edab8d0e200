/**
 * One telnet client of a console line that several clients share (a node's
 * console, as EVE-NG's console server shares it). The line hands it output
 * with deliver(); the client applies back-pressure both ways:
 *
 * - A client that stops reading falls behind once its buffer passes the
 *   stream's high-water mark: deliver() answers false so the line can pause
 *   its program, and the client's own input waits (its typing cannot make
 *   more output for it).
 * - A client that stays behind for STALLED_DROP_MS, or is handed more than
 *   MAX_BEHIND_BYTES all the same (by a line that cannot pause), is dropped:
 *   its connection closes and the line goes on for the others.
 */
import { Duplex } from 'node:stream';
import { TelnetDecoder } from './telnet';

/** How long a client may stay behind before it is dropped. */
export const STALLED_DROP_MS = 15_000;
/** Output a client may hold unread, whatever the line does; past it, it is dropped. */
const MAX_BEHIND_BYTES = 1024 * 1024;

export interface ConsoleLine {
  /** Input typed by `client` (telnet bytes); the line calls `ready` when it takes more. */
  input(client: LineClient, chunk: Buffer, ready: () => void): void;
  /** `client` reads again: a line that paused for it may resume. */
  drained(client: LineClient): void;
  /** `client` is gone. */
  detach(client: LineClient): void;
}

export class LineClient extends Duplex {
  readonly telnet = new TelnetDecoder('device');
  /** The previous byte was CR: a following LF or NUL belongs to the same line end. */
  afterCr = false;
  /** The last push() answered false and the stream has not asked for more since (Readable's protocol). */
  private full = false;
  /** Input that waits until the client reads again. */
  private heldWrite: (() => void) | undefined;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(private readonly line: ConsoleLine) {
    super();
  }

  /** Whether the client's unread output has reached its high-water mark and it has not read since. */
  get behind(): boolean {
    return this.full;
  }

  /** Output of the line for this client; false when the client has fallen behind (the line should pause if it can). */
  deliver(bytes: Buffer): boolean {
    if (this.destroyed || this.readableEnded) return true;
    if (this.readableLength + bytes.length > MAX_BEHIND_BYTES) {
      this.destroy();
      return true;
    }
    this.full = !this.push(bytes);
    if (!this.full) return true;
    this.stallTimer ??= setTimeout(() => this.destroy(), STALLED_DROP_MS).unref();
    return false;
  }

  override _read(): void {
    this.full = false;
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    const held = this.heldWrite;
    this.heldWrite = undefined;
    held?.();
    this.line.drained(this);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.line.input(this, chunk, () => {
      if (this.behind && !this.destroyed) this.heldWrite = () => callback();
      else callback();
    });
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.line.detach(this);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.stallTimer);
    this.line.detach(this);
    callback(error);
  }
}
