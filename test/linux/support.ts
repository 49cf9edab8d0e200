/**
 * Helpers for the Linux emulator tests: the sample OSPF lab as a payload,
 * the machine check that fails loudly when the tests cannot run, and counts
 * of what an agent left in the kernel (namespaces, FRR processes).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { listNamespaces, processAlive, commandLine } from '../../agent/emulator/linux/kernel';
import { openConsole, type AgentClient } from '../../common/api/client';
import type { ProjectPayload } from '../../common/api/contract';
import { attachTelnet } from '../../common/telnet';
import { probeLinuxHost } from '../../agent/emulator/linux/system';
import { TEST_USER } from '../support/agent';

const SAMPLE_DIR = join(__dirname, '..', '..', '..', 'samples', 'ospf');

/** The sample lab's document and its config files, as the extension sends them. */
export function ospfSample(): { yaml: string; files: Record<string, string> } {
  const files: Record<string, string> = {};
  for (const name of readdirSync(join(SAMPLE_DIR, 'configs')))
    files[`configs/${name}`] = readFileSync(join(SAMPLE_DIR, 'configs', name), 'utf8');
  return { yaml: readFileSync(join(SAMPLE_DIR, 'ospf.lab.yaml'), 'utf8'), files };
}

/** Throws (so every test fails, in CI and elsewhere) with what is missing when these tests cannot run here. */
export async function requireLinuxLabs(): Promise<void> {
  const host = await probeLinuxHost();
  if (host.problems.length)
    throw new Error(
      `The Linux emulator tests cannot run on this machine${process.env.CI ? ' (CI)' : ''}: ${host.problems.join('; ')}. ` +
        'They need root and `apt-get install -y frr frr-pythontools iputils-ping bubblewrap tshark` (.ci/run installs them).',
    );
}

/** The agent id of a data directory (its kernel names start with lab-<id>-). */
export function prefixOf(dataDir: string): string {
  return `lab-${readFileSync(join(dataDir, 'linux-agent-id'), 'utf8').trim()}-`;
}

export async function namespacesOf(prefix: string): Promise<string[]> {
  return (await listNamespaces()).filter((ns) => ns.startsWith(prefix));
}

/** Live (non-zombie) FRR daemons and vtysh/shell processes whose path space or namespace carries the prefix. */
export function processesOf(prefix: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter(
      (pid) =>
        pid !== process.pid && processAlive(pid) && (commandLine(pid) ?? []).some((arg) => arg.startsWith(prefix)),
    );
}

/**
 * Polls `probe` until `done` holds, at most `limitMs`; fails with the last value otherwise,
 * and with what `explain` reads of the lab then (a failure seen once in CI must say why).
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  limitMs = 30_000,
  explain?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  let value = await probe();
  while (!done(value)) {
    if (Date.now() > deadline)
      assert.fail(
        `timed out after ${limitMs / 1000} s waiting for ${what}; last: ${JSON.stringify(value).slice(0, 2000)}` +
          (explain ? `\n${await explain().catch((e: unknown) => `(reading the lab failed: ${String(e)})`)}` : ''),
      );
    await sleep(250);
    value = await probe();
  }
  return value;
}

/** Types lines on a router's console as a user would (vtysh), each after the prompt of the one before. */
export async function typeOnConsole(
  client: AgentClient,
  payload: ProjectPayload,
  node: string,
  lines: readonly string[],
): Promise<void> {
  const { socket } = await openConsole(client, { ...payload, node });
  let output = '';
  const telnet = attachTelnet(socket, { onText: (t) => (output += t), onClose: () => undefined });
  const prompt = new RegExp(`${node}(\\([\\w-]+\\))?# ?$`);
  try {
    for (const line of ['', ...lines]) {
      output = '';
      telnet.send(`${line}\n`);
      await eventually(
        () => Promise.resolve(output),
        (o) => prompt.test(o),
        `the prompt after "${line}"`,
        10_000,
      );
    }
  } finally {
    telnet.close();
  }
}

const AGENT_BUNDLE = join(__dirname, '..', '..', '..', 'dist', 'agent.js');
export const KILL_USER = { username: TEST_USER.username, password: 'capture-kill-test-password' };

/** The built agent in its own process with the Linux emulator (which refuses the demo account). */
export async function spawnLinuxAgent(dataDir: string, args: string[] = []) {
  const child = spawn(
    process.execPath,
    [AGENT_BUNDLE, '--emulator', 'linux', '--port', '0', '--data-dir', dataDir, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LAB_AGENT_USER: KILL_USER.username, LAB_AGENT_PASSWORD: KILL_USER.password },
    },
  );
  let said = '';
  child.stderr.on('data', (c: Buffer) => (said += c.toString()));
  let url = '';
  let pin = '';
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => (said += `${line}\n`));
  for await (const line of lines) {
    url ||= /listening on (\S+)/.exec(line)?.[1] ?? '';
    pin ||= /fingerprint: (\S+)/.exec(line)?.[1] ?? '';
    if (url && pin) break;
  }
  assert.ok(url && pin, 'the agent printed its URL and fingerprint');
  // What it says from here on (its log) explains a failure.
  child.stdout.on('data', (c: Buffer) => (said += c.toString()));
  return { child, url, pin, said: () => said };
}
