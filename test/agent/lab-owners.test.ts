/**
 * Users are separated (decisions §13): a lab belongs to the user who deployed
 * or imported it, and is 404 to everyone else on every lab route; a lab with
 * no owner on record belongs to the first user who changes it. The data
 * directory and its files are the agent's alone.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labYaml, makeDataDir, startTestAgent, waitFor, type TestAgent, withTestAgent } from '../support/agent';

const ALICE = { username: 'alice', password: 'alice-secret' };
const BOB = { username: 'bob', password: 'bob-secret' };
const USERS = [ALICE, BOB];

let agent: TestAgent;
let alice: string;
let bob: string;

async function loginBoth(): Promise<void> {
  alice = await agent.login(ALICE.username, ALICE.password);
  bob = await agent.login(BOB.username, BOB.password);
}

before(async () => {
  agent = await startTestAgent({ users: USERS });
  await loginBoth();
});
after(() => agent.stop());

async function ok(path: string, body: unknown, token: string) {
  const reply = await agent.call('POST', path, body, token);
  assert.equal(reply.status, 200, `${path}: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function runningNodes(lab: string, token: string): Promise<number> {
  return (await ok('/api/v1/projects/status', { lab }, token)).running;
}

/** Every lab route, as another user would call it on `lab` (whose document is `yaml`). */
function everyLabRoute(lab: string, yaml: string): [string, string, Record<string, unknown>][] {
  return [
    ['status', '/api/v1/projects/status', { lab }],
    ['plan', '/api/v1/projects/plan', { yaml }],
    ['plan from_emu', '/api/v1/projects/plan', { yaml, direction: 'from_emu' }],
    // Over 256 KiB: planned on a worker thread, which asks the main thread for the lab.
    ['plan of a large document', '/api/v1/projects/plan', { yaml: `${yaml}# ${'x'.repeat(300 * 1024)}\n` }],
    ['reconcile (push)', '/api/v1/projects/reconcile', { yaml, prune: true }],
    ['reconcile from_emu', '/api/v1/projects/reconcile', { yaml, direction: 'from_emu' }],
    ['deploy with replace', '/api/v1/projects/deploy', { yaml, replace: true }],
    ['inspect', '/api/v1/projects/inspect', { lab, refresh: true }],
    ['open', '/api/v1/projects/open', { lab }],
    ['consoles', '/api/v1/projects/consoles', { lab }],
    ['exec stop', '/api/v1/projects/exec', { lab, action: 'stop' }],
    ['console exec', '/api/v1/console/exec', { lab, node: 'r1', command: 'show version' }],
    ['console exec-many', '/api/v1/console/exec-many', { lab, targets: [{ node: 'r1', command: 'show version' }] }],
    ['console attach (ticket)', '/api/v1/console/attach', { lab, node: 'r1' }],
    ['destroy', '/api/v1/projects/destroy', { lab }],
  ];
}

