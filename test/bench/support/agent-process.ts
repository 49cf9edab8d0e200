/**
 * The reference agent as the user runs it: `node dist/agent.js` in its own
 * process (so that its CPU and memory are its own), on a free loopback port,
 * with a temporary data directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../../../common/api/client';
import { ROOT } from './paths';
import { rssOf } from './stats';

/** BENCH_AGENT_BUNDLE runs another build of the agent (e.g. to compare a fix against the shipped one). */
export const AGENT_BUNDLE = process.env.BENCH_AGENT_BUNDLE ?? join(ROOT, 'dist', 'agent.js');
/** BENCH_AGENT_NODE_ARGS: extra node options for the agent, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it. */
const AGENT_NODE_ARGS = (process.env.BENCH_AGENT_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
/** Not the demo password: the Linux emulator agent refuses to start with it. The agent reads it from the environment. */
/** How long the agent may take to listen. */
const START_LIMIT_MS = 60_000;

export const USER = { username: 'lab', password: 'lab-bench-password' };

export interface AgentProcess {
  url: string;
  fingerprint: string;
  pid: number;
  dataDir: string;
  /** A new client pinned to the agent, logged in as the default user. */
  loggedIn(): Promise<AgentClient>;
  rss(): number | undefined;
  stop(): Promise<void>;
}

export async function startAgentProcess(
  options: { bootMs?: number; emulator?: 'simulated' | 'linux'; args?: string[] } = {},
): Promise<AgentProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-bench-agent-'));
  const child = spawn(
    process.execPath,
    [
      ...AGENT_NODE_ARGS,
      AGENT_BUNDLE,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--boot-ms',
      String(options.bootMs ?? 50),
      ...(options.emulator ? ['--emulator', options.emulator] : []),
      // A bench's labs go with its agent (by default they outlive it).
      ...(options.emulator === 'linux' ? ['--stop-labs-on-exit'] : []),
      ...(options.args ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LAB_AGENT_USER: USER.username, LAB_AGENT_PASSWORD: USER.password },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const { url, fingerprint } = await new Promise<{ url: string; fingerprint: string }>((resolve, reject) => {
    let out = '';
    // The Linux emulator probes the machine and cleans up before it listens: slow on a loaded machine.
    const timer = setTimeout(() => {
      // It may have made namespaces already: SIGTERM lets it remove them (the bench then stops waiting for it).
      child.kill('SIGTERM');
      reject(new Error(`the agent did not start within ${START_LIMIT_MS / 1000} s\n${out}${stderr}`));
    }, START_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (https:\/\/\S+)/.exec(out)?.[1];
      const fingerprint = /fingerprint: ([0-9A-F:]{95})/.exec(out)?.[1];
      if (url && fingerprint) {
        clearTimeout(timer);
        resolve({ url, fingerprint });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited (${code}) before it listened\n${out}${stderr}`));
    });
  });
  // Known once it listens: a child that failed to spawn never printed its URL.
  const pid = child.pid;
  if (pid === undefined) throw new Error('the agent process has no pid');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Never leave an agent behind, even when the bench dies (e.g. its output pipe closed).
  // A Linux emulator agent gets SIGTERM instead: it then removes its namespaces and daemons by itself.
  const killOnExit = () => child.kill(options.emulator === 'linux' ? 'SIGTERM' : 'SIGKILL');
  process.once('exit', killOnExit);
  return {
    url,
    fingerprint,
    pid,
    dataDir,
    async loggedIn() {
      const client = new AgentClient({ baseUrl: url, pin: fingerprint });
      await client.login(USER);
      return client;
    },
    rss: () => rssOf(pid),
    async stop() {
      child.kill('SIGTERM');
      // The Linux emulator removes its namespaces and daemons on SIGTERM, which takes longer than a simulated lab.
      const timer = setTimeout(() => child.kill('SIGKILL'), options.emulator === 'linux' ? 60_000 : 3000);
      await exited;
      clearTimeout(timer);
      process.off('exit', killOnExit);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
