/**
 * The attacks of issue 27 against real nodes, each of which worked before
 * nodes were sandboxed: from a host's startup script and its exec, the
 * machine's secrets, /root, the agent's process and the root namespaces are
 * out of reach; a router's vtysh cannot read or write files outside its run
 * folder; a fork bomb and a memory hog stop at the node's cgroup limits; and
 * a process that left its node's network namespace still dies with the node.
 * The agent runs in this test's process, so its pid is process.pid.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import type { AgentClient } from '../../common/api/client';
import { NodeCgroups } from '../../agent/emulator/linux/cgroup';
import { hostnameOf } from '../../agent/emulator/linux/frr';
import { commandLine, processAlive } from '../../agent/emulator/linux/kernel';
import { sandboxInit } from '../../agent/emulator/linux/sandbox';
import { probeLinuxHost } from '../../agent/emulator/linux/system';
import { startTestAgent, type TestAgent } from '../support/agent';
import { eventually, namespacesOf, prefixOf, requireLinuxLabs } from './support';

/** Marks what this run made on the machine, so that checks cannot see another run's files. */
const TAG = `iso${process.pid}`;
const MACHINE_PROBE = `/root/${TAG}-written-by-a-node`;
const CANARY = `/root/${TAG}-canary`;
/** A host's background job, found by its argument: `sleep` for this many seconds. */
const BACKGROUND_SECONDS = '4321';

const attacks = (agentPid: number, link: string) =>
  [
    `cat /etc/shadow >/dev/null 2>&1 && echo shadow=read || echo shadow=denied`,
    `echo x > ${MACHINE_PROBE} 2>/dev/null; echo home-written`,
    `kill -0 ${agentPid} 2>/dev/null && echo agent=visible || echo agent=invisible`,
    `echo processes=$(ls -d /proc/[0-9]* | wc -l)`,
    `ip link add ${link} type bridge 2>/dev/null && echo link=made-in-node`,
    `mount -t tmpfs ${TAG} /mnt 2>/dev/null && echo mount=done || echo mount=denied`,
    `unshare -n true 2>/dev/null && echo unshare=done || echo unshare=denied`,
    `nsenter -t 1 -n true 2>/dev/null && echo nsenter=done || echo nsenter=denied`,
    `ls /run/netns 2>/dev/null | grep -q . && echo netns=visible || echo netns=hidden`,
    `sysctl -q -w net.ipv4.ip_forward=1 && echo forwarding=on`,
    `echo cwd=$(pwd) home=$HOME secret=\${LAB_ISOLATION_SECRET:-none}`,
    `grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\\t' | tr '\\n' ' '`,
  ].join('; ');

let agent: TestAgent | undefined;
let client: AgentClient;
let prefix = '';
let cgroups: NodeCgroups;
let state: unknown;
const lab = () => ({
  yaml: [
    'name: isolation',
    'nodes:',
    '  h1:',
    '    template: linux',
    '    ethernet: 1',
    '    config: h1.sh',
    '  h2:',
    '    template: linux',
    '    ethernet: 1',
    '    ram: 64',
    '  s1:',
    '    template: switch',
    '    ethernet: 2',
    '  r1:',
    '    template: frr',
    '    ethernet: 2',
    '    config: r1.conf',
    'links:',
    '  - endpoints: [h1:eth0, r1:eth0]',
    '  - endpoints: [h2:eth0, r1:eth1]',
    '',
  ].join('\n'),
  files: {
    'h1.sh': `{ ${attacks(process.pid, `${TAG}a`)}; } > /tmp/startup-report 2>&1\nsleep ${BACKGROUND_SECONDS} &\n`,
    'r1.conf': 'hostname r1\n!\n',
  },
  state,
});

async function run(node: string, command: string): Promise<string> {
  const result = await client.execConsole({ ...lab(), node, command, timeout_ms: 50_000 }, { timeoutMs: 60_000 });
  return result.output ?? '';
}

/** The cgroup (named like the node's namespace) whose members include a process with this command line. */
function cgroupRunning(argv: string[]): string | undefined {
  return cgroups
    .list(prefix)
    .find((name) => cgroups.members(name).some((pid) => commandLine(pid)?.join(' ') === argv.join(' ')));
}

before(async () => {
  await requireLinuxLabs();
  cgroups = new NodeCgroups((await probeLinuxHost()).cgroups);
  // A secret in the agent's environment that no node may inherit.
  process.env.LAB_ISOLATION_SECRET = 'agent-only';
  agent = await startTestAgent({ emulator: 'linux' });
  prefix = prefixOf(agent.dataDir);
  client = await agent.loggedIn();
  writeFileSync(CANARY, 'untouched\n', { mode: 0o600 });
  const deployed = await client.deployProject(lab());
  state = deployed.state;
  const started = await client.execProject({ ...lab(), action: 'start' });
  assert.equal(started.started, 4, JSON.stringify(started));
});

after(async () => {
  delete process.env.LAB_ISOLATION_SECRET;
  rmSync(MACHINE_PROBE, { force: true });
  rmSync(CANARY, { force: true });
  if (agent) await agent.stop();
});

