/**
 * `node dist/agent.js --emulator eve-ng …` in front of the fake EVE-NG
 * server: the password comes from EVE_NG_PASSWORD or --emu-password-file and
 * is printed nowhere; the start warns about one session per user; wrong or
 * missing settings are refused with a message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeEveServer } from './fake-server';

const AGENT_BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'agent.js');
const ACCOUNT = { username: 'svc-cli', password: 'cli-Secret-77' };

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { EVE_NG_PASSWORD: _inherited, ...base } = process.env;
  const child = spawn(process.execPath, [AGENT_BUNDLE, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...base, ...env },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

async function withFake(run: (url: string, dir: string) => Promise<void>): Promise<void> {
  const fake = new FakeEveServer({ users: [ACCOUNT] });
  const dir = mkdtempSync(join(tmpdir(), 'eve-cli-'));
  try {
    await run(await fake.listen(), dir);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startsAndStops(cli: ReturnType<typeof runCli>): Promise<string> {
  const deadline = Date.now() + 15_000;
  try {
    while (!/fingerprint: \S+\n/.test(cli.output())) {
      assert.ok(Date.now() < deadline && cli.child.exitCode === null, `did not start: ${cli.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // A clean stop on SIGTERM is startup.test.ts's subject; here the agent only has to end.
    const closed = once(cli.child, 'close');
    cli.child.kill('SIGTERM');
    await closed;
    return cli.output();
  } finally {
    cli.child.kill('SIGKILL');
  }
}

test('the password from EVE_NG_PASSWORD or --emu-password-file logs in, and is printed nowhere', async () => {
  await withFake(async (url, dir) => {
    const common = ['--port', '0', '--emulator', 'eve-ng', '--emu-url', url, '--emu-user', ACCOUNT.username];
    const fromEnv = await startsAndStops(
      runCli([...common, '--emu-allow-http', '--data-dir', join(dir, 'a')], { EVE_NG_PASSWORD: ACCOUNT.password }),
    );
    assert.match(fromEnv, /one session per user/);
    assert.match(fromEnv, /plain http/);
    assert.match(fromEnv, /Connected to EVE-NG Community/);
    assert.ok(!fromEnv.includes(ACCOUNT.password));

    const file = join(dir, 'password');
    writeFileSync(file, `${ACCOUNT.password}\n`, { mode: 0o600 });
    const fromFile = await startsAndStops(
      runCli([...common, '--emu-allow-http', '--emu-password-file', file, '--data-dir', join(dir, 'b')]),
    );
    assert.match(fromFile, /Connected to EVE-NG/);
    assert.ok(!fromFile.includes(ACCOUNT.password));
  });
});

test('missing or wrong EVE-NG settings are refused with a message', async () => {
  await withFake(async (url, dir) => {
    const cases: [string[], NodeJS.ProcessEnv, number, RegExp][] = [
      [['--emulator', 'eve-ng', '--emu-url', url, '--emu-user', 'svc-cli'], {}, 2, /password is missing/],
      [['--emulator', 'eve-ng', '--emu-user', 'svc-cli'], { EVE_NG_PASSWORD: 'x' }, 2, /needs --emu-url/],
      [['--emu-password', 'x'], {}, 2, /Unknown option '--emu-password'/],
      [['--record', dir], {}, 2, /--record needs --emulator eve-ng/],
      [['--emulator', 'gns3'], {}, 2, /--emulator must be simulated or linux or eve-ng/],
      [
        ['--emulator', 'eve-ng', '--emu-url', url, '--emu-user', 'svc-cli', '--port', '0'],
        { EVE_NG_PASSWORD: ACCOUNT.password },
        1,
        /plain http.*--emu-allow-http/,
      ],
      [
        ['--emulator', 'eve-ng', '--emu-url', url, '--emu-user', 'svc-cli', '--emu-allow-http', '--port', '0'],
        { EVE_NG_PASSWORD: 'wrong-Secret-1' },
        1,
        /refused the login of the service account "svc-cli"/,
      ],
    ];
    for (const [args, env, code, message] of cases) {
      const cli = runCli([...args, '--data-dir', join(dir, 'data')], env);
      const [exit] = await once(cli.child, 'close');
      assert.equal(exit, code, `${args.join(' ')}: ${cli.output()}`);
      assert.match(cli.output(), message);
      assert.ok(!cli.output().includes('wrong-Secret-1'));
    }
  });
});
