/**
 * `--record DIR`: every exchange with the EVE-NG server written to its own
 * JSON file, numbered in order, so a user can send what their server really
 * answers. The session cookie and the password never reach the files: the
 * login body's password, every Set-Cookie value and any later appearance of
 * either string are replaced by "<redacted>". Request headers are not kept.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const REDACTED = '<redacted>';

export interface RecordedExchange {
  seq: number;
  request: { method: string; path: string; body?: unknown };
  response: { status: number; setCookie?: string[]; body: unknown };
}

export class ExchangeRecorder {
  private seq = 0;
  private readonly secrets = new Set<string>();

  constructor(
    private readonly dir: string,
    password: string,
  ) {
    mkdirSync(dir, { recursive: true });
    if (password) this.secrets.add(password);
  }

  /** A cookie value the server handed out; it is redacted wherever it shows up from now on. */
  addSecret(value: string): void {
    if (value) this.secrets.add(value);
  }

  record(
    method: string,
    path: string,
    requestBody: unknown,
    status: number,
    setCookie: string[],
    responseText: string,
  ): void {
    this.seq++;
    let body: unknown = responseText;
    try {
      body = responseText ? JSON.parse(responseText) : undefined;
    } catch {
      // Keep non-JSON answers as text.
    }
    const exchange: RecordedExchange = {
      seq: this.seq,
      request: { method, path, ...(requestBody !== undefined ? { body: redactPassword(requestBody) } : {}) },
      response: {
        status,
        ...(setCookie.length ? { setCookie: setCookie.map((c) => c.replace(/=[^;]*/, `=${REDACTED}`)) } : {}),
        body,
      },
    };
    let json = JSON.stringify(exchange, null, 2);
    for (const secret of this.secrets) json = json.split(JSON.stringify(secret).slice(1, -1)).join(REDACTED);
    const slug = path
      .replace(/^\/api\//, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60);
    writeFileSync(
      join(this.dir, `${String(this.seq).padStart(4, '0')}-${method}-${slug || 'root'}.json`),
      `${json}\n`,
      {
        mode: 0o600,
      },
    );
  }
}

function redactPassword(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, /password/i.test(k) ? REDACTED : v]));
}