function assertContained(report: string): void {
  assert.match(report, /shadow=denied/);
  assert.match(report, /home-written/);
  assert.equal(existsSync(MACHINE_PROBE), false, "the node wrote in the machine's /root");
  assert.match(report, /agent=invisible/);
  // The node's own pid 1, its sleep and the few processes of the command itself.
  assert.ok(Number(/processes=(\d+)/.exec(report)?.[1]) < 16, report);
  assert.match(report, /link=made-in-node/);
  assert.match(report, /mount=denied/);
  assert.match(report, /unshare=denied/);
  assert.match(report, /nsenter=denied/);
  assert.match(report, /netns=hidden/);
  assert.match(report, /forwarding=on/);
  assert.match(report, /cwd=\/root home=\/root secret=none/);
  assert.match(report, /NoNewPrivs:1 Seccomp:2/);
}

test("a host's startup script runs as root of its own node only, and its background job does not hold start up", async () => {
  const report = await run('h1', 'cat /tmp/startup-report');
  assertContained(report);
  // Start returned (above) while the script's background job still runs: it did not wait for it.
  assert.ok(cgroupRunning(['sleep', BACKGROUND_SECONDS]), 'the background job of the startup script runs');
});

test("a host's exec and console shell are contained the same way", async () => {
  assertContained(await run('h1', attacks(process.pid, `${TAG}b`)));
  // The bridge the node made is its own: the machine's namespace has no such link.
  const rootLinks = readFileSync('/proc/net/dev', 'utf8');
  assert.doesNotMatch(rootLinks, new RegExp(`\\b${TAG}[ab]:`));
  assert.doesNotMatch(readFileSync('/proc/self/mountinfo', 'utf8'), new RegExp(TAG));
});

test('a switch in its sandbox bridges its ports', async () => {
  assert.match(await run('s1', 'ip -o link show eth1'), /master br0/);
});

test('a hostname that is not a plain host name never reaches a command', () => {
  assert.equal(hostnameOf('hostname -F/etc/shadow\n', 'r1'), 'r1');
  assert.equal(hostnameOf('hostname $(reboot)\n', 'r1'), 'r1');
  assert.equal(hostnameOf('hostname core-1.lab\n', 'r1'), 'core-1.lab');
});

test("a router's vtysh reads and writes nothing outside its own run folder", async () => {
  const copied = await run('r1', 'copy /etc/shadow running-config');
  assert.doesNotMatch(copied, /root:[^\s:]*:\d+:/, 'vtysh echoed /etc/shadow');
  assert.match(copied, /Permission denied|Can't open|No such file/i);
  const labs = await run('r1', `copy ${agent?.dataDir}/linux-labs.json running-config`);
  assert.doesNotMatch(labs, /"nodes"/, "vtysh echoed the agent's data");
  await run('r1', `output file /etc/${TAG}`);
  assert.equal(existsSync(`/etc/${TAG}`), false, 'vtysh created a file in /etc');
  await run('r1', `output file ${CANARY}`);
  assert.equal(readFileSync(CANARY, 'utf8'), 'untouched\n', 'vtysh truncated a file of root');
  // The router itself still works.
  assert.match(await run('r1', 'show version'), /FRRouting \d/);
});

test('300 forks in a host stop at its limit of 256 processes', async () => {
  // Each child is a subshell blocked on a fifo: cheap, and alive until the node stops.
  const output = await run(
    'h2',
    'mkfifo /tmp/f; i=0; while [ $i -lt 300 ]; do ( read x < /tmp/f ) & i=$((i+1)); done; echo forked=$i',
  );
  assert.doesNotMatch(output, /forked=300/, output);
  assert.match(output, /Cannot fork|Resource temporarily unavailable/i, output);
  // Powering off kills them all through the cgroup; the node starts again with none.
  assert.equal((await client.execProject({ ...lab(), action: 'stop', node: 'h2', stopmode: 1 })).stopped, 1);
  assert.equal((await client.execProject({ ...lab(), action: 'start', node: 'h2' })).started, 1);
  assert.match(await run('h2', 'echo processes=$(ls -d /proc/[0-9]* | wc -l)'), /processes=\d\b/);
});

test('a 200 MB allocation in a host with ram: 64 is killed', async () => {
  const output = await run('h2', `perl -e '$x = "x" x (200 * 1024 * 1024); print length($x), "\\n"'; echo exit=$?`);
  assert.doesNotMatch(output, /209715200/, output);
  assert.match(output, /exit=137/, output);
});

test("a process that left its node's network namespace is gone after destroy, and so are the cgroups", async () => {
  // The deny-list refuses unshare inside a node (tested above). Here the state a bypass would
  // reach is made as root: a process in h1's cgroup, in a network namespace of its own.
  const h1 = cgroupRunning(['sleep', BACKGROUND_SECONDS]);
  assert.ok(h1, "h1's cgroup");
  const [file, ...args] = cgroups.joinArgv(h1, ['unshare', '-n', 'sleep', '4322']);
  spawn(file, args, { stdio: 'ignore', detached: true }).unref();
  const pid = await eventually(
    () => Promise.resolve(cgroups.members(h1).find((p) => commandLine(p)?.join(' ') === 'sleep 4322')),
    (found) => found !== undefined,
    'the escaped process',
  );
  const init = sandboxInit(h1, cgroups);
  assert.ok(init !== undefined && pid !== undefined);
  assert.notEqual(readlinkSync(`/proc/${pid}/ns/net`), readlinkSync(`/proc/${init}/ns/net`), 'it left the namespace');
  const destroyed = await client.destroyProject(lab());
  assert.equal(destroyed.status, 'destroyed');
  assert.equal(processAlive(pid), false, 'the process that left the namespace survived destroy');
  assert.deepEqual(await namespacesOf(prefix), []);
  assert.deepEqual(cgroups.list(prefix), []);
});
