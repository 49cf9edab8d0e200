/**
 * The EVE-NG backend against the fake EVE-NG server, for what the contract
 * suite cannot see: the session rules (412 → one new login, then
 * session_expired), the file-lock retry, Pro's stop mode path, the console
 * host rewrite, trust (pin, CA, plain http only on request), and that the
 * password reaches neither the log nor a recording.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EmuError,
  type EmuErrorKind,
  type EmuLab,
  type EmuNetworkSpec,
  type EmulatorClient,
} from '../../agent/emulator/backend';
import { EveNgBackend, type EveNgSettings } from '../../agent/emulator/eveng/eveng-backend';
import { loadOrCreateCertificate } from '../../agent/tls';
import { nodeSpec } from '../support/emu-node';
import { rejectsWith } from '../support/rejects';
import { withTempDir } from '../support/temp-dir';
import { FakeEveServer, FAKE_SERVER_NAME, type FakeEveOptions } from './fake-server';

const ACCOUNT = { username: 'svc', password: 'pa55-Very-Secret' };
/** Another account, for raw exchanges that show what the server does (its own session). */
const INSPECTOR = { username: 'inspector', password: 'inspector-secret' };

interface Rig {
  fake: FakeEveServer;
  backend: EveNgBackend;
  client: EmulatorClient;
  logs: string[];
  dispose(): Promise<void>;
}

async function rig(
  fakeOptions: FakeEveOptions = {},
  settings: Partial<EveNgSettings> = {},
  clock: () => number = Date.now,
): Promise<Rig> {
  const fake = new FakeEveServer({ users: [ACCOUNT, INSPECTOR], bootMs: 20, ...fakeOptions });
  const url = await fake.listen();
  const logs: string[] = [];
  let backend: EveNgBackend;
  try {
    backend = await EveNgBackend.open({ url, ...ACCOUNT, allowHttp: true, ...settings }, clock, (m) => logs.push(m));
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

/** Runs `body` on a rig, disposed of however the body ends. */
async function disposeAfter<T>(made: Promise<Rig>, body: (r: Rig) => Promise<T>): Promise<T> {
  const r = await made;
  try {
    return await body(r);
  } finally {
    await r.dispose();
  }
}

const rejectsEmu = (call: Promise<unknown>, kind: EmuErrorKind) => rejectsWith(call, EmuError, 'kind', kind);

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
  await disposeAfter(rig(), async (r) => {
    assert.equal(logins(r.fake), 1);
    assert.ok(r.logs.some((l) => /one session per user/.test(l) && l.includes('"svc"')));
    assert.ok(r.logs.some((l) => /plain http/.test(l)));
    assert.ok(r.logs.every((l) => !l.includes(ACCOUNT.password)));
  });
});

test('a session ended elsewhere (412) is logged in again once and the call succeeds', async () => {
  await disposeAfter(rig(), async (r) => {
    r.fake.endSessionOf(ACCOUNT.username);
    assert.ok((await r.client.status()).version);
    assert.equal(logins(r.fake), 2);
    assert.deepEqual(
      r.fake.seen.slice(-3).map((e) => [e.method, e.path, e.status]),
      // Liveness is GET /api/auth, which answers 401 (not 412) without a session.
      [
        ['GET', '/api/auth', 401],
        ['POST', '/api/auth/login', 200],
        ['GET', '/api/auth', 200],
      ],
    );
  });
});

test('many calls failing with 412 at once share one new login, and all succeed', async () => {
  await disposeAfter(rig({ writeDelayMs: 0 }), async (r) => {
    r.fake.endSessionOf(ACCOUNT.username);
    const labs = await Promise.all(Array.from({ length: 12 }, () => r.client.getLab('/examples/campus.unl')));
    assert.ok(labs.every((lab) => lab?.nodes.length === 5));
    assert.equal(logins(r.fake), 2);
  });
});

