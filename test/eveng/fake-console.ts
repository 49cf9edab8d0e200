/**
 * A running fake node's console: a TCP telnet server on 127.0.0.1 that
 * behaves like EVE-NG's QEMU serial console. Each client gets
 * `IAC WILL ECHO, IAC WILL SGA, IAC WILL BINARY, IAC DO BINARY` and an xterm
 * title; the server drops the two bytes after any IAC it receives; several
 * clients share the one line and all see everything the device prints.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const IAC = 255;
const GREETING = Buffer.from([IAC, 251, 1, IAC, 251, 3, IAC, 251, 0, IAC, 253, 0]);

export interface FakeDevice {
  title: string;
  prompt(): string;
  /** Output of one command line, CRLF line ends, without the prompt. */
  run(line: string): string;
}

export class FakeConsole {
  private readonly clients = new Set<Socket>();
  private readonly server: Server;
  private line = '';
  private skip = 0;
  private afterCr = false;

  private constructor(private readonly device: FakeDevice) {
    this.server = createServer({ noDelay: true }, (socket) => this.accept(socket));
  }

  /** Listens on `preferredPort` when it is free (a restarted node keeps its port), else on any port. */
  static async open(
    device: FakeDevice,
    preferredPort: number | undefined,
  ): Promise<{ console: FakeConsole; port: number }> {
    const made = new FakeConsole(device);
    const listen = (port: number) =>
      new Promise<number>((resolve, reject) => {
        made.server.once('error', reject);
        made.server.listen(port, '127.0.0.1', () => {
          made.server.off('error', reject);
          resolve((made.server.address() as AddressInfo).port);
        });
      });
    let port: number;
    try {
      port = await listen(preferredPort ?? 0);
    } catch {
      port = await listen(0);
    }
    return { console: made, port };
  }

  close(): void {
    for (const socket of this.clients) socket.destroy();
    this.clients.clear();
    this.server.close();
  }

  private accept(socket: Socket): void {
    this.clients.add(socket);
    socket.on('close', () => this.clients.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.write(Buffer.concat([GREETING, Buffer.from(`\x1b]0;${this.device.title}\x07`)]));
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  private receive(chunk: Buffer): void {
    for (const byte of chunk) {
      if (this.skip > 0) {
        this.skip--;
        continue;
      }
      if (byte === IAC) {
        this.skip = 2;
        continue;
      }
      const afterCr = this.afterCr;
      this.afterCr = byte === 0x0d;
      if (byte === 0x0d || (byte === 0x0a && !afterCr)) {
        const output = this.device.run(this.line);
        this.line = '';
        this.broadcast(`\r\n${output}${this.device.prompt()}`);
      } else if (byte === 0x0a || byte === 0x00) {
        continue;
      } else if (byte === 0x7f || byte === 0x08) {
        if (this.line) {
          this.line = this.line.slice(0, -1);
          this.broadcast('\b \b');
        }
      } else if (byte >= 0x20 && this.line.length < 1024) {
        this.line += String.fromCharCode(byte);
        this.broadcast(String.fromCharCode(byte));
      }
    }
  }

  private broadcast(text: string): void {
    for (const socket of this.clients) socket.write(text, 'latin1');
  }
}
