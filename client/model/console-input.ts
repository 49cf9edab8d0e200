/**
 * Keystrokes typed into a console terminal, mapped to what goes to the node.
 *
 * Two control keys are escapes of the emulator's console servers: Ctrl-A enters
 * the QEMU monitor and Ctrl-] the Dynamips/telnet escape. Hitting one by
 * accident can wedge or even kill a node, so a single press is swallowed with a
 * hint and only a second press in a row is sent.
 */

const GUARDED: Readonly<Record<string, string>> = {
  '\x01': 'Ctrl-A (the QEMU monitor escape)',
  '\x1d': 'Ctrl-] (the Dynamips/telnet escape)',
};

export interface MappedInput {
  /** Text for the telnet layer, which turns line breaks into the CR a console's Enter sends. */
  send: string;
  /** Hints for the user, to write into the terminal (already CRLF-terminated). */
  notices: string[];
}

export class ConsoleInputGuard {
  /** The guarded key pressed last, waiting for its confirming second press. */
  private armed: string | undefined;

  map(data: string): MappedInput {
    let send = '';
    const notices: string[] = [];
    for (const ch of data) {
      const name = GUARDED[ch];
      if (name === undefined) {
        this.armed = undefined;
        send += ch;
      } else if (this.armed === ch) {
        this.armed = undefined;
        send += ch;
      } else {
        this.armed = ch;
        notices.push(`\r\n[Lab Agent] ${name} was not sent. Press it again to send it.\r\n`);
      }
    }
    return { send, notices };
  }
}

/** What a key does while the console connection is down. */
export function keyWhileDisconnected(data: string): 'reconnect' | 'close' | 'ignore' {
  if (data === 'r' || data === 'R') return 'reconnect';
  if (data === 'q' || data === 'Q' || data === '\x1b') return 'close';
  return 'ignore';
}
