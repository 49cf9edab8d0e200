/**
 * Serves a recording made with `--record`: each request gets the recorded
 * answer of the first exchange not yet used with the same method, path and
 * body (a redacted field in the recording matches anything). Requests the
 * recording does not hold are answered 500 and listed in `misses`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { REDACTED, type RecordedExchange } from '../../agent/emulator/eveng/recorder';

export function readRecording(dir: string): RecordedExchange[] {
  return readdirSync(dir)
    .filter((f) => /^\d+-.*\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as RecordedExchange);
}

function sameBody(recorded: unknown, sent: unknown): boolean {
  if (recorded === REDACTED) return true;
  if (typeof recorded === 'object' && recorded !== null && typeof sent === 'object' && sent !== null) {
    const a = recorded as Record<string, unknown>;
    const b = sent as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameBody(a[k], b[k]));
  }
  return isDeepStrictEqual(recorded, sent);
}

export class ReplayServer {
  readonly used = new Set<number>();
  readonly misses: string[] = [];
  private readonly server: Server;

  constructor(readonly exchanges: RecordedExchange[]) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text ? JSON.parse(text) : undefined;
        const found = this.exchanges.find(
          (e) =>
            !this.used.has(e.seq) &&
            e.request.method === req.method &&
            e.request.path === req.url &&
            sameBody(e.request.body, body),
        );
        if (!found) {
          this.misses.push(`${req.method} ${req.url} ${text}`);
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ code: 500, status: 'error', message: 'Not in the recording.' }));
          return;
        }
        this.used.add(found.seq);
        const cookies = (found.response.setCookie ?? []).map((c) => c.replace(REDACTED, `replayed-${found.seq}`));
        res.writeHead(found.response.status, {
          'Content-Type': 'application/json',
          ...(cookies.length ? { 'Set-Cookie': cookies } : {}),
        });
        res.end(found.response.body === undefined ? '' : JSON.stringify(found.response.body));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
