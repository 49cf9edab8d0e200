/**
 * Who may log in (decisions §12): users from a 0600 users file with scrypt hashes or from the
 * environment, never the command line; the demo account refused in front of real labs; failed
 * logins throttled per user and per address without holding the right password from elsewhere;
 * one agent per data directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readUsersFile } from '../../agent/users';
import { makeDataDir, rawCall, startTestAgent, type TestAgent, withTestAgent } from '../support/agent';

const AGENT_BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'agent.js');

/** Runs the built agent's CLI to its end (or until it prints its start-up lines, then stops it). */
async function runCli(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [AGENT_BUNDLE, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    // A started agent is stopped once it has said who may log in.
    if (/^Users: |default user/m.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.input ?? '');
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(guard);
  return { code, stdout, stderr };
}

test('add-user writes a 0600 users file with an scrypt hash; the agent then takes that user, not the demo one', async () => {
  const dataDir = makeDataDir();
  try {
    const added = await runCli(['add-user', 'alice', '--data-dir', dataDir], { input: 'correct horse battery\n' });
    assert.equal(added.code, 0, added.stderr);
    const file = join(dataDir, 'users');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^alice:scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+\n$/);
    assert.doesNotMatch(text, /correct horse/);
    assert.equal((await runCli(['add-user', 'alice', '--data-dir', dataDir], { input: 'short\n' })).code, 1);

    const started = await runCli(['--port', '0', '--data-dir', dataDir]);
    assert.match(started.stdout, /^Users: alice \(from .*users\)$/m, started.stdout + started.stderr);
    assert.doesNotMatch(started.stdout, /password lab/);

    // The file's users log in with their password, and only with it (an agent in this process reads the same file).
    await withTestAgent({ users: readUsersFile(file) }, async (agent) => {
      assert.equal(
        (await agent.call('POST', '/api/v1/login', { username: 'alice', password: 'correct horse battery' })).status,
        200,
      );
      assert.equal((await agent.call('POST', '/api/v1/login', { username: 'alice', password: 'wrong' })).status, 401);
      assert.equal((await agent.call('POST', '/api/v1/login', { username: 'lab', password: 'lab' })).status, 401);
    });

    // Readable by others: refused, saying how to fix it.
    chmodSync(file, 0o644);
    const open = await runCli(['--port', '0', '--data-dir', dataDir]);
    assert.equal(open.code, 2, open.stdout);
    assert.match(open.stderr, /may be read or written by others \(mode 644\): run chmod 600/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a user from the environment logs in; the linux emulator refuses the demo account before touching anything', async () => {
  const dataDir = makeDataDir();
  try {
    const fromEnv = await runCli(['--port', '0', '--data-dir', dataDir], {
      env: { LAB_AGENT_USER: 'bob', LAB_AGENT_PASSWORD: 'env-password-1' },
    });
    assert.match(fromEnv.stdout, /^Users: bob \(from LAB_AGENT_USER\)$/m, fromEnv.stdout + fromEnv.stderr);
    assert.doesNotMatch(fromEnv.stdout + fromEnv.stderr, /env-password-1/);

    const demo: Record<string, string>[] = [{}, { LAB_AGENT_USER: 'lab', LAB_AGENT_PASSWORD: 'lab' }];
    for (const env of demo) {
      const linux = await runCli(['--port', '0', '--data-dir', dataDir, '--emulator', 'linux'], { env });
      assert.equal(linux.code, 2, linux.stdout + linux.stderr);
      assert.match(linux.stderr, /--emulator linux does not start with the demo account/);
      assert.match(linux.stderr, /add-user NAME/);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** A login sent from `from` (any 127.x address: all are this machine's loopback). */
function loginFrom(agent: TestAgent, from: string, username: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ username, password });
    const req = httpsRequest(
      new URL('/api/v1/login', agent.url),
      {
        method: 'POST',
        ca: agent.certPem,
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('failed logins are throttled per user and per address, never holding the right password from another address', async () => {
  const log: string[] = [];
  const agent = await startTestAgent({
    users: [{ username: 'alice', password: 'alice-password' }],
    log: (m) => log.push(m),
    loginThrottle: {
      freePerPair: 3,
      freePerUser: 6,
      freePerAddress: 50,
      firstLockMs: 60_000,
      maxLockMs: 600_000,
      forgetAfterMs: 3_600_000,
      maxEntries: 100,
    },
  });
  try {
    // Alice has logged in from .2 before.
    assert.equal(await loginFrom(agent, '127.0.0.2', 'alice', 'alice-password'), 200);
    // Three wrong passwords from .1 are answered; then .1 is held for alice, even with the right password.
    for (let i = 0; i < 3; i++) assert.equal(await loginFrom(agent, '127.0.0.1', 'alice', `guess-${i}`), 401);
    assert.equal(await loginFrom(agent, '127.0.0.1', 'alice', 'guess-3'), 429);
    assert.equal(await loginFrom(agent, '127.0.0.1', 'alice', 'alice-password'), 429);
    // ...but not alice from another address.
    assert.equal(await loginFrom(agent, '127.0.0.2', 'alice', 'alice-password'), 200);

    // Guesses at alice from many addresses lock the user: a new address is held, a known one is not.
    for (let i = 3; i < 6; i++) assert.equal(await loginFrom(agent, `127.0.1.${i}`, 'alice', 'guess'), 401);
    assert.equal(await loginFrom(agent, '127.0.1.99', 'alice', 'alice-password'), 429);
    assert.equal(await loginFrom(agent, '127.0.0.2', 'alice', 'alice-password'), 200);

    // Parallel guesses count before their answer: of ten at once from a fresh address, at most three are checked.
    const parallel = await Promise.all(
      Array.from({ length: 10 }, (_, i) => loginFrom(agent, '127.0.2.1', 'nobody', `p-${i}`)),
    );
    assert.equal(parallel.filter((s) => s === 401).length, 3, JSON.stringify(parallel));
    assert.equal(parallel.filter((s) => s === 429).length, 7, JSON.stringify(parallel));

    // Once the lock has passed, the right password from .1 gets in.
    agent.clock.advance(700_000);
    assert.equal(await loginFrom(agent, '127.0.0.1', 'alice', 'alice-password'), 200);

    const refused = log.filter((m) => m.startsWith('login refused'));
    assert.ok(
      refused.some((m) => m.includes('user "alice" from 127.0.0.1')),
      log.join('\n'),
    );
    assert.ok(
      log.some((m) => /^login throttled: user "alice" from 127\.0\.0\.1/.test(m)),
      log.join('\n'),
    );
    assert.doesNotMatch(log.join('\n'), /guess|alice-password/);
    for (let i = 0; i < 3; i++) await agent.call('POST', '/api/v1/login', { username: 'carol', password: 'x' });
    const throttled = await agent.call('POST', '/api/v1/login', { username: 'carol', password: 'x' });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.body.code, 'too_many_logins');
    assert.match(throttled.body.error ?? '', /Try again in \d+ s/);
  } finally {
    await agent.stop();
  }
});

test('a second agent on the same data directory refuses to start; a lock left by a dead agent is taken over', async () => {
  const dataDir = makeDataDir();
  try {
    const first = await startTestAgent({ dataDir });
    await assert.rejects(
      startTestAgent({ dataDir }),
      new RegExp(`another agent \\(pid ${process.pid}\\) is using the data directory`),
    );
    const cli = await runCli(['--port', '0', '--data-dir', dataDir]);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /cannot start: another agent \(pid \d+\) is using the data directory .*--data-dir/);
    // The first agent still serves.
    assert.equal((await rawCall(first.url, first.certPem, 'GET', '/api/v1/health')).status, 200);
    await first.stop();

    // A lock whose process is gone (as after kill -9).
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    writeFileSync(join(dataDir, 'agent.lock'), `${dead}\n`);
    const next = await startTestAgent({ dataDir });
    assert.equal(readFileSync(join(dataDir, 'agent.lock'), 'utf8').trim(), String(process.pid));
    await next.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
