/**
 * A real reference agent for tests: in-process, real HTTPS on 127.0.0.1, a
 * free port, its own temporary data directory and a clock the test can move.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type EmulatorKind, type RunningAgent } from '../../agent/server';
import assert from 'node:assert/strict';
import { AgentClient, AgentError, type AgentConnection, type ClientHooks } from '../../common/api/client';

export const TEST_USER = { username: 'lab', password: 'lab' };

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
  /** Time each emulator write takes (to make long operations observable). */
  writeDelayMs?: number;
  users?: { username: string; password: string }[];
  /** Default: a free port. */
  port?: number;
  /** Default: the simulated emulator. */
  emulator?: EmulatorKind;
}

export interface TestAgent {
  url: string;
  /** The running agent itself (emulator description and problems). */
  running: RunningAgent;
  fingerprint: string;
  certPem: string;
  dataDir: string;
  clock: FakeClock;
  /** A client pinned to this agent's certificate; closed by stop(). */
  client(connection?: Partial<AgentConnection>, hooks?: ClientHooks): AgentClient;
  /** A pinned client already logged in as the test user. */
  loggedIn(hooks?: ClientHooks): Promise<AgentClient>;
  /** Stops the agent only (as a crash or restart would), keeping the data directory. */
  close(): Promise<void>;
  /** Stops the agent, closes the clients and removes the data directory it created. */
  stop(): Promise<void>;
}

export async function startTestAgent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lab-agent-test-'));
  const clock = new FakeClock();
  let running: RunningAgent;
  try {
    running = await startAgent({
      host: '127.0.0.1',
      port: options.port ?? 0,
      dataDir,
      bootMs: options.bootMs ?? 50,
      writeDelayMs: options.writeDelayMs ?? 0,
      clock: clock.now,
      users: options.users,
      emulator: options.emulator,
    });
  } catch (err) {
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
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
    client,
    async loggedIn(hooks) {
      const made = client({}, hooks);
      await made.login(TEST_USER);
      return made;
    },
    close: () => running.close(),
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await running.close();
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
export async function failsWith(call: Promise<unknown>, code: string): Promise<AgentError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof AgentError, `expected an AgentError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}
