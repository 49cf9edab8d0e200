/**
 * The agent's whole contract suite (test/integration) once more, with every
 * test agent fronting the fake EVE-NG server through the EVE-NG backend
 * instead of the simulated emulator. The suite's files are not duplicated:
 * they run in a child test runner with LAB_AGENT_TEST_EMULATOR=eve-ng, which
 * test/support/agent.ts reads.
 *
 * With LAB_AGENT_TEST_EVE_SERVER=unetlab, the peer is UNetLab's own API code
 * under the harness (test/eveng/harness/) instead of the fake; without
 * UNETLAB_SRC that run fails with the harness's refusal, it never falls back
 * to the fake. With LAB_AGENT_TEST_EVE_SERVER=eve-ce, the peer is EVE-NG Community 6.2.0-4's own
 * code under the community harness (needs EVENG_SRC). CI runs the fake and the replayed
 * recordings (replay.test.ts, replay-eve-ce.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NO_LAB_LOCK, TEST_EMULATOR_ENV, TEST_EVE_SERVER_ENV, withTestAgent } from '../support/agent';
import { communityHarnessUnavailable } from './harness/community-harness';
import { harnessUnavailable } from './harness/unetlab-harness';

const SUITE_DIR = join(__dirname, '..', 'integration');
const SERVER = process.env[TEST_EVE_SERVER_ENV];
const ON_CE = SERVER === 'eve-ce';
/** On a harness serving a real server's code (UNetLab or EVE-NG Community) rather than the fake. */
const ON_UNETLAB = SERVER === 'unetlab' || ON_CE;
const PEER = ON_CE
  ? "EVE-NG Community 6.2.0-4's own API code (harness)"
  : ON_UNETLAB
    ? "UNetLab's own API code (harness)"
    : 'the fake EVE-NG server';
const SUITE_TIMEOUT_MS = ON_UNETLAB ? 3_600_000 : 300_000;
const unavailable = () => (ON_CE ? communityHarnessUnavailable() : harnessUnavailable());

test(`the test support really puts the EVE-NG backend and ${PEER} behind an eve-ng test agent`, async () => {
  if (ON_UNETLAB) assert.equal(unavailable(), undefined);
  await withTestAgent({ emulator: 'eve-ng' }, async (agent) => {
    const client = await agent.loggedIn();
    await client.listTemplates();
    if (ON_UNETLAB) {
      assert.ok((ON_CE ? agent.eveCe : agent.unetlab) && !agent.fakeEve, 'the harness, not the fake');
    } else {
      const seen = agent.fakeEve?.seen ?? [];
      assert.ok(seen.some((e) => e.method === 'POST' && e.path === '/api/auth/login'));
      assert.ok(seen.some((e) => e.path.startsWith('/api/list/templates/vios')));
    }
  });
});

test('on the EVE-NG backend a plan right after deploy is empty: configs, IOL, VPCS, hidden bridges, escaped text', async () => {
  await withTestAgent({ emulator: 'eve-ng' }, async (agent) => {
    const client = await agent.loggedIn();
    const yaml = [
      'name: converge',
      'description: "a <b> & \'c\'"',
      'nodes:',
      '  r1:',
      '    template: vios',
      '    image: vios-adventerprisek9-m.SPA.159-3.M6',
      '    config: r1.cfg',
      '    position: { x: 100, y: 100 }',
      '  sw1:',
      '    template: iol',
      '    image: i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
      '    ethernet: 8',
      '    position: { x: 300, y: 100 }',
      '  pc:',
      '    template: vpcs',
      '    position: { x: 300, y: 300 }',
      '  host:',
      '    template: linux',
      '    position: { x: 100, y: 300 }',
      'networks:',
      '  lan:',
      '    type: bridge',
      'links:',
      '  - endpoints: [r1:Gi0/0, sw1:e0/1]',
      '  - endpoints: [sw1:e1/0, pc:eth0]',
      '  - endpoints: [r1:Gi0/1, lan]',
      '  - endpoints: [host:e0, lan]',
      '',
    ].join('\n');
    // Written on Windows and ending in a newline: neither is a change against what EVE-NG reads back.
    const files = { 'r1.cfg': 'hostname r1\r\n!\r\nend\r\n' };
    const plan = await client.planProject({ yaml, files });
    assert.ok((plan.summary?.create ?? 0) > 0, JSON.stringify(plan.summary));
    const deployed = await client.deployProject({ yaml, files, plan_identity: plan.plan_identity });
    const again = await client.planProject({ yaml, files, state: deployed.state });
    assert.deepEqual(
      [again.summary?.create ?? 0, again.summary?.update ?? 0, again.summary?.delete ?? 0],
      [0, 0, 0],
      again.text,
    );
    if (ON_UNETLAB) return; // what the server stored: see the unetlab recording's replay (replay.test.ts)
    // IOL's e0/1 is EVE-NG interface 16 of a node with 2 port groups.
    const lab = agent.fakeEve?.labState('/lab-agent/converge.unl');
    const sw1 = lab?.nodes.find((n) => n.name === 'sw1');
    assert.equal(sw1?.ethernet, 2);
    assert.ok(sw1 && sw1.links['16'] && sw1.links['1'], JSON.stringify(sw1?.links));
    assert.equal(lab?.nodes.find((n) => n.name === 'r1')?.config, '1');
  });
});

test(
  `the whole contract suite passes against the agent on the EVE-NG backend over ${PEER}`,
  { timeout: SUITE_TIMEOUT_MS + 10_000 },
  async () => {
    if (ON_UNETLAB) assert.equal(unavailable(), undefined);
    const files = readdirSync(SUITE_DIR)
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => join(SUITE_DIR, f));
    assert.ok(files.length >= 5, `found the suite's files: ${files.join(', ')}`);
    // Without the runner's NODE_TEST_CONTEXT, the child reports in plain TAP rather than to this runner.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', ...files], {
      env: { ...env, [TEST_EMULATOR_ENV]: 'eve-ng' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    const failures = output.split('\n').filter((l) => /^\s*not ok /.test(l));
    const passed = Number(/^# pass (\d+)/m.exec(output)?.[1] ?? 0);
    const skips = output.split('\n').filter((l) => /^\s*ok .* # SKIP/.test(l));
    assert.equal(
      code,
      0,
      `the suite failed on the EVE-NG backend over ${PEER}:\n${failures.join('\n')}\n--- last output ---\n${output.slice(-6000)}`,
    );
    assert.ok(passed >= 60, `only ${passed} tests ran`);
    // The one thing the real code cannot show: UNetLab has no lab lock, so nothing else may skip.
    assert.deepEqual(
      skips.map((l) => l.replace(/^\s*ok \d+ - /, '')),
      SERVER === 'unetlab' ? [`lab_locked: changing a lab its owner locked # SKIP ${NO_LAB_LOCK}`] : [],
    );
  },
);
