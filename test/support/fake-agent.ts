/**
 * A small HTTPS server on 127.0.0.1 that answers like an agent would not: the
 * replies each test chooses (not envelopes, wrong shapes, oversized, silence).
 * It stands in for a foreign server, so the client under test is the real one.
 */
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';
import { AgentClient } from '../../common/api/client';

export interface FakeCertificate {
  key: string;
  cert: string;
  fingerprint: string;
}

/** A self-signed certificate for 127.0.0.1 (clients pin its fingerprint). */
export async function fakeCertificate(): Promise<FakeCertificate> {
  const pems = await generate([{ name: 'commonName', value: 'fake agent' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { key: pems.private, cert: pems.cert, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}

export interface FakeAgent {
  client(token?: string): AgentClient;
  url: string;
  requests: { method?: string; url?: string; authorization?: string; bodyBytes: number }[];
  connections: () => number;
  /** Resolves when the next request has arrived (headers and body). */
  nextRequest(): Promise<void>;
}

export type Respond = (req: IncomingMessage, res: ServerResponse) => void;

/** Starts an HTTPS server answering with `respond`; it is stopped when the test ends. */
export async function fakeAgent(
  t: { after(fn: () => unknown): void },
  certificate: FakeCertificate,
  respond: Respond,
): Promise<FakeAgent> {
  const requests: FakeAgent['requests'] = [];
  let connections = 0;
  let arrived: (() => void) | undefined;
  const server: Server = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization, bodyBytes });
      arrived?.();
      respond(req, res);
    });
  });
  server.on('secureConnection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  const clients: AgentClient[] = [];
  t.after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    server.closeAllConnections();
    server.close();
  });
  return {
    url,
    requests,
    connections: () => connections,
    client(token = 'token-1') {
      const client = new AgentClient({ baseUrl: url, pin: certificate.fingerprint, token });
      clients.push(client);
      return client;
    },
    nextRequest: () => new Promise<void>((resolve) => (arrived = resolve)),
  };
}

/** Answers every request with `body` (JSON-encoded unless a string) and `status`. */
export const json =
  (status: number, body: unknown): Respond =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
