/** The console server's side of telnet: its greeting and the two ways of reading input (a device's, and a client's). */
import { DO, DONT, IAC, SB, SE, TelnetOption, WILL } from '../../common/telnet/protocol';

const { BINARY, ECHO, SGA } = TelnetOption;
const ESC = 0x1b;
const BEL = 0x07;

/**
 * What an EVE-NG console server sends to every client on connect: it will echo,
 * suppress go-ahead and speak binary both ways, then sets the terminal title.
 */
export function consoleGreeting(title: string): Buffer {
  return Buffer.concat([
    Buffer.from([IAC, WILL, ECHO, IAC, WILL, SGA, IAC, WILL, BINARY, IAC, DO, BINARY]),
    Buffer.from([ESC]),
    Buffer.from(`]0;${title}`, 'utf8'),
    Buffer.from([BEL]),
  ]);
}

type State = 'data' | 'iac' | 'skip' | 'sb' | 'sb_iac';

/**
 * Removes telnet commands from a byte stream, keeping state across chunks.
 *
 * - `device` reads input the way EVE-NG's console server does: after IAC it
 *   drops the next two bytes whatever they are (IAC IAC is a literal 0xFF and a
 *   subnegotiation is skipped up to IAC SE).
 * - `client` reads a server's output per RFC 854: option commands are three
 *   bytes, other commands two.
 */
export class TelnetDecoder {
  private state: State = 'data';

  constructor(private readonly mode: 'device' | 'client') {}

  decode(chunk: Buffer): Buffer {
    const out = Buffer.allocUnsafe(chunk.length);
    let n = 0;
    for (const byte of chunk) {
      switch (this.state) {
        case 'data':
          if (byte === IAC) this.state = 'iac';
          else out[n++] = byte;
          break;
        case 'iac':
          if (byte === IAC) {
            out[n++] = IAC;
            this.state = 'data';
          } else if (byte === SB) {
            this.state = 'sb';
          } else if (this.mode === 'device' || (byte >= WILL && byte <= DONT)) {
            this.state = 'skip';
          } else {
            this.state = 'data';
          }
          break;
        case 'skip':
          this.state = 'data';
          break;
        case 'sb':
          if (byte === IAC) this.state = 'sb_iac';
          break;
        case 'sb_iac':
          this.state = byte === SE ? 'data' : 'sb';
          break;
      }
    }
    return out.subarray(0, n);
  }
}
