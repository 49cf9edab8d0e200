/**
 * Test support for agent behaviour: a real reference agent in-process, on a
 * free port, with its own data directory, and a raw HTTPS client that trusts
 * exactly that agent's certificate.
 */
import { request as httpsRequest, Agent } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentOptions, type RunningAgent } from '../../agent/server';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { ok: boolean; data?: any; error?: string; code?: string };
}

export interface TestAgent extends RunningAgent {
  dataDir: string;
  /** Calls the API; `token` adds the bearer header. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<Reply>;
  login(username?: string, password?: string): Promise<string>;
  /** Stops the agent and deletes its data directory. */
  dispose(): Promise<void>;
}

export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'lab-agent-test-'));
}

export async function startTestAgent(options: Partial<AgentOptions> = {}): Promise<TestAgent> {
  const dataDir = options.dataDir ?? makeDataDir();
  const agent = await startAgent({ port: 0, bootMs: 20, writeDelayMs: 1, ...options, dataDir });
  const httpsAgent = new Agent({ ca: agent.certPem, keepAlive: true });
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    rawCall(
      agent.url,
      agent.certPem,
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      token,
      httpsAgent,
    );
  return {
    ...agent,
    dataDir,
    call,
    async login(username = 'lab', password = 'lab') {
      const reply = await call('POST', '/api/v1/login', { username, password });
      if (!reply.body.ok) throw new Error(`login failed: ${JSON.stringify(reply.body)}`);
      return reply.body.data.token as string;
    },
    async dispose() {
      httpsAgent.destroy();
      await agent.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function rawCall(
  url: string,
  ca: string,
  method: string,
  path: string,
  payload?: string | Buffer,
  token?: string,
  agent?: Agent,
  extraHeaders: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...extraHeaders };
    if (token) headers.authorization = `Bearer ${token}`;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = httpsRequest(new URL(path, url), { method, ca, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
        } catch {
          reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A lab of `count` linux nodes in a chain: big enough that deploying it takes a while. */
export function chainLab(name: string, count: number): string {
  const nodes = Array.from({ length: count }, (_, i) => `  n${i}:\n    ethernet: 2\n`).join('');
  const links = Array.from({ length: count - 1 }, (_, i) => `  - endpoints: [n${i}:e1, n${i + 1}:e0]\n`).join('');
  return `name: ${name}\ndefaults:\n  template: linux\nnodes:\n${nodes}links:\n${links}`;
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
