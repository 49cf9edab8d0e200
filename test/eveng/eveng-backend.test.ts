/**
 * The EVE-NG backend against the fake EVE-NG server, for what the contract
 * suite cannot see: the session rules (412 → one new login, then
 * session_expired), the file-lock retry, Pro's stop mode path, the console
 * host rewrite, trust (pin, CA, plain http only on request), and that the
 * password reaches neither the log nor a recording.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmuError, type EmuLab, type EmulatorClient } from '../../agent/emulator/backend';
import { EveNgBackend, type EveNgSettings } from '../../agent/emulator/eveng/eveng-backend';
import { loadOrCreateCertificate } from '../../agent/tls';
import { FakeEveServer, FAKE_SERVER_NAME, type FakeEveOptions } from './fake-server';

const ACCOUNT = { username: 'svc', password: 'pa55-Very-Secret' };

interface Rig {
  fake: FakeEveServer;
  backend: EveNgBackend;
  client: EmulatorClient;
  logs: string[];
  dispose(): Promise<void>;
}

async function rig(fakeOptions: FakeEveOptions = {}, settings: Partial<EveNgSettings> = {}): Promise<Rig> {
  const fake = new FakeEveServer({ users: [ACCOUNT], bootMs: 20, ...fakeOptions });
  const url = await fake.listen();
  const logs: string[] = [];
  let backend: EveNgBackend;
  try {
    backend = await EveNgBackend.open({ url, ...ACCOUNT, allowHttp: true, ...settings }, Date.now, (m) => logs.push(m));
  } catch (e) {
    await fake.close();
    throw e;
  }
  const client = await backend.connect('lab');
  return {
    fake,
    backend,
    client,
    logs,
    async dispose() {
      await backend.close();
      await fake.close();
    },
  };
}

async function rejectsEmu(call: Promise<unknown>, kind: string): Promise<EmuError> {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof EmuError, `expected an EmuError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    return e;
  }
  assert.fail(`expected EmuError ${kind}`);
}

function must<T>(value: T | undefined, what: string): T {
  assert.ok(value !== undefined, `missing ${what}`);
  return value;
}

async function campus(client: EmulatorClient): Promise<EmuLab> {
  return must(await client.getLab('/examples/campus.unl'), 'the campus lab');
}

const node = (lab: EmuLab, name: string) =>
  must(
    lab.nodes.find((n) => n.name === name),
    `node ${name}`,
  );

const logins = (fake: FakeEveServer) => fake.seen.filter((e) => e.path === '/api/auth/login').length;

test('start: one login, a warning about one session per user, and the password in no log line', async () => {
  const r = await rig();
  try {
    assert.equal(logins(r.fake), 1);
    assert.ok(r.logs.some((l) => /one session per user/.test(l) && l.includes('"svc"')));
    assert.ok(r.logs.some((l) => /plain http/.test(l)));
    assert.ok(r.logs.every((l) => !l.includes(ACCOUNT.password)));
  } finally {
    await r.dispose();
  }
});

test('a session ended elsewhere (412) is logged in again once and the call succeeds', async () => {
  const r = await rig();
  try {
    r.fake.endSessionOf(ACCOUNT.username);
    assert.ok((await r.client.status()).version);
    assert.equal(logins(r.fake), 2);
    assert.deepEqual(
      r.fake.seen.slice(-3).map((e) => [e.method, e.path, e.status]),
      [
        ['GET', '/api/status', 412],
        ['POST', '/api/auth/login', 200],
        ['GET', '/api/status', 200],
      ],
    );
  } finally {
    await r.dispose();
  }
});

test('many calls failing with 412 at once share one new login, and all succeed', async () => {
  const r = await rig({ writeDelayMs: 0 });
  try {
    r.fake.endSessionOf(ACCOUNT.username);
    const labs = await Promise.all(Array.from({ length: 12 }, () => r.client.getLab('/examples/campus.unl')));
    assert.ok(labs.every((lab) => lab?.nodes.length === 5));
    assert.equal(logins(r.fake), 2);
  } finally {
    await r.dispose();
  }
});

test('a session taken over again right after the new login is session_expired', async () => {
  const r = await rig();
  try {
    r.fake.stealSessionsOf(ACCOUNT.username);
    const e = await rejectsEmu(r.client.listIcons(), 'session_expired');
    assert.match(e.message, /one session per user/);
    assert.equal(logins(r.fake), 2, 'exactly one new login, no loop');
  } finally {
    await r.dispose();
  }
});

test('a wrong password (an HTTP 200 carrying code 400) fails the start with a message without the password', async () => {
  const fake = new FakeEveServer({ users: [ACCOUNT] });
  const url = await fake.listen();
  try {
    const e = await rejectsEmu(
      EveNgBackend.open(
        { url, username: 'svc', password: 'not-the-pw-123', allowHttp: true },
        Date.now,
        () => undefined,
      ),
      'unreachable',
    );
    assert.match(e.message, /refused the login of the service account "svc"/);
    assert.ok(!e.message.includes('not-the-pw-123'));
  } finally {
    await fake.close();
  }
});

test('plain http is refused unless asked for', async () => {
  await assert.rejects(
    EveNgBackend.open({ url: 'http://127.0.0.1:9', ...ACCOUNT }, Date.now, () => undefined),
    /plain http.*--emu-allow-http/,
  );
});

test('a write refused because the lab file is locked (60061) is tried again', async () => {
  const r = await rig({ fileLockTimeoutMs: 30 });
  try {
    r.fake.holdFileLock('/examples/campus.unl', 250);
    const network = await r.client.addNetwork('/examples/campus.unl', {
      name: 'late',
      type: 'bridge',
      visibility: true,
      left: 0,
      top: 0,
    });
    assert.ok(network.id > 0);
    const posts = r.fake.seen.filter((e) => e.method === 'POST' && e.path.endsWith('/networks'));
    assert.ok(posts.length >= 2, 'refused at least once');
    assert.equal(posts[0].status, 400);
    assert.equal(posts.at(-1)?.status, 201);
  } finally {
    await r.dispose();
  }
});

test('Community stops with …/stop; Pro with …/stop/stopmode=N', async () => {
  for (const edition of ['community', 'pro'] as const) {
    const r = await rig({ edition });
    try {
      const lab = await campus(r.client);
      const pc = node(lab, 'pc');
      await r.client.startNode(lab.path, pc.id);
      await r.client.stopNode(lab.path, pc.id, 3);
      const stop = r.fake.seen.filter((e) => /\/stop/.test(e.path));
      assert.deepEqual(
        stop.map((e) => [e.path.replace(/^.*\/nodes\//, ''), e.status]),
        [[edition === 'pro' ? `${pc.id}/stop/stopmode=3` : `${pc.id}/stop`, 200]],
      );
    } finally {
      await r.dispose();
    }
  }
});

test('console URLs point at the host the agent reached, not the server name EVE-NG believes in', async () => {
  const r = await rig();
  try {
    const lab = await campus(r.client);
    const path = lab.path;
    const edge = node(lab, 'edge');
    assert.match(edge.url, /^telnet:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(!edge.url.includes(FAKE_SERVER_NAME));
    await rejectsEmu(r.client.openConsole(path, edge.id), 'refused');
    await r.client.startNode(path, edge.id);
    const console = await r.client.openConsole(path, edge.id);
    const greeting = await new Promise<Buffer>((resolve) => console.once('data', resolve));
    assert.deepEqual([...greeting.subarray(0, 3)], [255, 251, 1]);
    console.destroy();
  } finally {
    await r.dispose();
  }
});

test('the interface names of existing nodes come from the server; point-to-point links are hidden bridges', async () => {
  const r = await rig();
  try {
    const lab = await campus(r.client);
    const access2 = node(lab, 'access2');
    assert.deepEqual(
      access2.interfaces.slice(0, 5).map((i) => i.name),
      ['e0/0', 'e0/1', 'e0/2', 'e0/3', 'e1/0'],
    );
    const edgeLink = node(lab, 'edge').interfaces[0].networkId;
    assert.equal(lab.networks.find((n) => n.id === edgeLink)?.visibility, false);
    // Deleting one end of a point-to-point link deletes its hidden bridge.
    await r.client.deleteNode(lab.path, node(lab, 'access1').id);
    const after = await campus(r.client);
    assert.ok(!after.networks.some((n) => n.id === edgeLink));
    assert.equal(node(after, 'edge').interfaces[0].networkId, 0);
  } finally {
    await r.dispose();
  }
});

test('https: a pinned fingerprint is required to match, and a CA file is accepted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'eve-tls-'));
  try {
    const cert = await loadOrCreateCertificate(dir);
    const tls = { cert: cert.certPem, key: cert.keyPem };
    const pinned = await rig(
      { tls },
      { allowHttp: false, fingerprint: cert.fingerprint.replace(/:/g, '').toLowerCase() },
    );
    try {
      assert.ok((await pinned.client.status()).version);
      assert.ok(pinned.logs.every((l) => !/plain http/.test(l)));
    } finally {
      await pinned.dispose();
    }
    const withCa = await rig({ tls }, { allowHttp: false, ca: cert.certPem });
    await withCa.dispose();
    const wrong = `${'AB:'.repeat(31)}AB`;
    await assert.rejects(rig({ tls }, { fingerprint: wrong }), /does not match the pinned fingerprint/);
    await assert.rejects(rig({ tls }), /not trusted/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--record writes one file per exchange with the password and the session cookie redacted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'eve-record-'));
  try {
    const r = await rig({}, { recordDir: dir });
    let cookie = '';
    try {
      r.fake.endSessionOf(ACCOUNT.username); // a second login, so two cookies were handed out
      await r.client.getLab('/examples/locked.unl');
      // The password pasted into a lab's description is redacted too, in the request and in answers.
      await r.client.createLab('/recorded/leak.unl', { name: 'leak', description: `pw ${ACCOUNT.password}` });
      await r.client.getLab('/recorded/leak.unl');
      cookie = r.fake.cookieOf(ACCOUNT.username) ?? '';
    } finally {
      await r.dispose();
    }
    const files = readdirSync(dir).sort();
    assert.ok(files.length >= 6, files.join(', '));
    assert.match(files[0], /^0001-POST-auth-login\.json$/);
    const all = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    assert.ok(cookie.length > 10, 'the fake handed out a cookie');
    assert.ok(!all.includes(cookie), 'the cookie is redacted');
    assert.ok(!all.includes(ACCOUNT.password), 'the password is redacted');
    const login = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as {
      request: { body: { password: string; username: string } };
      response: { status: number; setCookie: string[] };
    };
    assert.equal(login.request.body.username, 'svc');
    assert.equal(login.request.body.password, '<redacted>');
    assert.match(login.response.setCookie[0], /^unetlab_session=<redacted>;/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
