/**
 * A simulated node's console line. Like EVE-NG's console server it accepts
 * several telnet clients at once: every client gets the telnet greeting, input
 * from any client reaches the one line of the device, and all clients see
 * everything the device prints (including the echo of what others type).
 */
import { Duplex } from 'node:stream';
import { consoleGreeting, TelnetDecoder } from '../../console/telnet';
import { promptOf, runCommand, type DeviceView } from './device-cli';

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

class ConsoleClient extends Duplex {
  readonly telnet = new TelnetDecoder('device');
  /** The previous byte was CR, so a following LF or NUL belongs to the same line end. */
  afterCr = false;
  /** Inside a terminal escape sequence (arrow keys and the like), which the device ignores. */
  escape: 'none' | 'esc' | 'csi' = 'none';

  constructor(private readonly hub: ConsoleHub) {
    super();
  }

  override _read(): void {
    // Output is pushed by the hub as the device prints it.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.hub.receive(this, chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.hub.detach(this);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.hub.detach(this);
    callback(error);
  }
}

export class ConsoleHub {
  private readonly clients = new Set<ConsoleClient>();
  private line: number[] = [];

  constructor(
    private readonly title: string,
    private readonly view: () => DeviceView,
  ) {}

  attach(): Duplex {
    const client = new ConsoleClient(this);
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

  detach(client: ConsoleClient): void {
    this.clients.delete(client);
  }

  receive(client: ConsoleClient, chunk: Buffer): void {
    if (!this.clients.has(client)) return;
    for (const byte of client.telnet.decode(chunk)) {
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

  private skipEscape(client: ConsoleClient, byte: number): boolean {
    switch (client.escape) {
      case 'none':
        if (byte !== ESC) return false;
        client.escape = 'esc';
        return true;
      case 'esc':
        client.escape = byte === 0x5b || byte === 0x4f ? 'csi' : 'none';
        return true;
      case 'csi':
        if (byte >= 0x40 && byte <= 0x7e) client.escape = 'none';
        return true;
    }
  }

  private enter(): void {
    const text = Buffer.from(this.line).toString('utf8');
    this.line = [];
    const view = this.view();
    this.broadcast(Buffer.from(`\r\n${runCommand(view, text)}${promptOf(view)}`, 'utf8'));
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
    for (const client of this.clients) client.push(bytes);
  }
}