test('a session taken over again right after the new login is session_expired', async () => {
  await disposeAfter(rig(), async (r) => {
    r.fake.stealSessionsOf(ACCOUNT.username);
    const e = await rejectsEmu(r.client.listIcons(), 'session_expired');
    assert.match(e.message, /one session per user/);
    assert.equal(logins(r.fake), 2, 'exactly one new login, no loop');
  });
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
  await disposeAfter(rig({ fileLockTimeoutMs: 30 }), async (r) => {
    r.fake.holdFileLock('/examples/campus.unl', 250);
    const network = await r.client.addNetwork('/examples/campus.unl', bridgeSpec('late'));
    assert.ok(network.id > 0);
    const posts = r.fake.seen.filter((e) => e.method === 'POST' && e.path.endsWith('/networks'));
    assert.ok(posts.length >= 2, 'refused at least once');
    assert.equal(posts[0].status, 400);
    assert.equal(posts.at(-1)?.status, 201);
  });
});

test('Community stops with …/stop; Pro with …/stop/stopmode=N', async () => {
  for (const edition of ['community', 'pro'] as const) {
    await disposeAfter(rig({ edition }), async (r) => {
      const lab = await campus(r.client);
      const pc = node(lab, 'pc');
      await r.client.startNode(lab.path, pc.id);
      await r.client.stopNode(lab.path, pc.id, 3);
      const stop = r.fake.seen.filter((e) => /\/stop/.test(e.path));
      assert.deepEqual(
        stop.map((e) => [e.path.replace(/^.*\/nodes\//, ''), e.status]),
        [[edition === 'pro' ? `${pc.id}/stop/stopmode=3` : `${pc.id}/stop`, 200]],
      );
    });
  }
});

test('console URLs point at the host the agent reached, not the server name EVE-NG believes in', async () => {
  await disposeAfter(rig(), async (r) => {
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
  });
});

test('the interface names of existing nodes come from the server; point-to-point links are hidden bridges', async () => {
  await disposeAfter(rig(), async (r) => {
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
  });
});

test('https: a pinned fingerprint is required to match, and a CA file is accepted', async () => {
  await withTempDir('eve-tls-', async (dir) => {
    const cert = await loadOrCreateCertificate(dir);
    const tls = { cert: cert.certPem, key: cert.keyPem };
    const pinned = rig({ tls }, { allowHttp: false, fingerprint: cert.fingerprint.replace(/:/g, '').toLowerCase() });
    await disposeAfter(pinned, async (r) => {
      assert.ok((await r.client.status()).version);
      assert.ok(r.logs.every((l) => !/plain http/.test(l)));
    });
    const withCa = await rig({ tls }, { allowHttp: false, ca: cert.certPem });
    await withCa.dispose();
    const wrong = `${'AB:'.repeat(31)}AB`;
    await assert.rejects(rig({ tls }, { fingerprint: wrong }), /does not match the pinned fingerprint/);
    await assert.rejects(rig({ tls }), /not trusted/);
  });
});

test('--record writes one file per exchange with the password and the session cookie redacted', async () => {
  await withTempDir('eve-record-', async (dir) => {
    const cookie = await disposeAfter(rig({}, { recordDir: dir }), async (r) => {
      r.fake.endSessionOf(ACCOUNT.username); // a second login, so two cookies were handed out
      await r.client.getLab('/examples/locked.unl');
      // The password pasted into a lab's description is redacted too, in the request and in answers.
      await r.client.createLab('/recorded/leak.unl', { name: 'leak', description: `pw ${ACCOUNT.password}` });
      await r.client.getLab('/recorded/leak.unl');
      return r.fake.cookieOf(ACCOUNT.username) ?? '';
    });
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
  });
});

// ---------------------------------------------------------------- issue 26: EVE-NG's own behaviour

/** Raw exchanges with the fake, logged in as the service account (to show what the server does). */
async function rawSession(fake: FakeEveServer) {
  const login = await fetch(`${fake.url}/api/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ ...INSPECTOR, html5: '0' }),
  });
  const cookie = /unetlab_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0] ?? '';
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}${path}`, {
      method,
      headers: { cookie },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    // A PHP error is an HTML page, not an envelope.
    const envelope = (
      text.startsWith('{') ? JSON.parse(text) : { code: response.status, status: 'error', message: text }
    ) as {
      code: number;
      status: string;
      message: string;
      data?: unknown;
    };
    return { http: response.status, ...envelope };
  };
}

/** A bridge network, visible unless `visibility` says otherwise. */
function bridgeSpec(name: string, visibility = true): EmuNetworkSpec {
  return { name, type: 'bridge', visibility, left: 0, top: 0 };
}

async function newLab(client: EmulatorClient, path: string): Promise<void> {
  await client.createLab(path, { name: path.replace(/^.*\/|\.unl$/g, ''), description: '' });
}

/** Runs `body` on the rig with a new empty lab at `path`, disposing of the rig however the body ends. */
function withNewLab(made: Promise<Rig>, path: string, body: (r: Rig, path: string) => Promise<void>): Promise<void> {
  return disposeAfter(made, async (r) => {
    await newLab(r.client, path);
    await body(r, path);
  });
}

test('IOL: ethernet counts interfaces, sent as port groups of four; e0/1 is EVE-NG interface 16', async () => {
  await withNewLab(rig(), '/lab-agent/iol.unl', async (r, path) => {
    const sw = await r.client.addNode(
      path,
      nodeSpec('sw1', 'iol', 8, { image: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin' }),
    );
    assert.equal(r.fake.labState(path)?.nodes[0].ethernet, 2);
    assert.equal(sw.ethernet, 8);
    assert.deepEqual(
      sw.interfaces.map((i) => `${i.index}:${i.name}`),
      ['0:e0/0', '1:e0/1', '2:e0/2', '3:e0/3', '4:e1/0', '5:e1/1', '6:e1/2', '7:e1/3'],
    );
    const net = await r.client.addNetwork(path, bridgeSpec('lan'));
    await r.client.connectInterface(path, sw.id, 1, net.id);
    await r.client.connectInterface(path, sw.id, 4, net.id);
    const links = must(r.fake.labState(path), 'lab').nodes[0].links;
    assert.deepEqual(
      Object.entries(links)
        .filter(([, n]) => n)
        .map(([id]) => id),
      ['1', '16'],
    );
    await rejectsEmu(r.client.addNode(path, nodeSpec('sw2', 'iol', 6)), 'refused');
  });
});

test('node-to-node links: the server drops a hidden empty bridge (20033); the adapter hides it after both ends', async () => {
  await withNewLab(rig(), '/lab-agent/p2p.unl', async (r, path) => {
    const a = await r.client.addNode(path, nodeSpec('a', 'vios', 2));
    const b = await r.client.addNode(path, nodeSpec('b', 'vios', 2));
    const call = await rawSession(r.fake);
    const hidden = await call('POST', `/api/labs${path}/networks`, { type: 'bridge', name: 'x', visibility: 0 });
    const id = (hidden.data as { id: number }).id;
    const put = await call('PUT', `/api/labs${path}/nodes/${a.id}/interfaces`, { 0: String(id) });
    assert.equal(put.http, 400);
    assert.match(put.message, /20033/);
    // The adapter's way: visible bridge, both ends, then hidden.
    const bridge = await r.client.addNetwork(path, bridgeSpec('a-b', false));
    await r.client.connectInterface(path, a.id, 0, bridge.id);
    await r.client.connectInterface(path, b.id, 1, bridge.id);
    const lab = must(await r.client.getLab(path), 'lab');
    assert.deepEqual(
      lab.networks.map((n) => [n.name, n.visibility]),
      [['a-b', false]],
    );
    assert.equal(node(lab, 'b').interfaces[1].networkId, bridge.id);
  });
});

test('UNetLab keeps no visibility: a bridge named after its two ends is read back as their link', async () => {
  await withNewLab(rig({ flavour: 'unetlab', fileLockTimeoutMs: 50 }), '/lab-agent/unl.unl', async (r, path) => {
    const a = await r.client.addNode(path, nodeSpec('a', 'vios', 2));
    const b = await r.client.addNode(path, nodeSpec('b', 'vios', 2));
    const bridge = await r.client.addNetwork(path, bridgeSpec('a-b', false));
    await r.client.connectInterface(path, a.id, 0, bridge.id);
    await r.client.connectInterface(path, b.id, 0, bridge.id);
    const lan = await r.client.addNetwork(path, bridgeSpec('lan'));
    await r.client.connectInterface(path, a.id, 1, lan.id);
    const lab = must(await r.client.getLab(path), 'lab');
    assert.deepEqual(
      lab.networks.map((n) => [n.name, n.visibility]),
      [
        ['a-b', false],
        ['lan', true],
      ],
    );
    // The adapter never sent UNetLab a visibility PUT: that answers 500 and leaves the lab file locked.
    assert.ok(!r.fake.seen.some((e) => e.method === 'PUT' && /\/networks\//.test(e.path)));
    await r.client.addNode(path, nodeSpec('c', 'vios', 1));
    const call = await rawSession(r.fake);
    const hide = await call('PUT', `/api/labs${path}/networks/${lan.id}`, { visibility: 0 });
    assert.equal(hide.http, 500);
    assert.match(hide.message, /Slim Application Error/);
    const locked = await rejectsEmu(r.client.addNode(path, nodeSpec('d', 'vios', 1)), 'refused');
    assert.match(locked.message, /left its lock behind/);
    // UNetLab marks no template .missing: one without images has an empty image list.
    const templates = await r.client.listTemplates();
    assert.equal(templates.find((t) => t.id === 'xrv9k')?.provisioned, false);
    assert.equal(templates.find((t) => t.id === 'vios')?.provisioned, true);
  });
});

test('node edits: the server refuses a one-field edit (20026); the adapter sends the whole node, image included', async () => {
  await withNewLab(rig(), '/lab-agent/edit.unl', async (r, path) => {
    const r1 = await r.client.addNode(
      path,
      nodeSpec('r1', 'vios', 2, { image: 'vios-adventerprisek9-m.SPA.157-3.M3' }),
    );
    const call = await rawSession(r.fake);
    const refused = await call('PUT', `/api/labs${path}/nodes/${r1.id}`, { id: r1.id, ram: 3072 });
    assert.equal(refused.http, 400);
    assert.match(refused.message, /20026/);
    await r.client.editNode(path, r1.id, { ram: 3072 });
    await r.client.editNode(path, r1.id, { image: 'vios-adventerprisek9-m.SPA.159-3.M6' });
    const after = node(must(await r.client.getLab(path), 'lab'), 'r1');
    assert.equal(after.ram, 3072);
    assert.equal(after.image, 'vios-adventerprisek9-m.SPA.159-3.M6');
  });
});

test('startup configs: enabled with config "1" and read back; "Saved" is ignored; no config script is no config', async () => {
  await withNewLab(rig(), '/lab-agent/configs.unl', async (r, path) => {
    const r1 = await r.client.addNode(path, nodeSpec('r1', 'vios', 2, { config: 'hostname r1\n' }));
    assert.equal(r1.config, 'hostname r1\n');
    assert.equal(must(r.fake.labState(path), 'lab').nodes[0].config, '1');
    const call = await rawSession(r.fake);
    await call('PUT', `/api/labs${path}/nodes/${r1.id}`, { id: r1.id, name: 'r1', config: 'Saved' });
    assert.equal(must(r.fake.labState(path), 'lab').nodes[0].config, '1');
    // A Linux node (no config script): the read answers HTTP 200 with status fail, 60058.
    const h = await r.client.addNode(path, nodeSpec('h', 'linux', 1, { config: 'x' }));
    const read = await call('GET', `/api/labs${path}/configs/${h.id}`);
    assert.deepEqual([read.http, read.status], [200, 'fail']);
    assert.equal(h.config, undefined);
    await r.client.editNode(path, r1.id, { config: undefined });
    assert.equal(node(must(await r.client.getLab(path), 'lab'), 'r1').config, undefined);
    // The server's sample lab keeps its startup config.
    assert.match(node(await campus(r.client), 'edge').config ?? '', /hostname edge/);
  });
});

test('UNetLab lists nodes without their config flag: the lab read still shows the startup configs', async () => {
  await withNewLab(rig({ flavour: 'unetlab' }), '/lab-agent/unl-configs.unl', async (r, path) => {
    await r.client.addNode(path, nodeSpec('r1', 'vios', 1, { config: 'hostname r1\n' }));
    await r.client.addNode(path, nodeSpec('r2', 'vios', 1));
    const call = await rawSession(r.fake);
    const listed = await call('GET', `/api/labs${path}/nodes`);
    assert.ok(!Object.values(listed.data as Record<string, object>).some((n) => 'config' in n));
    const lab = must(await r.client.getLab(path), 'lab');
    assert.equal(node(lab, 'r1').config, 'hostname r1\n');
    assert.equal(node(lab, 'r2').config, undefined);
  });
});

test('Pro reads and writes startup configs with a config set (cfsid)', async () => {
  await withNewLab(rig({ edition: 'pro' }), '/lab-agent/pro.unl', async (r, path) => {
    const r1 = await r.client.addNode(path, nodeSpec('r1', 'vios', 1, { config: 'hostname pro' }));
    assert.equal(r1.config, 'hostname pro');
    assert.ok(r.fake.seen.some((e) => e.method === 'POST' && e.path.endsWith(`/configs/${r1.id}`) && e.status === 200));
  });
});

test('read back as written: HTML-escaped descriptions, VPCS image "none", the file name as lab name', async () => {
  await disposeAfter(rig(), async (r) => {
    const path = '/lab-agent/converge.unl';
    await r.client.createLab(path, { name: 'converge', description: 'a <b> & "c"' });
    const pc = await r.client.addNode(path, nodeSpec('pc', 'vpcs', 1));
    assert.equal(pc.image, '');
    const lab = must(await r.client.getLab(path), 'lab');
    assert.equal(lab.description, 'a <b> & "c"');
    assert.equal(lab.name, 'converge');
  });
});

test('bridge networks are offered although the server lists only clouds (laaaaiiit/eve-ktk 6.2.0-4)', async () => {
  await disposeAfter(rig({ listedNetworkTypes: {} }), async (r) => {
    const { types } = await r.client.listNetworkTypes();
    assert.deepEqual(
      types.map((t) => t.id),
      ['bridge'],
    );
  });
});

test('a lab is named after its file: created under its path name, never renamed by PUT (which moves it)', async () => {
  await disposeAfter(rig(), async (r) => {
    const path = '/lab-agent/core.unl';
    await r.client.createLab(path, { name: 'Core Lab', description: '' });
    assert.ok(!r.fake.seen.some((e) => e.method === 'PUT'));
    assert.equal(must(await r.client.getLab(path), 'lab').name, 'core');
    const e = await rejectsEmu(r.client.editLab(path, { name: 'edge', description: 'd' }), 'refused');
    assert.match(e.message, /names a lab after its file/);
    assert.equal(must(await r.client.getLab(path), 'lab').description, 'd');
    const call = await rawSession(r.fake);
    await call('PUT', `/api/labs${path}`, { name: 'moved' });
    assert.equal(await r.client.getLab(path), undefined);
    assert.ok(await r.client.getLab('/lab-agent/moved.unl'));
    // "+" is not allowed in lab or folder names.
    const plus = await rejectsEmu(
      r.client.createLab('/lab-agent/a+b.unl', { name: 'a+b', description: '' }),
      'refused',
    );
    assert.match(plus.message, /"\+"/);
  });
});

test('liveness is GET /api/auth: the slow /api/status is asked once', async () => {
  await disposeAfter(rig(), async (r) => {
    for (let i = 0; i < 5; i++) await r.client.status();
    assert.equal(r.fake.seen.filter((e) => e.path === '/api/status').length, 1);
    assert.equal(r.fake.seen.filter((e) => e.path === '/api/auth').length, 5);
  });
});

test('a broken template is listed unavailable with its reason; the catalogue is not loaded again at once', async () => {
  await disposeAfter(rig({ brokenTemplates: ['csr1000vng'] }), async (r) => {
    const templates = await r.client.listTemplates();
    const csr = must(
      templates.find((t) => t.id === 'csr1000vng'),
      'csr1000vng',
    );
    assert.equal(csr.provisioned, false);
    assert.match(csr.description, /unavailable: .*Cannot read template file/);
    assert.ok(templates.find((t) => t.id === 'vios')?.provisioned);
    const details = () => r.fake.seen.filter((e) => e.path.startsWith('/api/list/templates/')).length;
    const before = details();
    await r.client.listTemplates();
    assert.equal(details(), before);
  });
});

test('a deploy reads the catalogue once: lookups inside lab writes and reads keep the catalogue held', async () => {
  let now = 1_000_000;
  await disposeAfter(
    rig({ brokenTemplates: ['csr1000vng'] }, {}, () => now),
    async (r) => {
      const listings = () => r.fake.seen.filter((e) => e.method === 'GET' && e.path === '/api/list/templates/').length;
      await r.client.listTemplates();
      const path = '/lab-agent/one-read.unl';
      await newLab(r.client, path);
      for (const name of ['a', 'b', 'c']) {
        now += 10_000; // each step outlasts the 5 s a partial catalogue is kept
        await r.client.addNode(path, nodeSpec(name, 'vios', 1));
        await r.client.getLab(path);
      }
      assert.equal(listings(), 1);
      // A catalogue read of its own still sees a fixed template soon.
      await r.client.listTemplates();
      assert.equal(listings(), 2);
    },
  );
});

test('interface names and ids as Node::setEthernets makes them: vMX, vEOS, ASAv', async () => {
  await withNewLab(rig(), '/lab-agent/names.unl', async (r, path) => {
    const vmx = await r.client.addNode(path, nodeSpec('mx', 'vmx', 4));
    assert.deepEqual(
      vmx.interfaces.map((i) => i.name),
      ['fxp0', 'em1', 'ge-0/0/0', 'ge-0/0/1'],
    );
    const veos = await r.client.addNode(path, nodeSpec('eos', 'veos', 3));
    assert.deepEqual(
      veos.interfaces.map((i) => i.name),
      ['Mgmt1', 'Eth1', 'Eth2'],
    );
    const asav = await r.client.addNode(path, nodeSpec('fw', 'asav', 3));
    assert.deepEqual(
      asav.interfaces.map((i) => i.name),
      ['Mgmt0/0', 'Gi0/0', 'Gi0/1'],
    );
    // The server's own labels, for the record.
    const call = await rawSession(r.fake);
    const raw = await call('GET', `/api/labs${path}/nodes/${vmx.id}/interfaces`);
    assert.equal((raw.data as { ethernet: Record<string, { name: string }> }).ethernet[2].name, 'em2 / ge-0/0/0');
    const templates = await r.client.listTemplates();
    assert.deepEqual(
      must(
        templates.find((t) => t.id === 'nxosv9k'),
        'nxosv9k',
      ).ethName,
      ['Mgmt0'],
    );
  });
});

test("XRv and XRv 9K as Node::setEthernets makes them: management first, XRv 9K's ids 1 and 2 reserved", async () => {
  await withNewLab(rig(), '/lab-agent/xr.unl', async (r, path) => {
    const xrv = await r.client.addNode(path, nodeSpec('xr', 'xrv', 3));
    assert.deepEqual(
      xrv.interfaces.map((i) => `${i.index}:${i.name}`),
      ['0:Mgmt0/0/CPU0/0', '1:Gi0/0/0/0', '2:Gi0/0/0/1'],
    );
    const xr9 = await r.client.addNode(path, nodeSpec('xr9', 'xrv9k', 5));
    assert.deepEqual(
      xr9.interfaces.map((i) => `${i.index}:${i.name}`),
      ['0:Mgmt0/0/CPU0/0', '1:internal1', '2:internal2', '3:Gi0/0/0/0', '4:Gi0/0/0/1'],
    );
    // Gi0/0/0/0 to Gi0/0/0/0: EVE-NG interface 1 of the XRv, 3 of the XRv 9K.
    const net = await r.client.addNetwork(path, bridgeSpec('core'));
    await r.client.connectInterface(path, xrv.id, 1, net.id);
    await r.client.connectInterface(path, xr9.id, 3, net.id);
    const stored = must(r.fake.labState(path), 'lab').nodes;
    const linked = (name: string) =>
      Object.entries(
        must(
          stored.find((n) => n.name === name),
          name,
        ).links,
      )
        .filter(([, n]) => n === net.id)
        .map(([id]) => id);
    assert.deepEqual([linked('xr'), linked('xr9')], [['1'], ['3']]);
    // Read back, the links are on the same names, and the server's labels are its own.
    const lab = must(await r.client.getLab(path), 'lab');
    const onNet = (name: string) =>
      node(lab, name)
        .interfaces.filter((i) => i.networkId === net.id)
        .map((i) => i.name);
    assert.deepEqual([onNet('xr'), onNet('xr9')], [['Gi0/0/0/0'], ['Gi0/0/0/0']]);
    const call = await rawSession(r.fake);
    const raw = await call('GET', `/api/labs${path}/nodes/${xr9.id}/interfaces`);
    assert.deepEqual(
      Object.values((raw.data as { ethernet: Record<string, { name: string }> }).ethernet).map((e) => e.name),
      ['Mgmt0/0/CPU0/0', 'Internal use', 'Internal use', 'Gi0/0/0/0', 'Gi0/0/0/1'],
    );
  });
});

test('a node add reads back that node alone, not the node list, also where the add answers no id (UNetLab)', async () => {
  for (const flavour of ['eve-ng', 'unetlab'] as const) {
    await withNewLab(rig({ flavour, nodeIds: 'per-lab' }), '/lab-agent/adds.unl', async (r, path) => {
      const reads = (pattern: RegExp) => r.fake.seen.filter((e) => e.method === 'GET' && pattern.test(e.path)).length;
      const list = /^\/api\/labs\/lab-agent\/adds\.unl\/nodes$/;
      const one = /^\/api\/labs\/lab-agent\/adds\.unl\/nodes\/\d+$/;
      const add = (name: string) => r.client.addNode(path, nodeSpec(name, 'vios', 1));
      for (const name of ['r1', 'r2', 'r3', 'r4']) await add(name);
      assert.deepEqual([reads(list), reads(one)], [0, 4], flavour);
      // UNetLab gives the lowest free id: a deleted node's id goes to the next add.
      await r.client.deleteNode(path, 2);
      assert.equal((await add('r5')).id, 2, flavour);
      assert.deepEqual([reads(list), reads(one)], [0, 5], flavour);
      // Where the id guessed belongs to another node (r3), the list settles it: one read of it.
      assert.equal((await add('r6')).id, 5, flavour);
      assert.deepEqual([reads(list), reads(one)], flavour === 'unetlab' ? [1, 7] : [0, 6]);
    });
  }
});

test('a node add the server answers 201 without adding the node is refused with its message', async () => {
  await withNewLab(rig({ maxNodeId: 1 }), '/lab-agent/full.unl', async (r, path) => {
    await r.client.addNode(path, nodeSpec('r1', 'vios', 1));
    const e = await rejectsEmu(r.client.addNode(path, nodeSpec('r2', 'vios', 1)), 'refused');
    assert.match(e.message, /did not add node r2.*Max nodes reached/);
  });
});

test('one pod per account: the server shares node ids between labs; the adapter refuses to start or stop across labs', async () => {
  await disposeAfter(rig({ nodeIds: 'per-lab' }), async (r) => {
    const [a, b] = ['/lab-agent/pod-a.unl', '/lab-agent/pod-b.unl'];
    for (const path of [a, b]) {
      await newLab(r.client, path);
      await r.client.addNode(path, nodeSpec('pc', 'vpcs', 1));
    }
    await r.client.startNode(a, 1);
    // The server: lab B's node 1 reads running (it is A's).
    const call = await rawSession(r.fake);
    const raw = await call('GET', `/api/labs${b}/nodes/1`);
    assert.notEqual((raw.data as { status: number }).status, 0);
    // The adapter: B's node is stopped, it will not start it, and stopping it leaves A alone.
    assert.equal(node(must(await r.client.getLab(b), 'B'), 'pc').status, 0);
    const e = await rejectsEmu(r.client.startNode(b, 1), 'busy');
    assert.match(e.message, /pod-a\.unl/);
    await r.client.stopNode(b, 1, 0);
    assert.ok(!r.fake.seen.some((x) => x.path.includes('pod-b.unl/nodes/1/stop')));
    assert.notEqual(node(must(await r.client.getLab(a), 'A'), 'pc').status, 0);
    // A wipe stops first and a node delete stops the id pod-wide: neither reaches the server for B.
    await r.client.wipeNode(b, 1);
    await rejectsEmu(r.client.deleteNode(b, 1), 'busy');
    assert.ok(!r.fake.seen.some((x) => /pod-b\.unl\/nodes\/1(\/wipe)?$/.test(x.path) && x.method !== 'GET'));
    assert.ok(!r.fake.seen.some((x) => x.path.endsWith('pod-b.unl/nodes/1/wipe')));
    assert.notEqual(node(must(await r.client.getLab(a), 'A'), 'pc').status, 0);
    // The server: stopping B's node 1 stops A's.
    await call('GET', `/api/labs${b}/nodes/1/stop`);
    assert.equal(node(must(await r.client.getLab(a), 'A'), 'pc').status, 0);
  });
});
