// What both end-to-end runners (run.mjs with code-server, electron.mjs with desktop VS Code)
// share: the run folder layout, the reference agent, children in their own process groups,
// and the closing count of the suite's results.
import { spawn } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const suitePath = join(root, 'out', 'test', 'e2e', 'suite', 'index.js');
export const vsix = join(root, 'dist', 'lab-agent.vsix');
/** The reference agent's default user. */
export const AGENT_USER = 'lab';
/** Not the demo password: the Linux emulator agent refuses to start with it. */
export const AGENT_PASSWORD = 'lab-e2e-password';

/** Creates test/e2e/.run/<timestamp><suffix>/ with a copy of samples/ as the workspace. */
export function createRunDir(suffix = '') {
  const run = join(root, 'test', 'e2e', '.run', new Date().toISOString().replace(/[:.]/g, '-') + suffix);
  const dirs = {
    run,
    home: join(run, 'home'),
    tmp: join(run, 'tmp'),
    userData: join(run, 'user-data'),
    extensions: join(run, 'extensions'),
    workspace: join(run, 'workspace'),
    agent: join(run, 'agent'),
    channel: join(run, 'channel'),
    screenshots: join(run, 'screenshots'),
    results: join(run, 'results.jsonl'),
  };
  for (const [key, dir] of Object.entries(dirs)) if (key !== 'results') mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'samples'), dirs.workspace, { recursive: true });
  return dirs;
}

/** The environment for everything a run starts: HOME, XDG_* and TMPDIR inside the run folder. */
export function sandboxEnv(dirs) {
  const runtime = join(dirs.run, 'runtime');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return {
    ...process.env,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
    XDG_RUNTIME_DIR: runtime,
  };
}

/** The installed copy of the extension: `<publisher>.<name>-<version>` in the extensions folder. */
export function installedExtensionPath(extensionsDir) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const path = join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  if (!existsSync(join(path, 'package.json'))) throw new Error(`the VSIX did not install to ${path}`);
  return path;
}

/** Children started in a process group of their own; stopGroups() ends them, grandchildren included. */
const groups = new Set();

export function spawnGroup(command, args, { env, logFile, stdio = 'pipe' }) {
  const child = spawn(command, args, {
    cwd: root,
    env,
    detached: true,
    stdio: stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : stdio,
  });
  groups.add(child);
  child.on('exit', () => groups.delete(child));
  if (logFile) {
    const out = createWriteStream(logFile);
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  return child;
}

/** Runs a command to its end in its own group (so a timeout can stop it too). */
export function runToEnd(command, args, what, options) {
  const child = spawnGroup(command, args, options);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed with exit code ${code}`))));
  });
}

export async function stopGroups() {
  const alive = [...groups];
  for (const child of alive) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + 3000;
  while (groups.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const child of alive) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Resolves with the first capture of each pattern in the child's stdout lines. */
export function waitForLines(child, patterns, what, ms = 30_000) {
  return new Promise((resolve, reject) => {
    const found = {};
    const missing = () =>
      Object.keys(patterns)
        .filter((key) => !(key in found))
        .join(', ');
    const timer = setTimeout(() => reject(new Error(`${what}: no ${missing()} within ${ms} ms`)), ms);
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      for (const [key, pattern] of Object.entries(patterns)) {
        const m = pattern.exec(line);
        if (m && !(key in found)) found[key] = m[1];
      }
      if (missing() === '') {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
}

/**
 * Starts dist/agent.js on a loopback port (`port`, else a free one) with its data in the run
 * folder; the same folder again keeps its certificate and labs (a restart), not its sessions.
 * With `emulator: 'linux'`: real namespaces and FRR (data in <run>/agent-linux, log
 * agent-linux.log); `problem` then says why the Linux emulator cannot run on this machine.
 */
export async function startAgent(dirs, env, port = 0, { emulator = 'simulated' } = {}) {
  const linux = emulator === 'linux';
  const child = spawnGroup(
    process.execPath,
    [
      join(root, 'dist', 'agent.js'),
      '--port',
      String(port),
      '--data-dir',
      linux ? `${dirs.agent}-linux` : dirs.agent,
      '--boot-ms',
      '2500',
      // The walk's labs go with its agent (by default they outlive it).
      ...(linux ? ['--emulator', 'linux', '--stop-labs-on-exit'] : []),
    ],
    {
      // The agents' one user, from the environment (passwords never go on a command line).
      env: { ...env, LAB_AGENT_USER: AGENT_USER, LAB_AGENT_PASSWORD: AGENT_PASSWORD },
      logFile: join(dirs.run, `agent${linux ? '-linux' : ''}${port === 0 ? '' : `-${Date.now()}`}.log`),
    },
  );
  const {
    url,
    fingerprint,
    emulator: shown,
  } = await waitForLines(
    child,
    {
      url: /Lab Agent reference agent listening on (https:\/\/127\.0\.0\.1:\d+)/,
      fingerprint: /Certificate SHA-256 fingerprint: ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})/i,
      emulator: /^Emulator: (.*)$/,
    },
    'the reference agent',
  );
  const problem = /cannot run here: (.*)/.exec(shown)?.[1];
  return { url, fingerprint, child, ...(problem ? { problem } : {}) };
}

/**
 * Stops one child started by spawnGroup (its whole group) and waits for it to exit: SIGTERM, then
 * SIGKILL after `graceMs` (a Linux emulator agent needs longer: it removes its namespaces then).
 */
export async function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** What the suite reads from its environment (test/e2e/suite/). */
export function suiteEnv(dirs, agent, { channel, linkUrl, linuxAgent, grep }) {
  return {
    LAB_AGENT_E2E_URL: agent.url,
    ...(linkUrl ? { LAB_AGENT_E2E_LINK_URL: linkUrl } : {}),
    LAB_AGENT_E2E_FINGERPRINT: agent.fingerprint,
    ...(linuxAgent
      ? linuxAgent.problem
        ? { LAB_AGENT_E2E_LINUX_PROBLEM: linuxAgent.problem }
        : { LAB_AGENT_E2E_LINUX_URL: linuxAgent.url, LAB_AGENT_E2E_LINUX_FINGERPRINT: linuxAgent.fingerprint }
      : {}),
    LAB_AGENT_E2E_USER: AGENT_USER,
    LAB_AGENT_E2E_PASSWORD: AGENT_PASSWORD,
    LAB_AGENT_E2E_RESULTS: dirs.results,
    ...(channel ? { LAB_AGENT_E2E_CHANNEL: dirs.channel } : {}),
    ...(grep ? { LAB_AGENT_E2E_GREP: grep } : {}),
  };
}

/** Counts the suite's results.jsonl (one line per passed or failed test). */
export function countResults(dirs) {
  const lines = existsSync(dirs.results) ? readFileSync(dirs.results, 'utf8').split('\n').filter(Boolean) : [];
  const states = lines.map((line) => JSON.parse(line).state);
  return { passed: states.filter((s) => s === 'passed').length, failed: states.filter((s) => s === 'failed').length };
}

/**
 * A TCP link on 127.0.0.1 between the extension and the agent, which the suite can cut and
 * restore: the agent keeps running (and its sessions with it) while nothing answers at the
 * address the extension uses, as when the agent's host drops off the network.
 */
export async function startLink(targetPort) {
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(server.address().port);
      });
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      await new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    async restore() {
      await listen(port);
    },
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
