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
import type { Duplex } from 'node:stream';
import { IAC } from '../../../common/telnet/protocol';
import { LineClient, type ConsoleLine } from '../../console/line-client';
import { consoleGreeting } from '../../console/telnet';

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

/**
 * Back-pressure (line-client.ts): while a client is behind, the program's output is not read,
 * so the program blocks on its terminal as it would behind a slow serial line; a client that
 * stays behind is dropped and the others go on.
 */
export class PtyConsole implements ConsoleLine {
  private readonly clients = new Set<LineClient>();
  private readonly child: ChildProcess;
  private exited = false;

  /**
   * Runs `argv` on a fresh 80×24 pseudo-terminal; `onExit` runs once the program ends. `onActivity`
   * runs on what a client types and on what the program prints: typing marks a change on its way,
   * and the output after it (vtysh's next prompt) marks it done, so a read begun in between is not
   * taken for the state after the change.
   */
  constructor(
    private readonly title: string,
    argv: readonly string[],
    onExit: () => void,
    private readonly onActivity: () => void,
  ) {
    const command = `stty rows 24 cols 80 2>/dev/null; exec ${argv.map(shellWord).join(' ')}`;
    this.child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', TERM: 'xterm', LANG: 'C.UTF-8', HOME: '/root' },
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.onActivity();
      const data = escapeIac(chunk);
      let behind = false;
      for (const client of this.clients) if (!client.deliver(data)) behind = true;
      if (behind) this.child.stdout?.pause();
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
    const client = new LineClient(this);
    client.push(consoleGreeting(this.title));
    if (this.exited) client.push(null);
    else this.clients.add(client);
    return client;
  }

  detach(client: LineClient): void {
    this.clients.delete(client);
    this.drained();
  }

  /** Reads the program's output again once no client is behind. */
  drained(): void {
    if ([...this.clients].every((c) => !c.behind)) this.child.stdout?.resume();
  }

  input(client: LineClient, chunk: Buffer, ready: () => void): void {
    if (!this.clients.has(client) || this.exited) return ready();
    const bytes: number[] = [];
    for (const byte of client.telnet.decode(chunk)) {
      const afterCr = client.afterCr;
      client.afterCr = byte === CR;
      // Telnet ends a line with CR LF or CR NUL; the terminal wants one CR.
      if (afterCr && (byte === LF || byte === NUL)) continue;
      bytes.push(byte === LF ? CR : byte);
    }
    if (!bytes.length) return ready();
    this.onActivity();
    // A program that does not read its input holds the client's typing back, not the agent's memory.
    if (this.child.stdin?.write(Buffer.from(bytes)) === false) this.child.stdin.once('drain', ready);
    else ready();
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
