/**
 * The one test harness of the reference agent: in-process, real HTTPS on
 * 127.0.0.1, a free port, its own temporary data directory and a clock the
 * test can move. Tests reach it through the typed API client (client(),
 * loggedIn()) or, to send what a client never would, raw HTTPS (call()).
 */
import { request as httpsRequest, Agent } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorKind } from '../../agent/emulator/registry';
import { startAgent, type AgentOptions, type RunningAgent } from '../../agent/server';
import { FakeEveServer } from '../eveng/fake-server';
import { seedExampleLabs } from '../eveng/harness/example-labs';
import { startCommunityHarness, type CommunityHarness } from '../eveng/harness/community-harness';
import { startUnetlabHarness, type UnetlabHarness } from '../eveng/harness/unetlab-harness';
import assert from 'node:assert/strict';
import { rejectsWith } from './rejects';
import { AgentClient, AgentError, type AgentConnection, type ClientHooks } from '../../common/api/client';

export const TEST_USER = { username: 'lab', password: 'lab' };

/**
 * With LAB_AGENT_TEST_EMULATOR=eve-ng, test agents that name no emulator front the fake EVE-NG
 * server (test/eveng/fake-server.ts) through the EVE-NG backend instead of the simulated emulator.
 */
export const TEST_EMULATOR_ENV = 'LAB_AGENT_TEST_EMULATOR';
/**
 * With LAB_AGENT_TEST_EVE_SERVER=unetlab as well, they front UNetLab's own API code under the
 * harness (test/eveng/harness/, which needs UNETLAB_SRC) instead of the fake; with
 * LAB_AGENT_TEST_EVE_SERVER=eve-ce, EVE-NG Community 6.2.0-4's own code under the community
 * harness (which needs EVENG_SRC).
 */
export const TEST_EVE_SERVER_ENV = 'LAB_AGENT_TEST_EVE_SERVER';
const EVE_ACCOUNT = { username: 'lab-agent-svc', password: 'eve-service-secret' };
/**
 * The reason lab_locked is skipped on an emulator that has no lab lock (UNetLab): no lab can be
 * locked there. test/eveng/contract-suite.test.ts checks that it is the only skip on the harness.
 */
export const NO_LAB_LOCK = 'this emulator has no lab lock (UNetLab: EVE-NG added it), so no lab is locked';
/** The emulator session's idle lifetime (EVE-NG: one hour, sliding). */
const EMU_SESSION_MS = 60 * 60 * 1000;

