/**
 * Lab tests end to end: the OSPF sample's tests: section runs through the
 * command-line entry (dist/cli.js, as `lab-agent test` runs in CI) against
 * the real FRR lab on the linux agent over real HTTPS. Right after deploy and
 * start (convergence still under way) every test passes; with r2's OSPF
 * hellos on eth1 changed on its console, exactly the tests that need the
 * r2–r3 adjacency fail, each naming node, check and last output.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentClient } from '../../common/api/client';
import { readLabState } from '../../common/project-files/state-file';
import { TEST_USER, startTestAgent, type TestAgent } from '../support/agent';
import { eventually, namespacesOf, ospfSample, prefixOf, requireLinuxLabs, typeOnConsole } from './support';

const CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');
const SAMPLE_DIR = join(__dirname, '..', '..', '..', 'samples', 'ospf');

let agent: TestAgent | undefined;
let client: AgentClient;
let prefix = '';
let dir = '';

before(async () => {
  await requireLinuxLabs();
  agent = await startTestAgent({ emulator: 'linux' });
  prefix = prefixOf(agent.dataDir);
  client = await agent.loggedIn();
  // A copy: --deploy keeps the lab's state beside the file, which must not land in the repository.
  dir = mkdtempSync(join(tmpdir(), 'lab-tests-'));
  cpSync(SAMPLE_DIR, dir, { recursive: true });
});

after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (!agent) return;
  await agent.stop();
  assert.deepEqual(await namespacesOf(prefix), []);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const login = () => ({
  LAB_AGENT_URL: agent?.url,
  LAB_AGENT_USER: TEST_USER.username,
  LAB_AGENT_PASSWORD: TEST_USER.password,
  LAB_AGENT_PIN: agent?.fingerprint,
});

test('without a password in the environment the command line stops with exit code 2 and says what to set', async () => {
  const run = await cli(['test', 'ospf.lab.yaml'], { ...login(), LAB_AGENT_PASSWORD: undefined });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /set LAB_AGENT_PASSWORD, or LAB_AGENT_PASSWORD_FILE/);
});

test('--deploy deploys, starts and waits; every test of the sample passes right after start (JUnit)', async () => {
  const run = await cli(['test', 'ospf.lab.yaml', '--deploy', '--format', 'junit', '--output', 'results.xml'], login());
  assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
  const junit = readFileSync(join(dir, 'results.xml'), 'utf8');
  assert.match(junit, /<testsuite name="ospf" tests="6" failures="0" errors="0"/);
  for (const name of [
    'h1 reaches h2',
    'h2 reaches h1',
    'r2 has two OSPF neighbours',
    "r1 has an OSPF route to h2's network",
  ])
    assert.ok(junit.includes(`name="${name}"`), name);
  assert.match(run.stderr, /^every node runs$/m);
  assert.equal((run.stderr.match(/^PASS /gm) ?? []).length, 6, run.stderr);
  // The state is kept beside the lab file, as the extension keeps it.
  assert.ok((await readLabState(join(dir, 'ospf.lab.yaml')))?.state);
});

test('r2 with mismatched hellos on eth1: exactly the tests that need r2–r3 fail, naming node, check and last output (TAP)', async () => {
  const stored = await readLabState(join(dir, 'ospf.lab.yaml'));
  const payload = { ...ospfSample(), state: stored?.state };
  await typeOnConsole(client, payload, 'r2', [
    'configure terminal',
    'interface eth1',
    'ip ospf hello-interval 2',
    'end',
  ]);
  // Wait for the break itself (dead interval 4 s), so that no test passes on an adjacency about to drop.
  await eventually(
    async () =>
      (await client.execConsole({ ...payload, node: 'r2', command: 'show ip ospf neighbor json' })).output ?? '',
    (output) => !output.includes('10.255.0.3'),
    'r2 to lose r3',
  );
  // Short timeouts: the failing checks retry until then.
  const yaml = readFileSync(join(dir, 'ospf.lab.yaml'), 'utf8').replace(
    /^( {4}(?:ping|ospf-neighbors|route): .*)$/gm,
    '$1\n    timeout: 8',
  );
  writeFileSync(join(dir, 'ospf.lab.yaml'), yaml);
  const run = await cli(['test', 'ospf.lab.yaml'], login());
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stdout.split('\n').filter((l) => /^(not )?ok /.test(l));
  assert.deepEqual(lines, [
    'not ok 1 - h1 reaches h2',
    'not ok 2 - h2 reaches h1',
    'ok 3 - r1 has its OSPF neighbour',
    'not ok 4 - r2 has two OSPF neighbours',
    'not ok 5 - r3 has its OSPF neighbour',
    "not ok 6 - r1 has an OSPF route to h2's network",
  ]);
  assert.match(run.stderr, /1 passed, 5 failed/);
  // The failure names the test, the check, the node, expected and actual, and shows the last output.
  assert.match(
    run.stderr,
    /FAIL r2 has two OSPF neighbours: ospf-neighbors on r2 failed after \d+ attempts? in [\d.]+ s\n {2}expected: 2 neighbours in state Full\n {2}actual: {3}1 in state Full; neighbours: 10\.255\.0\.1 Full on eth0\n {2}last output of "show ip ospf neighbor json" on r2:\n {4}\{/,
  );
  assert.match(run.stdout, /check: ospf-neighbors\n {2}expected: "2 neighbours in state Full"/);
  assert.match(
    run.stderr,
    /FAIL r1 has an OSPF route to h2's network: route on r1 failed[^\n]*\n {2}expected: a route to 10\.0\.2\.0\/24 by ospf via 10\.0\.12\.2\n {2}actual: {3}no route to 10\.0\.2\.0\/24/,
  );
  assert.match(
    run.stderr,
    /FAIL h1 reaches h2: ping on h1 failed[^]*last output of "ping -n -c 3 -W 1 -i 0\.2 10\.0\.2\.10" on h1:/,
  );
});
