/**
 * Recordings (`--record DIR`) played back. Every recording under
 * test/eveng/recordings/ (the shipped one made against the fake server, and
 * any a user sends from a real EVE-NG server) is checked: nothing secret is in
 * it, and the backend's readers understand every answer. The shipped one is
 * also replayed whole: the agent on the EVE-NG backend runs the scenario
 * against it and gets the same outcome, using every exchange.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAnswer } from '../../agent/emulator/eveng/envelope';
import {
  parseIcons,
  parseNetworkTypes,
  parseTemplateDetail,
  parseTemplateList,
} from '../../agent/emulator/eveng/catalogue';
import { parseInterfaces, parseNetworks, parseNode } from '../../agent/emulator/eveng/lab-client';
import { itemsOf, record } from '../../agent/emulator/eveng/envelope';
import { readRecording, ReplayServer } from './replay-server';
import { runScenario, scenarioAgent } from './scenario';
import { recordedOutcome, replayFullScenario } from './scenario-replay';

const RECORDINGS = join(__dirname, '..', '..', '..', 'test', 'eveng', 'recordings');
const SHIPPED = 'fake-community';

/** The reader the backend applies to each kind of answer, by request path. */
const READERS: [RegExp, (data: unknown) => unknown][] = [
  [/^\/api\/list\/templates\/$/, parseTemplateList],
  [/^\/api\/list\/templates\/[^/]+$/, (d) => parseTemplateDetail('t', d, undefined)],
  [/^\/api\/list\/networks$/, parseNetworkTypes],
  [/^\/api\/icons$/, parseIcons],
  [/\/nodes$/, (d) => itemsOf(d).map((n) => parseNode(n, [], undefined, 'h'))],
  [/\/nodes\/\d+$/, (d) => parseNode(record(d), [], undefined, 'h')],
  [/\/nodes\/\d+\/interfaces$/, (d) => parseInterfaces(d)],
  [/\/networks$/, (d) => parseNetworks(itemsOf(d), [])],
];

const recordings = readdirSync(RECORDINGS).filter((f) => existsSync(join(RECORDINGS, f, '0001-POST-auth-login.json')));

test('a recording ships with the repository', () => {
  assert.ok(recordings.includes(SHIPPED), `recordings: ${recordings.join(', ')}`);
});

for (const name of recordings) {
  test(`recording ${name}: no cookie or password, and every answer is readable`, () => {
    const exchanges = readRecording(join(RECORDINGS, name));
    assert.ok(exchanges.length > 0);
    for (const e of exchanges) {
      const where = `exchange ${e.seq} (${e.request.method} ${e.request.path})`;
      const body = e.request.body as Record<string, unknown> | undefined;
      if (body && 'password' in body) assert.equal(body.password, '<redacted>', where);
      for (const cookie of e.response.setCookie ?? []) assert.match(cookie, /^unetlab_session=<redacted>/, where);
      const answer = readAnswer(
        e.response.status,
        e.response.body === undefined ? '' : JSON.stringify(e.response.body),
      );
      if (!answer.ok) continue;
      for (const [pattern, read] of READERS) {
        if (pattern.test(e.request.path)) assert.doesNotThrow(() => read(answer.data), where);
      }
    }
  });
}

