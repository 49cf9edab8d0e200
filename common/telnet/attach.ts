/**
 * Binds a TelnetProtocol to a console socket (from openConsole): server output
 * arrives as text, negotiation answers are written back, user input is encoded.
 */
import type { Duplex } from 'node:stream';
import { TelnetProtocol } from './protocol';

export interface TelnetHandlers {
  /** Console output, telnet commands removed, UTF-8 decoded. */
  onText(text: string): void;
  /** Called once when the stream ends: reason is absent for a normal close, else what went wrong. */
  onClose(reason?: string): void;
}

export interface TelnetConnection {
  /** Sends what the user typed (line breaks become CR). Ignored once the stream is closed. */
  send(text: string): void;
  /** Ends the stream; onClose follows. */
  close(): void;
}

/** How long a closed console waits for the server to finish before dropping the socket. */
const CLOSE_GRACE_MS = 2000;

export function attachTelnet(socket: Duplex, handlers: TelnetHandlers): TelnetConnection {
  let closed = false;
  const session = new TelnetProtocol((bytes) => {
    if (socket.writable) socket.write(bytes);
  });
  const finish = (reason?: string): void => {
    if (closed) return;
    closed = true;
    const rest = session.end();
    if (rest) handlers.onText(rest);
    handlers.onClose(reason);
  };
  socket.on('data', (chunk: Buffer) => {
    const text = session.receive(chunk);
    if (text) handlers.onText(text);
  });
  socket.on('error', (err: Error) => finish(`console connection failed: ${err.message}`));
  socket.on('close', () => finish());
  return {
    send(text: string): void {
      if (!closed && socket.writable) socket.write(session.encode(text));
    },
    close(): void {
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    },
  };
}
