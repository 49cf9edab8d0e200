/**
 * Console text on its way to the integrated terminal. The terminal does no
 * newline translation, so a bare LF (common in node output) would leave the
 * cursor in its column; it becomes CRLF. Everything else passes through,
 * escape sequences included. A CR at the end of one chunk pairs with an LF at
 * the start of the next, so the state carries over.
 */
export class ConsoleOutput {
  private lastWasCr = false;

  write(text: string): string {
    let out = '';
    for (const ch of text) {
      if (ch === '\n' && !this.lastWasCr) out += '\r';
      out += ch;
      this.lastWasCr = ch === '\r';
    }
    return out;
  }
}

/** The banner written when the connection drops, telling the user how to go on. */
export function disconnectedBanner(reason: string | undefined): string {
  const why = reason && reason.trim() !== '' ? `: ${reason.trim()}` : '';
  return `\r\n\x1b[33m[Lab Agent] The console connection closed${why}.\x1b[0m\r\nPress R to reconnect with a fresh ticket, or Q to close this terminal.\r\n`;
}