test(`the ${SHIPPED} recording replays: same outcome, every exchange used, nothing asked beyond it`, async () => {
  const replay = new ReplayServer(readRecording(join(RECORDINGS, SHIPPED)));
  const url = await replay.listen();
  const dataDir = mkdtempSync(join(tmpdir(), 'eve-replay-'));
  try {
    const agent = await scenarioAgent(dataDir, url);
    let outcome;
    try {
      outcome = await runScenario(agent);
    } finally {
      await agent.close();
    }
    assert.deepEqual(replay.misses, []);
    assert.equal(replay.used.size, replay.exchanges.length, 'every recorded exchange was asked for');
    assert.equal(outcome.templates, 11);
    assert.ok(outcome.provisioned.includes('vios') && !outcome.provisioned.includes('xrv9k'));
    assert.deepEqual(outcome.deployed, { lab: '/lab-agent/recorded.unl', nodes: 3, links: 3 });
    assert.equal(outcome.started, 3);
    assert.deepEqual(outcome.inspected, ['r1', 'r2', 'sw1']);
    assert.equal(outcome.destroyed, 'destroyed');
  } finally {
    await replay.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The recording made against UNetLab's own API code (make-recording.ts --unetlab). */
const UNETLAB = 'unetlab';

test(`the ${UNETLAB} recording (UNetLab's own code) replays: every step as recorded, every exchange used`, () =>
  replayFullScenario(join(RECORDINGS, UNETLAB)));

/**
 * What the unetlab recording shows about the adapter against UNetLab's own code, as recorded
 * (see test/eveng/README.md). When the adapter changes,
 * re-record (make-recording.ts --unetlab) and update these to what the new recording shows.
 */
test(`the ${UNETLAB} recording: what the real code did with the adapter's requests`, () => {
  const dir = join(RECORDINGS, UNETLAB);
  const outcome = recordedOutcome(dir);
  const exchanges = readRecording(dir);
  const step = (name: string) => {
    const found = outcome.steps.find((s) => s.step === name);
    assert.ok(found, `step ${name}`);
    return found;
  };
  const lab = '/api/labs/lab-agent/scen-a.unl';
  assert.match(outcome.server, /^dainok\/unetlab [0-9a-f]{40}$/);
  // The catalogue loads although three templates of UNetLab's HEAD answer a PHP error page (500).
  const provisioned = step('templates').result as string[];
  assert.ok(['iol', 'linux', 'vios', 'viosl2'].every((t) => provisioned.includes(t)) && !provisioned.includes('xrv9k'));
  assert.ok(exchanges.some((e) => e.request.path === '/api/list/templates/c7200' && e.response.status === 500));
  // IOL ports by group: sw1 (node 4) e1/0 is interface 1 and e0/1 is 16.
  const sw1Links = exchanges.filter(
    (e) => e.request.method === 'PUT' && e.request.path === `${lab}/nodes/4/interfaces`,
  );
  assert.deepEqual(
    sw1Links.map((e) => Object.keys(e.request.body as object)),
    [['1'], ['16']],
  );
  // No visibility PUT (UNetLab has none and answers it with a 500 that leaves the lab locked).
  assert.ok(!exchanges.some((e) => e.request.method === 'PUT' && /\/networks\/\d+$/.test(e.request.path)));
  assert.deepEqual(step('deploy A').result, { lab: '/lab-agent/scen-a.unl', nodes: 4, links: 4 });
  // Configs: written, then the flag set with a whole node; read back enabled, with the same text.
  const r1Config = exchanges.findIndex((e) => e.request.method === 'PUT' && e.request.path === `${lab}/configs/2`);
  const r1Flag = exchanges.findIndex(
    (e) =>
      e.request.method === 'PUT' &&
      e.request.path === `${lab}/nodes/2` &&
      (e.request.body as { config?: unknown }).config !== undefined,
  );
  assert.ok(r1Config >= 0 && r1Flag > r1Config, `config data (${r1Config}) before the flag (${r1Flag})`);
  const written = (exchanges[r1Config].request.body as { data: string }).data;
  const r1Read = exchanges.filter((e) => e.request.method === 'GET' && e.request.path === `${lab}/configs/2`).at(-1);
  assert.equal((r1Read?.response.body as { data?: { data?: unknown } }).data?.data, written);
  // UNetLab lists nodes without their config flag: one GET …/configs per lab read has it.
  const flags = exchanges.filter((e) => e.request.method === 'GET' && e.request.path === `${lab}/configs`).at(-1);
  assert.deepEqual(
    Object.entries((flags?.response.body as { data: Record<string, { config: unknown }> }).data).map(([id, n]) => [
      id,
      String(n.config),
    ]),
    [
      ['2', '1'],
      ['3', '0'],
      ['4', '1'],
    ],
  );
  // Plans converge: nothing to do right after a deploy or an edit, and from_emu changes nothing.
  for (const name of ['plan A after deploy', 'from_emu A', 'plan A after edit'])
    assert.deepEqual((step(name).result as { actions: string[] }).actions, [], name);
  assert.equal((step('to_emu one-field edit').result as { changed?: boolean }).changed, true);
  // Two labs: B is refused a start while A runs, and destroying B touches none of A's nodes.
  assert.match(step('start B').error ?? '', /one pod/);
  assert.ok(!outcome.runtime.some((c) => /^-a (start|stop|wipe) /.test(c) && c.includes('scen-b.unl')));
  const allRunning = ['h1:running', 'r1:running', 'r2:running', 'sw1:running'];
  assert.deepEqual(step('inspect A after B').result, allRunning);
  assert.deepEqual(step('inspect A after destroying B').result, allRunning);
  // A rename is refused with what to do instead (a lab's name is its file name).
  assert.match(step('to_emu rename').error ?? '', /cannot be renamed/);
  assert.deepEqual(step('destroy renamed A').result, { lab: '/lab-agent/scen-a.unl', status: 'destroyed' });
});
