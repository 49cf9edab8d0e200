import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { loginTo, makeDataDir, rawCall, startTestAgent, withTestAgent } from '../support/agent';

const AGENT_BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'agent.js');

test('the first start makes an EC P-256 certificate for 127.0.0.1 and localhost; later starts reuse it', async () => {
  const dataDir = makeDataDir();
  try {
    const first = await startTestAgent({ dataDir });
    const { fingerprint, certPem } = first;
    await first.stop();

    const cert = new X509Certificate(readFileSync(join(dataDir, 'cert.pem')));
    assert.equal(cert.fingerprint256, fingerprint);
    assert.match(fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    assert.match(cert.subjectAltName ?? '', /DNS:localhost/);
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const years = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / (365.25 * 24 * 3600 * 1000);
    assert.ok(years > 9.9 && years < 10.1, `valid for ${years} years`);
    assert.equal(statSync(join(dataDir, 'key.pem')).mode & 0o777, 0o600);
    assert.ok(cert.checkPrivateKey(createPrivateKey(readFileSync(join(dataDir, 'key.pem')))));

    await withTestAgent({ dataDir }, async (second) => {
      assert.equal(second.fingerprint, fingerprint);
      assert.equal(second.certPem, certPem);
      // The restarted agent serves that same certificate: a client trusting only it gets through.
      const health = await rawCall(second.url, certPem, 'GET', '/api/v1/health');
      assert.deepEqual(health.body, { ok: true, data: { status: 'ok', tls: true, version: health.body.data.version } });
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

function runCli(args: string[]): { child: ReturnType<typeof spawn>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [AGENT_BUNDLE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return { child, stdout: () => out, stderr: () => err };
}

test('the CLI prints its URL, fingerprint and the default user, serves, and stops cleanly on SIGTERM', async () => {
  const dataDir = makeDataDir();
  const cli = runCli(['--port', '0', '--data-dir', dataDir, '--boot-ms', '10']);
  try {
    const deadline = Date.now() + 15_000;
    // The lines arrive in separate chunks under load: wait for the last one printed.
    while (!/fingerprint: \S+\n[\s\S]*default user .*\n/.test(cli.stdout())) {
      assert.ok(Date.now() < deadline, `no start-up lines: ${cli.stdout()} ${cli.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const url = /^Lab Agent reference agent listening on (https:\/\/127\.0\.0\.1:\d+)$/m.exec(cli.stdout())?.[1];
    const fingerprint = /^Certificate SHA-256 fingerprint: ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})$/m.exec(cli.stdout())?.[1];
    assert.ok(url && fingerprint, cli.stdout());
    assert.match(cli.stdout(), /default user lab, password lab/);
    const certPem = readFileSync(join(dataDir, 'cert.pem'), 'utf8');
    assert.equal(new X509Certificate(certPem).fingerprint256, fingerprint);
    await loginTo({ url, certPem });

    const closed = once(cli.child, 'close');
    cli.child.kill('SIGTERM');
    const [code] = await closed;
    assert.equal(code, 0);
  } finally {
    cli.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a password on the command line is refused, pointing to add-user and the environment, and never echoed', async () => {
  const dataDir = makeDataDir();
  try {
    const cli = runCli(['--port', '0', '--data-dir', dataDir, '--user', 'alice:s3cret-Pa55']);
    const [code] = await once(cli.child, 'close');
    assert.equal(code, 2, cli.stderr());
    assert.match(cli.stderr(), /--user NAME:PASSWORD is no longer accepted/);
    assert.match(cli.stderr(), /add-user NAME/);
    assert.match(cli.stderr(), /LAB_AGENT_PASSWORD/);
    assert.doesNotMatch(cli.stdout() + cli.stderr(), /s3cret-Pa55/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('bad flags get a clear message and exit code 2; --help prints usage', async () => {
  for (const args of [['--port', 'eighty'], ['--bogus'], ['--user', 'nopassword'], ['--port', '70000']]) {
    const cli = runCli(args);
    const [code] = await once(cli.child, 'close');
    assert.equal(code, 2, `${args.join(' ')}: ${cli.stderr()}`);
    assert.match(cli.stderr(), /^lab-agent: .+/);
    assert.match(cli.stderr(), /Usage:/);
  }
  const help = runCli(['--help']);
  const [code] = await once(help.child, 'close');
  assert.equal(code, 0);
  assert.match(help.stdout(), /--data-dir DIR/);
});
