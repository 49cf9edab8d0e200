/**
 * A simulated node's console line. Like EVE-NG's console server it accepts
 * several telnet clients at once: every client gets the telnet greeting, input
 * from any client reaches the one line of the device, and all clients see
 * everything the device prints (including the echo of what others type).
 */
import type { Duplex } from 'node:stream';
import { LineClient, type ConsoleLine } from '../../console/line-client';
import { consoleGreeting } from '../../console/telnet';
import { promptOf, runDeviceCommand, type DeviceView } from './device-cli';

const CR = 0x0d;
const LF = 0x0a;
const NUL = 0x00;
const BACKSPACE = 0x08;
const DEL = 0x7f;
const CTRL_C = 0x03;
const CTRL_U = 0x15;
const ESC = 0x1b;
/** Longest command line the device keeps; more is dropped (as a terminal line buffer would). */
const MAX_LINE_BYTES = 4096;

/** A client's place in a terminal escape sequence (arrow keys and the like), which the device ignores. */
type EscapeState = 'none' | 'esc' | 'csi';

/**
 * Back-pressure (line-client.ts): the device prints only in answer to input, so a client that
 * stops reading cannot make it print more for itself (its input waits); a client that others'
 * typing keeps behind is dropped.
 */
export class ConsoleHub implements ConsoleLine {
  private readonly clients = new Set<LineClient>();
  private readonly escapes = new WeakMap<LineClient, EscapeState>();
  private line: number[] = [];

  constructor(
    private readonly title: string,
    private readonly view: () => DeviceView,
  ) {}

  attach(): Duplex {
    const client = new LineClient(this);
    this.clients.add(client);
    client.push(consoleGreeting(this.title));
    return client;
  }

  /** The node went down: its console server closes every connection. */
  close(): void {
    for (const client of [...this.clients]) {
      this.clients.delete(client);
      client.push(null);
      client.end();
    }
    this.line = [];
  }

  detach(client: LineClient): void {
    this.clients.delete(client);
  }

  drained(): void {
    // Nothing to resume: the device waits for input anyway.
  }

  input(client: LineClient, chunk: Buffer, ready: () => void): void {
    this.receive(client, chunk);
    ready();
  }

  private receive(client: LineClient, chunk: Buffer): void {
    if (!this.clients.has(client)) return;
    for (const byte of client.telnet.decode(chunk)) {
      // Dropped in the middle of its input (it fell too far behind): the rest is not typed.
      if (client.destroyed) return;
      if (this.skipEscape(client, byte)) continue;
      const afterCr = client.afterCr;
      client.afterCr = byte === CR;
      if (byte === CR || (byte === LF && !afterCr)) this.enter();
      else if (byte === LF || byte === NUL) continue;
      else if (byte === BACKSPACE || byte === DEL) this.erase();
      else if (byte === CTRL_C) this.cancel();
      else if (byte === CTRL_U) this.line = [];
      else if (byte >= 0x20 && this.line.length < MAX_LINE_BYTES) {
        this.line.push(byte);
        this.broadcast(Buffer.from([byte]));
      }
    }
  }

  private skipEscape(client: LineClient, byte: number): boolean {
    switch (this.escapes.get(client) ?? 'none') {
      case 'none':
        if (byte !== ESC) return false;
        this.escapes.set(client, 'esc');
        return true;
      case 'esc':
        this.escapes.set(client, byte === 0x5b || byte === 0x4f ? 'csi' : 'none');
        return true;
      case 'csi':
        if (byte >= 0x40 && byte <= 0x7e) this.escapes.set(client, 'none');
        return true;
    }
  }

  private enter(): void {
    const text = Buffer.from(this.line).toString('utf8');
    this.line = [];
    const view = this.view();
    this.broadcast(Buffer.from(`\r\n${runDeviceCommand(view, text)}${promptOf(view)}`, 'utf8'));
  }

  private erase(): void {
    if (!this.line.length) return;
    this.line.pop();
    this.broadcast(Buffer.from('\b \b'));
  }

  private cancel(): void {
    this.line = [];
    this.broadcast(Buffer.from(`^C\r\n${promptOf(this.view())}`));
  }

  private broadcast(bytes: Buffer): void {
    for (const client of this.clients) client.deliver(bytes);
  }
}
