/**
 * A node's console line: one interactive program (vtysh for a router, a
 * shell for a host or switch) on a pseudo-terminal, shared by every telnet
 * client attached to it, as EVE-NG's console server shares a device's line.
 *
 * The pseudo-terminal comes from util-linux `script`, which is on every Linux
 * machine: no native Node module to build (node-pty needs a compiler and
 * Python at install time, or downloads prebuilt binaries). The terminal's line
 * discipline and the program's readline give line editing, `?`, tab
 * completion and Ctrl-C (SIGINT to the program) exactly as on a real box.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import { IAC } from '../../../common/telnet/protocol';
import { consoleGreeting, TelnetDecoder } from '../../console/telnet';

const CR = 0x0d;
const LF = 0x0a;
const NUL = 0x00;

/** Quotes one word for sh. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Doubles 0xFF in output, as telnet requires of data bytes. */
function escapeIac(chunk: Buffer): Buffer {
  if (!chunk.includes(IAC)) return chunk;
  const out: number[] = [];
  for (const byte of chunk) {
    out.push(byte);
    if (byte === IAC) out.push(IAC);
  }
  return Buffer.from(out);
}

class ConsoleClient extends Duplex {
  readonly telnet = new TelnetDecoder('device');
  /** The previous byte was CR: a following LF or NUL is part of the same line end. */
  afterCr = false;

  constructor(private readonly line: PtyConsole) {
    super();
  }

  override _read(): void {
    // Output is pushed as the program prints it.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.line.input(this, chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.line.detach(this);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.line.detach(this);
    callback(error);
  }
}

export class PtyConsole {
  private readonly clients = new Set<ConsoleClient>();
  private readonly child: ChildProcess;
  private exited = false;

  /** Runs `argv` on a fresh 80×24 pseudo-terminal; `onExit` runs once the program ends. */
  constructor(
    private readonly title: string,
    argv: readonly string[],
    onExit: () => void,
    private readonly onInput: () => void,
  ) {
    const command = `stty rows 24 cols 80 2>/dev/null; exec ${argv.map(shellWord).join(' ')}`;
    this.child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', TERM: 'xterm', LANG: 'C.UTF-8', HOME: '/root' },
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      const data = escapeIac(chunk);
      for (const client of this.clients) client.push(data);
    });
    this.child.stdin?.on('error', () => undefined);
    this.child.on('error', () => undefined);
    this.child.on('close', () => {
      this.exited = true;
      this.endClients();
      onExit();
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  attach(): Duplex {
    const client = new ConsoleClient(this);
    client.push(consoleGreeting(this.title));
    if (this.exited) client.push(null);
    else this.clients.add(client);
    return client;
  }

  detach(client: ConsoleClient): void {
    this.clients.delete(client);
  }

  input(client: ConsoleClient, chunk: Buffer): void {
    if (!this.clients.has(client) || this.exited) return;
    const bytes: number[] = [];
    for (const byte of client.telnet.decode(chunk)) {
      const afterCr = client.afterCr;
      client.afterCr = byte === CR;
      // Telnet ends a line with CR LF or CR NUL; the terminal wants one CR.
      if (afterCr && (byte === LF || byte === NUL)) continue;
      bytes.push(byte === LF ? CR : byte);
    }
    if (!bytes.length) return;
    this.onInput();
    this.child.stdin?.write(Buffer.from(bytes));
  }

  /** Ends the program (the node stopped) and closes every client. */
  close(): void {
    if (!this.exited) this.child.kill('SIGKILL');
    this.endClients();
  }

  private endClients(): void {
    for (const client of [...this.clients]) {
      this.clients.delete(client);
      client.push(null);
      client.end();
    }
  }
}
