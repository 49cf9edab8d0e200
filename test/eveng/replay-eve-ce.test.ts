/**
 * The recording made against EVE-NG Community 6.2.0-4's own API code
 * (recordings/eve-ce: make-recording.ts --eve-ce, the community harness in
 * test/eveng/harness/community-harness.ts) played back in `npm test`: the
 * agent runs the full scenario (with a vMX node) against it and gets every
 * step's recorded outcome, using every exchange; then what the real code did
 * with the adapter's requests is asserted from the exchanges themselves.
 * When the adapter changes, re-record and update these to what the new
 * recording shows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RecordedExchange } from '../../agent/emulator/eveng/recorder';
import { readRecording } from './replay-server';
import { recordedOutcome, replayFullScenario, type RecordedOutcome } from './scenario-replay';

const DIR = join(__dirname, '..', '..', '..', 'test', 'eveng', 'recordings', 'eve-ce');
const LAB = '/api/labs/lab-agent/scen-a.unl';

const outcome = (): RecordedOutcome => recordedOutcome(DIR);

test('the eve-ce recording (EVE-NG Community 6.2.0-4) replays: every step as recorded, every exchange used', () =>
  replayFullScenario(DIR, { vmx: true, r2Ram: 1536 }));

test('the eve-ce recording: what EVE-NG Community 6.2.0-4 did with the adapter’s requests', () => {
  const run = outcome();
  const exchanges = readRecording(DIR);
  const step = (name: string) => {
    const found = run.steps.find((s) => s.step === name);
    assert.ok(found, `step ${name}`);
    return found;
  };
  const last = (method: string, path: string): RecordedExchange => {
    const found = exchanges.filter((e) => e.request.method === method && e.request.path === path).at(-1);
    assert.ok(found, `${method} ${path}`);
    return found;
  };
  const data = (e: RecordedExchange) => (e.response.body as { data: unknown }).data;
  assert.match(run.server, /^laaaaiiit\/eve-ktk e1c8ef0d7ca189d63db279ce08d2fcc4dde08735 /);

  // Templates without an image are listed ".missing" and offered unprovisioned; vMX is provisioned.
  const listing = data(last('GET', '/api/list/templates/')) as Record<string, string>;
  assert.match(listing.xrv9k ?? '', /\.missing$/);
  assert.ok(!/\.missing$/.test(listing.vmx ?? ''));
  const provisioned = step('templates').result as string[];
  assert.ok(['iol', 'linux', 'vios', 'vmx'].every((t) => provisioned.includes(t)) && !provisioned.includes('xrv9k'));

  // Node ids by name, as the server lists them at the end.
  const nodes = data(last('GET', `${LAB}/nodes`)) as Record<string, { name: string; config: unknown; url: string }>;
  const id = (name: string) => {
    const found = Object.entries(nodes).find(([, n]) => n.name === name)?.[0];
    assert.ok(found, `node ${name}`);
    return found;
  };
  const linked = (name: string) =>
    exchanges
      .filter((e) => e.request.method === 'PUT' && e.request.path === `${LAB}/nodes/${id(name)}/interfaces`)
      .map((e) => Object.keys(e.request.body as object));
  // IOL ports by group: sw1 e1/0 is interface 1, e0/1 is 16.
  assert.deepEqual(linked('sw1'), [['1'], ['16']]);
  // vMX: ge-0/0/1 is interface 3 (0 is fxp0, 1 internal), and the server names it so.
  assert.deepEqual(linked('vmx1'), [['3']]);
  const vmxPorts = (
    data(last('GET', `${LAB}/nodes/${id('vmx1')}/interfaces`)) as { ethernet: { name: string; network_id: number }[] }
  ).ethernet;
  assert.equal(vmxPorts[3].name, 'em3 / ge-0/0/1');
  assert.ok(vmxPorts[3].network_id > 0 && vmxPorts.filter((p) => p.network_id > 0).length === 1);
  // Node-to-node bridges are hidden only after both ends are attached (Lab::save drops an empty hidden one).
  const hides = exchanges.filter((e) => e.request.method === 'PUT' && /\/networks\/\d+$/.test(e.request.path));
  assert.ok(hides.length >= 4 && hides.every((e) => e.response.status === 201));
  assert.deepEqual(step('deploy A').result, { lab: '/lab-agent/scen-a.unl', nodes: 5, links: 5 });

  // Configs: written, enabled and read back with the same text.
  for (const name of ['r1', 'sw1']) {
    assert.equal(String(nodes[id(name)].config), '1', `${name} config flag`);
    const written = (last('PUT', `${LAB}/configs/${id(name)}`).request.body as { data: string }).data;
    assert.equal((data(last('GET', `${LAB}/configs/${id(name)}`)) as { data: string }).data, written);
  }
  assert.equal(String(nodes[id('r2')].config), '0');

  // Plans converge: nothing to do after the deploy, after from_emu and after the one-field edit.
  for (const name of ['plan A after deploy', 'from_emu A', 'plan A after edit'])
    assert.deepEqual((step(name).result as { actions: string[] }).actions, [], name);
  assert.deepEqual((step('to_emu one-field edit').result as { actions: string[] }).actions, ['update node r2 (ram)']);

  // Two labs: this copy gives each new node an id no other lab of the account uses, so lab B's nodes
  // (and console ports) are its own; B starts, stops and is destroyed without touching A's nodes.
  const labB = data(last('GET', '/api/labs/lab-agent/scen-b.unl/nodes')) as Record<string, unknown>;
  assert.ok(
    Object.keys(labB).every((k) => !(k in nodes)),
    `B's ids ${Object.keys(labB).join(',')}`,
  );
  assert.equal(step('start B').result, 2);
  const touchedBeforeA = run.runtime.slice(
    0,
    run.runtime.findIndex((c) => /-a stop .*scen-a\.unl/.test(c)),
  );
  assert.ok(touchedBeforeA.every((c) => !/-a (stop|wipe)/.test(c) || c.includes('scen-b.unl')));
  const allRunning = ['h1:running', 'r1:running', 'r2:running', 'sw1:running', 'vmx1:running'];
  assert.deepEqual(step('inspect A after B').result, allRunning);
  assert.deepEqual(step('inspect A after destroying B').result, allRunning);
  // Consoles on 32768 + 256 × pod + node id (Node::__construct), pod 1 for the service account.
  assert.equal(nodes[id('r1')].url, `telnet://127.0.0.1:${32768 + 256 + Number(id('r1'))}`);

  // A rename is refused with what to do instead.
  assert.match(step('to_emu rename').error ?? '', /cannot be renamed/);
  assert.deepEqual(step('destroy renamed A').result, { lab: '/lab-agent/scen-a.unl', status: 'destroyed' });
});