/** Real time plus an offset the test can advance (so boots still progress on their own). */
export class FakeClock {
  private offset = 0;
  readonly now = (): number => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

export interface TestAgentOptions {
  /** Reuse a data directory (e.g. of a stopped agent); it is then not removed by stop(). */
  dataDir?: string;
  /** Simulated node boot time; short by default so tests are quick. */
  bootMs?: number;
  /** The agent's clock; default: real time plus what the test advances with `clock`. */
  clock?: () => number;
  /** Time each emulator write takes (to make long operations observable). */
  writeDelayMs?: number;
  users?: AgentOptions['users'];
  /** Default: a free port. */
  port?: number;
  /** Default: eve-ng when LAB_AGENT_TEST_EMULATOR says so, else the simulated emulator. */
  emulator?: EmulatorKind;
  /** Heap of each validate worker in MB (the agent's --max-validate-memory). */
  validateHeapMb?: number;
  /** Time each validate worker may spend on one document, in seconds (the agent's --max-validate-seconds). */
  validateSeconds?: number;
  /** Connection time limits, made short to see them act. */
  timeouts?: AgentOptions['timeouts'];
  /** Where the agent logs (default: nowhere). */
  log?: (message: string) => void;
  /** Failed-login throttling (default: the agent's). */
  loginThrottle?: AgentOptions['loginThrottle'];
  /** Labs one user may own (default: the agent's). */
  labsPerUser?: number;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { ok: boolean; data?: any; error?: string; code?: string };
}

export interface TestAgent {
  url: string;
  /** The running agent itself (emulator description and problems). */
  running: RunningAgent;
  fingerprint: string;
  certPem: string;
  dataDir: string;
  clock: FakeClock;
  /** The fake EVE-NG server behind an eve-ng test agent. */
  fakeEve?: FakeEveServer;
  /** UNetLab's own code behind an eve-ng test agent, with LAB_AGENT_TEST_EVE_SERVER=unetlab. */
  unetlab?: UnetlabHarness;
  /** EVE-NG Community 6.2.0-4's own code behind an eve-ng test agent, with LAB_AGENT_TEST_EVE_SERVER=eve-ce. */
  eveCe?: CommunityHarness;
  /**
   * Whether the emulator can hold a lab locked by its owner, as its `/examples/locked.unl` is.
   * UNetLab cannot: it has no lab lock (EVE-NG added it), so that lab is there but not locked.
   */
  emulatorLocksLabs: boolean;
  /**
   * The xterm title a node's console sends on connect: `lab/node` in the simulation; on EVE-NG the
   * node's name, which is what the server gives the node's wrapper (cli.php: `qemu_wrapper … -t "<name>"`).
   */
  consoleTitle(lab: string, node: string): string;
  /**
   * Makes the emulator session behind every agent session expire for good: an hour passes, and on
   * EVE-NG someone else also logs in with the service account after each login of the agent
   * (one session per user), so logging in again does not help.
   */
  expireEmulatorSession(): void;
  /** A client pinned to this agent's certificate; closed by stop(). */
  client(connection?: Partial<AgentConnection>, hooks?: ClientHooks): AgentClient;
  /** A pinned client already logged in as the test user. */
  loggedIn(hooks?: ClientHooks): Promise<AgentClient>;
  /** Calls the API over raw HTTPS, trusting exactly this agent; `token` adds the bearer header. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<Reply>;
  /** Logs in over raw HTTPS and returns the token. */
  login(username?: string, password?: string): Promise<string>;
  /**
   * Stops the agent only (as a restart would: labs keep running), keeping the data directory. A
   * harness behind it (UNetLab's or EVE-NG's own code) stops too, as its host would restart: its
   * server, labs and database stay in the data directory for the next agent, its nodes do not run.
   */
  close(): Promise<void>;
  /** Stops the agent and its labs, closes the clients and removes the data directory it created. */
  stop(): Promise<void>;
}

/** A test agent and a token of the test user's session on it. */
export async function startWithToken(options: TestAgentOptions = {}): Promise<{ agent: TestAgent; token: string }> {
  const agent = await startTestAgent(options);
  return { agent, token: await agent.login() };
}

/** Runs `body` with a test agent that is stopped (labs, clients, data directory) however the body ends. */
export async function withTestAgent<T>(options: TestAgentOptions, body: (agent: TestAgent) => Promise<T>): Promise<T> {
  const agent = await startTestAgent(options);
  try {
    return await body(agent);
  } finally {
    await agent.stop();
  }
}

export async function startTestAgent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? makeDataDir();
  const clock = new FakeClock();
  const emulator = options.emulator ?? (process.env[TEST_EMULATOR_ENV] === 'eve-ng' ? 'eve-ng' : undefined);
  let running: RunningAgent;
  let fakeEve: FakeEveServer | undefined;
  let unetlab: UnetlabHarness | undefined;
  let eveCe: CommunityHarness | undefined;
  let emulatorLocksLabs = true;
  try {
    const server = process.env[TEST_EVE_SERVER_ENV];
    if (emulator === 'eve-ng' && (server === 'unetlab' || server === 'eve-ce')) {
      // The account gets a pod no other harness on the machine holds (test files run in parallel, and
      // console ports are the machine's); the server lives in the data directory, so an agent restarted
      // on it finds the same server, labs and running nodes, as with the fake's state file.
      const home = join(dataDir, `${server}-harness`);
      const fresh = !existsSync(home);
      const harness = { users: [{ ...EVE_ACCOUNT, pod: 'free' as const }], home };
      if (server === 'unetlab') unetlab = await startUnetlabHarness(harness);
      else eveCe = await startCommunityHarness(harness);
      // The labs the suite expects on a fresh emulator, as the fake and the simulation hold them
      // (a server found in the data directory has them already, and its lock). UNetLab cannot lock a lab.
      const url = (unetlab ?? eveCe)?.url as string;
      emulatorLocksLabs = fresh ? (await seedExampleLabs(url, EVE_ACCOUNT)).locked : server === 'eve-ce';
    } else if (emulator === 'eve-ng') {
      fakeEve = new FakeEveServer({
        clock: clock.now,
        bootMs: options.bootMs ?? 50,
        writeDelayMs: options.writeDelayMs ?? 0,
        users: [EVE_ACCOUNT],
        // An agent restarted on the same data directory finds the same EVE-NG labs.
        stateFile: join(dataDir, 'fake-eve-ng.json'),
      });
      await fakeEve.listen();
    }
    running = await startAgent({
      host: '127.0.0.1',
      port: options.port ?? 0,
      dataDir,
      bootMs: options.bootMs ?? 20,
      writeDelayMs: options.writeDelayMs ?? 1,
      clock: options.clock ?? clock.now,
      users: options.users,
      emulator,
      validateHeapMb: options.validateHeapMb,
      validateSeconds: options.validateSeconds,
      timeouts: options.timeouts,
      log: options.log,
      loginThrottle: options.loginThrottle,
      labsPerUser: options.labsPerUser,
      ...(fakeEve || unetlab || eveCe
        ? { eveNg: { url: (fakeEve?.url ?? unetlab?.url ?? eveCe?.url) as string, ...EVE_ACCOUNT, allowHttp: true } }
        : {}),
    });
  } catch (err) {
    await fakeEve?.close();
    await unetlab?.close();
    await eveCe?.close();
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const httpsAgent = new Agent({ ca: running.certPem, keepAlive: true });
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    rawCall(
      running.url,
      running.certPem,
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      token,
      httpsAgent,
    );
  const clients: AgentClient[] = [];
  const client = (connection: Partial<AgentConnection> = {}, hooks?: ClientHooks): AgentClient => {
    const made = new AgentClient({ baseUrl: running.url, pin: running.fingerprint, ...connection }, hooks);
    clients.push(made);
    return made;
  };
  return {
    url: running.url,
    running,
    fingerprint: running.fingerprint,
    certPem: running.certPem,
    dataDir,
    clock,
    fakeEve,
    unetlab,
    emulatorLocksLabs,
    eveCe,
    consoleTitle: (lab, node) => (emulator === 'eve-ng' ? node : `${lab}/${node}`),
    expireEmulatorSession() {
      clock.advance(EMU_SESSION_MS + 60_000);
      fakeEve?.stealSessionsOf(EVE_ACCOUNT.username);
      if (unetlab) {
        unetlab.stealSessionsOf(EVE_ACCOUNT.username);
        stealHarnessSession(unetlab.url);
      }
      if (eveCe) {
        eveCe.stealSessionsOf(EVE_ACCOUNT.username);
        stealHarnessSession(eveCe.url);
      }
    },
    client,
    async loggedIn(hooks) {
      const made = client({}, hooks);
      await made.login(TEST_USER);
      return made;
    },
    call,
    async login(username = TEST_USER.username, password = TEST_USER.password) {
      const reply = await call('POST', '/api/v1/login', { username, password });
      if (!reply.body.ok) throw new Error(`login failed: ${JSON.stringify(reply.body)}`);
      return reply.body.data.token as string;
    },
    async close() {
      await running.close();
      await unetlab?.close();
      await eveCe?.close();
    },
    async stop() {
      httpsAgent.destroy();
      await Promise.all(clients.map((c) => c.close()));
      // A test's labs go with its agent (a real agent leaves them running for the next start).
      await running.close({ stopLabs: true });
      await fakeEve?.close();
      await unetlab?.close();
      await eveCe?.close();
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Someone else logs in with the service account: the server keeps one session per user, so the
 * agent's cookie is dead. Synchronous, as expireEmulatorSession is; the password goes by environment.
 */
function stealHarnessSession(url: string): void {
  const script =
    'fetch(process.env.U + "/api/auth/login", { method: "POST", body: JSON.stringify({ username: process.env.N, password: process.env.P }) })' +
    '.then(async (r) => { const t = await r.text(); process.stdout.write(r.status + " " + t.slice(0, 300)); process.exit(r.status === 200 ? 0 : 1); },' +
    ' (e) => { process.stdout.write(String(e)); process.exit(1); })';
  const run = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, U: url, N: EVE_ACCOUNT.username, P: EVE_ACCOUNT.password },
  });
  if (run.status !== 0)
    throw new Error(`could not log in to the harness at ${url} to end the agent session: ${run.stdout.toString()}`);
}

/** A small valid lab: two vIOS routers, a switch, a network; `extra` is appended under `nodes`. */
export function labYaml(name: string, extraNodes = ''): string {
  return (
    [
      `name: ${name}`,
      'description: integration test lab',
      'defaults:',
      '  template: vios',
      '  image: vios-adventerprisek9-m.SPA.159-3.M6',
      'nodes:',
      '  r1:',
      '    position: { x: 100, y: 100 }',
      '  r2:',
      '    position: { x: 300, y: 100 }',
      '  sw1:',
      '    template: viosl2',
      '    image: viosl2-adventerprisek9-m.SSA.high_iron_20200929',
      extraNodes,
      'networks:',
      '  mgmt:',
      '    type: bridge',
      'links:',
      '  - endpoints: [r1:Gi0/0, r2:Gi0/0]',
      '  - endpoints: [r1:Gi0/1, sw1:Gi0/0]',
      '  - endpoints: [r2:Gi0/1, mgmt]',
      '',
    ]
      .filter((line) => line !== '')
      .join('\n') + '\n'
  );
}

/** Awaits a call that must fail with an AgentError of `code`, and returns that error. */
export const failsWith = (call: Promise<unknown>, code: string): Promise<AgentError> =>
  rejectsWith(call, AgentError, 'code', code);

/**
 * A fresh data directory, removed when the test (or the file's tests) that made it end, passed or
 * failed: callers that remove it themselves lose nothing, and one that fails before its own cleanup
 * leaves nothing behind in /tmp.
 */
/**
 * Data directories are removed when the test process exits, pass or fail: not in an `after` hook,
 * which node:test runs before the hooks registered later that stop the agents writing into them.
 */
const dataDirsToRemove = new Set<string>();
process.once('exit', () => {
  for (const dir of dataDirsToRemove) rmSync(dir, { recursive: true, force: true });
});

export function makeDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lab-agent-test-'));
  dataDirsToRemove.add(dir);
  return dir;
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

/** A token for the default user (lab/lab), asked of an agent process over its own HTTPS. */
export async function loginTo(agent: { url: string; certPem: string }): Promise<string> {
  const body = JSON.stringify({ username: 'lab', password: 'lab' });
  const login = await rawCall(agent.url, agent.certPem, 'POST', '/api/v1/login', body);
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return login.body.data.token as string;
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

/** Sends raw bytes over TLS (a request head, then whatever `writeBody` writes) and returns the status and text of the answer. */
export function sendRawTls(
  agent: { url: string; certPem: string },
  head: string,
  writeBody: (socket: TLSSocket) => void = () => undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const port = Number(new URL(agent.url).port);
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: agent.certPem, servername: 'localhost' }, () => {
      socket.write(head);
      writeBody(socket);
    });
    let text = '';
    // An agent that never answers fails the test instead of hanging it. Not sooner: a multi-megabyte
    // plan on a worker keeps the socket silent for seconds, over 10 s on a loaded machine.
    socket.setTimeout(60_000, () => socket.destroy());
    socket.on('data', (c) => (text += c));
    socket.on('error', (e: Error) => (text ? undefined : reject(e)));
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text }));
  });
}

