/**
 * Logging to the client's output channel. Every message passes through
 * redaction of the current session's secrets: an error text that happens to
 * quote a token must not end up in a log.
 */
import type { Connection } from 'vscode-languageserver/node';

export class Log {
  /** Each agent's secrets, by agent name: one agent's new session does not unredact another's token. */
  private readonly secrets = new Map<string, string[]>();

  constructor(private readonly connection: Connection) {}

  /** Strings of `owner` (an agent) that must never appear in a log (its session token). */
  setSecrets(owner: string, secrets: readonly string[]): void {
    this.secrets.set(
      owner,
      secrets.filter((s) => s.length >= 4),
    );
  }

  warn(message: string): void {
    this.connection.console.warn(this.redact(message));
  }

  error(message: string, error?: unknown): void {
    const detail = error === undefined ? '' : `: ${describe(error)}`;
    this.connection.console.error(this.redact(`${message}${detail}`));
  }

  private redact(message: string): string {
    let result = message;
    for (const secrets of this.secrets.values())
      for (const secret of secrets) result = result.split(secret).join('***');
    return result;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
