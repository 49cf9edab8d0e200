/**
 * The agent's memory under the two floods of the outside test (issue 27 item 5), on real
 * hosts: a console client that stops reading while its host prints without end, and ten
 * exec-many calls at once (five users, two calls each, the most a user may have in flight),
 * every command printing far more than a reply keeps. The built agent runs in its own process
 * (--emulator linux), so its resident memory (/proc/PID/status) is its own. The console
 * client alone, and its being dropped, is linux-console-bounds.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { addUser } from '../../agent/users';
import { makeDataDir, openNonReadingStream, rawCall, spawnAgent, type AgentProcess } from '../support/agent';
import { eventually, namespacesOf, prefixOf, requireLinuxLabs } from './support';

const MiB = 1024 * 1024;
/**
 * How much the agent may grow over its resident memory before the floods: 16 commands at once
 * on the agent (EXEC_LIMITS.commandsOnAgent), each keeping about 1 MiB, in a few copies on its
 * way to a reply, plus the output read and dropped until the next garbage collection (V8 runs
 * one after 64 MB of such buffers), which makes it vary from run to run. Measured at a load
 * average of 23 on 2 cores: 123 and 161 MiB; 462 MiB when each command kept 8 MiB. (The
 * agent-wide limit is what keeps more users from adding more: exec-limits.test.ts counts it.)
 */
const GROWTH_BOUND_MiB = 256;
const USERS = 5;
/** Hosts per user's lab: every exec-many call runs a command on each of them at once. */
const HOSTS = 4;
/** About 15 MB of output per command, where a reply keeps 1 MiB of it. */
const BIG_COMMAND = 'seq 1 2000000';

/** Whatever the test's destroys leave goes with the agent when it stops. */
const AGENT_ARGS = ['--emulator', 'linux', '--stop-labs-on-exit'];

/** SIGTERM, and the agent's exit (it stops its labs first). */
async function stopAgent(agent: AgentProcess): Promise<void> {
  if (agent.child.exitCode !== null || agent.child.signalCode !== null) return;
  const exited = new Promise((resolve) => agent.child.once('exit', resolve));
  agent.child.kill('SIGTERM');
  await exited;
}

const labOf = (user: number) => `/lab-agent/mem${user}.unl`;
const yamlOf = (user: number) =>
  `name: mem${user}\nnodes:\n${Array.from({ length: HOSTS }, (_, i) => `  h${i}:\n    template: linux\n`).join('')}`;

async function post(agent: AgentProcess, token: string, path: string, body: unknown) {
  const reply = await rawCall(agent.url, agent.certPem, 'POST', path, JSON.stringify(body), token);
  assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body.data;
}

test(
  'a non-reading console client and ten big exec-many calls at once leave the agent within 256 MiB of where it was',
  { timeout: 300_000 },
  async (t) => {
    await requireLinuxLabs();
    const dataDir = makeDataDir();
    const tokens: string[] = [];
    for (let u = 0; u < USERS; u++) await addUser(join(dataDir, 'users'), `user${u}`, `password-${u}`);
    const agent = await spawnAgent(dataDir, AGENT_ARGS);
    try {
      for (let u = 0; u < USERS; u++) {
        const login = await rawCall(
          agent.url,
          agent.certPem,
          'POST',
          '/api/v1/login',
          JSON.stringify({ username: `user${u}`, password: `password-${u}` }),
        );
        assert.equal(login.status, 200, JSON.stringify(login.body));
        tokens.push(login.body.data.token as string);
        await post(agent, tokens[u], '/api/v1/projects/deploy', { yaml: yamlOf(u) });
        await post(agent, tokens[u], '/api/v1/projects/exec', { lab: labOf(u), action: 'start' });
      }
      for (let u = 0; u < USERS; u++)
        await eventually(
          () => post(agent, tokens[u], '/api/v1/projects/status', { lab: labOf(u) }),
          (status) => status.running === HOSTS,
          `the hosts of ${labOf(u)} to run`,
          120_000,
        );
      // Warm up the exec path (TLS, JSON, the first sandboxes) before the baseline reading.
      await post(agent, tokens[0], '/api/v1/console/exec', { lab: labOf(0), node: 'h0', command: 'seq 1 1000' });
      const before = agent.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, agent.rss())), 20);

      // A console client that reads nothing while its host prints without end.
      const { ticket } = await post(agent, tokens[0], '/api/v1/console/attach', { lab: labOf(0), node: 'h0' });
      const stream = await openNonReadingStream(agent, tokens[0], ticket);
      stream.on('error', () => undefined);
      stream.write('yes flood-the-console\r');

      const calls = Array.from({ length: USERS * 2 }, (_, i) => {
        const u = i % USERS;
        const targets = Array.from({ length: HOSTS }, (_, h) => ({ node: `h${h}`, command: BIG_COMMAND }));
        return post(agent, tokens[u], '/api/v1/console/exec-many', { lab: labOf(u), targets, timeout_ms: 120_000 });
      });
      const replies = await Promise.all(calls);
      clearInterval(sampler);
      stream.destroy();

      const grown = (peak - before) / MiB;
      t.diagnostic(`the agent grew by ${grown.toFixed(0)} MiB (from ${(before / MiB).toFixed(0)} MiB)`);
      assert.ok(
        grown < GROWTH_BOUND_MiB,
        `the agent grew by ${grown.toFixed(0)} MiB (from ${(before / MiB).toFixed(0)} MiB) under the floods`,
      );
      // Every command ran to its end, and its reply kept the part the agent keeps.
      for (const { results } of replies)
        for (const result of results) {
          assert.equal(result.ok, true, JSON.stringify(result).slice(0, 300));
          assert.equal(result.truncated, true);
          assert.equal(result.timed_out, undefined, 'the command ran to its end');
          assert.match(result.output, /^1\n2\n3\n/);
        }
      assert.equal((await rawCall(agent.url, agent.certPem, 'GET', '/api/v1/health')).status, 200);
    } finally {
      for (let u = 0; u < tokens.length; u++)
        await rawCall(
          agent.url,
          agent.certPem,
          'POST',
          '/api/v1/projects/destroy',
          JSON.stringify({ lab: labOf(u) }),
          tokens[u],
        ).catch(() => undefined);
      await stopAgent(agent);
      // An agent that died took nothing with it: the next one on its data directory takes its labs back and stops them.
      if ((await namespacesOf(prefixOf(dataDir))).length) await stopAgent(await spawnAgent(dataDir, AGENT_ARGS));
      const left = await namespacesOf(prefixOf(dataDir));
      rmSync(dataDir, { recursive: true, force: true });
      assert.deepEqual(left, [], 'the agent left no namespaces');
    }
  },
);
