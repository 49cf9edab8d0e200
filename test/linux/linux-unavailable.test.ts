/**
 * An agent that cannot run the Linux emulator (here: started without root's
 * capabilities) says exactly that and what to do, starts nothing in the
 * kernel, and reports emuReachable false with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AgentClient } from '../../common/api/client';
import { failsWith, TEST_USER } from '../support/agent';
import { eventually, requireLinuxLabs } from './support';

const AGENT = join(__dirname, '..', '..', '..', 'dist', 'agent.js');
const NOBODY = '65534';
/** The Linux emulator refuses the demo password; the user comes from the environment, as it should. */
const LINUX_USER = { username: TEST_USER.username, password: 'linux-unavailable-test-password' };

test('without root, --emulator linux says what is missing and capabilities report the emulator unreachable', async () => {
  await requireLinuxLabs(); // root is needed to drop to another user
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-agent-linux-noroot-'));
  chownSync(dataDir, Number(NOBODY), Number(NOBODY)); // its own data directory, which it keeps 0700
  const child = spawn(
    'setpriv',
    [
      '--reuid',
      NOBODY,
      '--regid',
      NOBODY,
      '--clear-groups',
      process.execPath,
      AGENT,
      '--emulator',
      'linux',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LAB_AGENT_USER: LINUX_USER.username, LAB_AGENT_PASSWORD: LINUX_USER.password },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    let url = '';
    let pin = '';
    let emulator = '';
    for await (const line of createInterface({ input: child.stdout })) {
      url ||= /listening on (\S+)/.exec(line)?.[1] ?? '';
      pin ||= /fingerprint: (\S+)/.exec(line)?.[1] ?? '';
      emulator ||= /^Emulator: (.*)$/.exec(line)?.[1] ?? '';
      if (url && pin && emulator) break;
    }
    assert.match(emulator, /^linux: cannot run here: .*CAP_NET_ADMIN.*run it as root/);
    await eventually(
      () => Promise.resolve(stderr),
      (text) => /the linux emulator cannot run on this machine/.test(text),
      'the warning on stderr',
      5_000,
    );
    const client = new AgentClient({ baseUrl: url, pin });
    try {
      await client.login(LINUX_USER);
      const caps = await client.getCapabilities();
      assert.equal(caps.emuReachable, false);
      assert.match(caps.emuProblem ?? '', /CAP_NET_ADMIN/);
      const refused = await failsWith(client.listTemplates({}), 'emu_unreachable');
      assert.match(refused.message, /run it as root/);
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