export interface AgentProcess {
  url: string;
  certPem: string;
  child: ChildProcess;
  /** What the agent wrote to stderr so far. */
  stderr(): string;
  /** Resident memory of the agent process in bytes, from /proc. */
  rss(): number;
}

const AGENT_BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'agent.js');

/** The built agent (dist/agent.js) in its own process, on a free port, so its memory and signals are its own. */
export async function spawnAgent(dataDir: string, args: string[] = []): Promise<AgentProcess> {
  const child = spawn(process.execPath, [AGENT_BUNDLE, '--port', '0', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  let url: string | undefined;
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the agent exited: ${err}`);
        return Promise.resolve(/fingerprint: \S+\n/.test(out));
        // The Linux emulator probes the machine first: seconds on a loaded machine.
      },
      'the agent to start',
      60_000,
    );
    url = /listening on (https:\/\/\S+)/.exec(out)?.[1];
    if (!url) throw new Error(`the agent printed no URL: ${out}`);
  } catch (error) {
    // An agent that did not come up must not outlive the test, which would then never end.
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    certPem: readFileSync(join(dataDir, 'cert.pem'), 'utf8'),
    child,
    stderr: () => err,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024,
  };
}

/**
 * A console stream (ticket from attachConsole) whose reader stops right after the 101: what the
 * agent sends then piles up in the kernel's buffers, as with a client that stopped reading.
 */
export function openNonReadingStream(
  agent: { url: string; certPem: string },
  token: string,
  ticket: string,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port: Number(new URL(agent.url).port), ca: agent.certPem, servername: 'localhost' },
      () =>
        socket.write(
          `GET /api/v1/console/stream/${ticket} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            'Connection: Upgrade\r\nUpgrade: emu-telnet\r\n\r\n',
        ),
    );
    socket.on('error', reject);
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first.toString('latin1').startsWith('HTTP/1.1 101')) resolve(socket);
      else reject(new Error(`no 101: ${first.toString('latin1').slice(0, 300)}`));
    });
  });
}
