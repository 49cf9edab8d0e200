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
    if (text === '') return text;
    // Megabytes of output a second go through here, nearly all of it with CRLF line ends already:
    // look for a bare LF with indexOf (fast), and only then rewrite the text in one regular-expression pass.
    // An LF that starts this chunk pairs with the CR that ended the last one: it is not bare (and a
    // chunk boundary falls between CR and LF once in every few dozen chunks, so it must not cost a rewrite).
    const pairsWithCr = this.lastWasCr && text.charCodeAt(0) === LF;
    this.lastWasCr = text.charCodeAt(text.length - 1) === CR;
    if (!hasBareLf(text, pairsWithCr ? 1 : 0)) return text;
    const out = text.replace(BARE_LF, '\r\n');
    return pairsWithCr ? out.slice(1) : out;
  }
}

const CR = 0x0d;
const LF = 0x0a;
/** An LF not preceded by a CR in the same chunk. */
const BARE_LF = /(?<!\r)\n/g;

/** Whether `text` has an LF not preceded by a CR, from index `from` on (an LF at 0 counts as bare). */
function hasBareLf(text: string, from: number): boolean {
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1))
    if (at === 0 || text.charCodeAt(at - 1) !== CR) return true;
  return false;
}

/** The banner written when the connection drops, telling the user how to go on. */
export function disconnectedBanner(reason: string | undefined): string {
  const why = reason && reason.trim() !== '' ? `: ${reason.trim()}` : '';
  return `\r\n\x1b[33m[Lab Agent] The console connection closed${why}.\x1b[0m\r\nPress R to reconnect with a fresh ticket, or Q to close this terminal.\r\n`;
}