test("another user's lab answers 404 lab_not_found on every lab route, and stays as it was", async () => {
  const yaml = labYaml('alice-lab');
  const lab = '/lab-agent/alice-lab.unl';
  await ok('/api/v1/projects/deploy', { yaml }, alice);
  await ok('/api/v1/projects/exec', { lab, action: 'start' }, alice);
  await waitFor(async () => (await runningNodes(lab, alice)) === 3, 'alice’s nodes to run');

  for (const [what, path, body] of everyLabRoute(lab, yaml)) {
    const reply = await agent.call('POST', path, body, bob);
    assert.equal(reply.status, 404, `${what}: ${JSON.stringify(reply.body)}`);
    assert.equal(reply.body.code, 'lab_not_found', what);
    assert.match(reply.body.error ?? '', /another user's lab/, what);
    // Nothing of the lab shows in the answer (node names, configs, state).
    assert.doesNotMatch(JSON.stringify(reply.body), /sw1|r2|"state"/, what);
  }

  // Alice's lab is untouched, and still hers on every route.
  assert.equal(await runningNodes(lab, alice), 3);
  assert.equal((await ok('/api/v1/projects/consoles', { lab }, alice)).consoles.length, 3);
  assert.match((await ok('/api/v1/console/attach', { lab, node: 'r1' }, alice)).ticket, /^[0-9a-f]{64}$/);
  const output = await ok('/api/v1/console/exec', { lab, node: 'r1', command: 'show version' }, alice);
  assert.match(output.output, /Cisco IOS/);
});

test("a lab deployed at any path is not another user's import source", async () => {
  const lab = '/alice/private.unl';
  await ok('/api/v1/projects/deploy', { yaml: labYaml('private'), lab }, alice);
  const reply = await agent.call('POST', '/api/v1/projects/import', { lab }, bob);
  assert.equal(reply.status, 404, JSON.stringify(reply.body));
  assert.equal(reply.body.code, 'lab_not_found');
  // The owner may import it.
  assert.equal((await ok('/api/v1/projects/import', { lab }, alice)).lab, '/lab-agent/imported/private.unl');
  const copy = await agent.call('POST', '/api/v1/projects/status', { lab: '/lab-agent/imported/private.unl' }, bob);
  assert.equal(copy.status, 404, 'the imported copy is its importer’s');
});

test('owners survive a restart; destroy frees the path for anyone', async () => {
  const yaml = labYaml('kept');
  const lab = '/lab-agent/kept.unl';
  await ok('/api/v1/projects/deploy', { yaml }, alice);
  await agent.close();
  agent = await startTestAgent({ users: USERS, dataDir: agent.dataDir });
  await loginBoth();
  assert.equal((await agent.call('POST', '/api/v1/projects/status', { lab }, bob)).status, 404);
  assert.equal((await ok('/api/v1/projects/status', { lab }, alice)).exists, true);

  await ok('/api/v1/projects/destroy', { lab }, alice);
  assert.equal((await ok('/api/v1/projects/deploy', { yaml }, bob)).lab, lab);
  assert.equal((await agent.call('POST', '/api/v1/projects/status', { lab }, alice)).status, 404);
});

test('a lab with no owner on record (made before owners were) is readable by all, and the first user to change it owns it', async () => {
  const yaml = labYaml('legacy');
  const lab = '/lab-agent/legacy.unl';
  await ok('/api/v1/projects/deploy', { yaml }, alice);
  // As an agent before this version left it: the lab is there, its owner is not.
  await agent.close();
  rmSync(join(agent.dataDir, 'lab-owners.json'));
  agent = await startTestAgent({ users: USERS, dataDir: agent.dataDir });
  await loginBoth();

  assert.equal((await ok('/api/v1/projects/status', { lab }, alice)).exists, true);
  assert.equal((await ok('/api/v1/projects/status', { lab }, bob)).exists, true);
  assert.equal((await ok('/api/v1/projects/plan', { yaml }, bob)).exists, true);
  await ok('/api/v1/projects/exec', { lab, action: 'start' }, bob);
  assert.equal((await ok('/api/v1/projects/status', { lab }, bob)).exists, true);
  const reply = await agent.call('POST', '/api/v1/projects/status', { lab }, alice);
  assert.equal(reply.status, 404, 'bob changed it first: it is his now');
});

test('the data directory is 0700 and every file in it 0600, also those an older agent left open', async () => {
  const dataDir = makeDataDir();
  // The simulated emulator: its labs file is the agent's (a fake EVE-NG server's file is the test's).
  let own: TestAgent | undefined = await startTestAgent({ users: USERS, dataDir, emulator: 'simulated' });
  try {
    const token = await own.login(ALICE.username, ALICE.password);
    await own.call('POST', '/api/v1/projects/deploy', { yaml: labYaml('modes') }, token);
    await own.close();
    // An older agent's modes: everything readable by every local user.
    chmodSync(dataDir, 0o755);
    for (const name of readdirSync(dataDir))
      chmodSync(join(dataDir, name), statSync(join(dataDir, name)).isDirectory() ? 0o755 : 0o644);
    writeFileSync(join(dataDir, 'left-by-an-old-version.json'), '{}', { mode: 0o644 });

    own = await startTestAgent({ users: USERS, dataDir, emulator: 'simulated' });
    const again = await own.login(ALICE.username, ALICE.password);
    await own.call('POST', '/api/v1/projects/deploy', { yaml: labYaml('modes2') }, again);
    await own.call('POST', '/api/v1/projects/exec', { lab: '/lab-agent/modes2.unl', action: 'start' }, again);
    // The emulator's state is saved a moment after a change.
    await new Promise((r) => setTimeout(r, 200));

    const modes: string[] = [];
    const walk = (path: string): void => {
      const stat = statSync(path);
      modes.push(`${path.slice(dataDir.length) || '/'} ${(stat.mode & 0o777).toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(dataDir);
    for (const entry of modes) {
      const isDir = statSync(join(dataDir, entry.split(' ')[0])).isDirectory();
      assert.ok(entry.endsWith(isDir ? ' 700' : ' 600'), `${entry} (all: ${modes.join(', ')})`);
    }
    for (const file of ['key.pem', 'cert.pem', 'lab-owners.json', 'emulator-state.json'])
      assert.ok(
        modes.some((m) => m.startsWith(`/${file} `)),
        `${file} is among ${modes.join(', ')}`,
      );
  } finally {
    await own?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a user may own so many labs (here 2): the next deploy, import or reconcile that creates one is refused, naming the limit and their labs', async () => {
  await withTestAgent({ users: USERS, labsPerUser: 2 }, async (own) => {
    const a = await own.login(ALICE.username, ALICE.password);
    const b = await own.login(BOB.username, BOB.password);
    const call = (path: string, body: unknown, token: string) => own.call('POST', path, body, token);
    assert.equal((await call('/api/v1/projects/deploy', { yaml: labYaml('q1') }, a)).status, 200);
    // Outside /lab-agent/, so that it may be imported.
    const q2 = '/alice/q2.unl';
    assert.equal((await call('/api/v1/projects/deploy', { yaml: labYaml('q2'), lab: q2 }, a)).status, 200);

    const refusals = [
      ['deploy', '/api/v1/projects/deploy', { yaml: labYaml('q3') }],
      ['reconcile that creates the lab', '/api/v1/projects/reconcile', { yaml: labYaml('q3') }],
      ['import', '/api/v1/projects/import', { lab: q2 }],
    ] as const;
    for (const [what, path, body] of refusals) {
      const reply = await call(path, body, a);
      assert.equal(reply.status, 403, `${what}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.code, 'operation_not_allowed', what);
      assert.match(reply.body.error ?? '', /You have 2 labs on this agent, the most one user may have \(2\)/, what);
      assert.match(reply.body.error ?? '', /\/lab-agent\/q1\.unl, \/alice\/q2\.unl/, what);
    }
    assert.equal((await call('/api/v1/projects/status', { lab: '/lab-agent/q3.unl' }, a)).body.data.exists, false);

    // What the user owns already can still change; another user has a quota of their own.
    assert.equal(
      (await call('/api/v1/projects/deploy', { yaml: labYaml('q1'), replace: true }, a)).status,
      200,
      'replace',
    );
    assert.equal((await call('/api/v1/projects/deploy', { yaml: labYaml('b1') }, b)).status, 200, 'bob');

    // Destroying one makes room.
    assert.equal((await call('/api/v1/projects/destroy', { lab: q2 }, a)).status, 200);
    assert.equal((await call('/api/v1/projects/deploy', { yaml: labYaml('q3') }, a)).status, 200, 'after destroy');
  });
});
