/**
 * What the UNetLab and the EVE-NG Community harnesses share: the server's
 * code served by `php -S` in namespaces of its own (a mount namespace in which
 * the harness's directory is bind-mounted on /opt, since the PHP hard-codes
 * /opt/unetlab; EVE-NG's adds a network namespace), the router standing in for
 * Apache's rewrite to api.php, the host commands on the PHP's PATH, and
 * reading back what the node runtime and the PHP logged. The server's own
 * code is never edited: the harness directory holds it as `git archive` gave it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RuntimeCall } from './node-runtime';

/** Accounts whose every login someone else follows with one of their own (stealSessionsOf), in the mount namespace. */
const STEAL_FILE = '/opt/unetlab/tmp/harness-steal-sessions';

/**
 * /api/status reads `free` by line number as procps 3.3.9 (Ubuntu 14.04/16.04) printed it, with the
 * "-/+ buffers/cache" line newer procps dropped, and divides by the swap size: a swapless host shows
 * 1 GiB of free swap.
 */
const FREE_STUB = String.raw`#!/bin/sh
awk '/^MemTotal/{t=$2} /^MemFree/{f=$2} /^Buffers/{b=$2} /^Cached/{c=$2} /^SwapTotal/{st=$2} /^SwapFree/{sf=$2}
END {
  if (st == 0) { st = 1048576; sf = st }
  print "             total       used       free     shared    buffers     cached"
  printf "Mem: %13d %10d %10d %10d %10d %10d\n", t, t-f, f, 0, b, c
  printf "-/+ buffers/cache: %10d %10d\n", t-f-b-c, f+b+c
  printf "Swap: %12d %10d %10d\n", st, st-sf, sf
}' /proc/meminfo
`;

export interface HostCommands {
  /** The command `netstat` runs (the PHP greps it for a node's console port). */
  netstat: string;
  /** What the stub `qemu-system-x86_64 -version` prints. */
  qemuVersion: string;
  /** Extra stubs by name (e.g. EVE-NG's `systemctl`), as shell script bodies. */
  extra?: Record<string, string>;
}

/**
 * The harness's `bin/` (first on the PHP's PATH) and /opt/qemu: `sudo` runs its arguments (the
 * harness is root already), `netstat`, `free`, QEMU's version and `extra`.
 */
export function layHostCommands(dir: string, commands: HostCommands): void {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const scripts: Record<string, string> = {
    sudo: 'exec "$@"',
    netstat: `exec ${commands.netstat}`,
    ...commands.extra,
  };
  for (const [name, body] of Object.entries(scripts))
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  writeFileSync(join(bin, 'free'), FREE_STUB, { mode: 0o755 });
  mkdirSync(join(dir, 'opt', 'qemu', 'bin'), { recursive: true });
  writeFileSync(
    join(dir, 'opt', 'qemu', 'bin', 'qemu-system-x86_64'),
    `#!/bin/sh\necho ${JSON.stringify(commands.qemuVersion)}\n`,
    { mode: 0o755 },
  );
}

/**
 * Apache's rewrite (html/.htaccess: every /api/ path goes to api.php), PHP 8's missing
 * get_magic_quotes_gpc() (Slim 2, html/includes/Slim/Http/Util.php, still calls it), and
 * stealSessionsOf: after a login of an account listed in STEAL_FILE, another login of the same
 * account (a new cookie through the server's own updateUserCookie, as apiLogin sets it) ends its session.
 */
export function writeRouter(dir: string): void {
  writeFileSync(
    join(dir, 'router.php'),
    [
      '<?php',
      "if (strpos($_SERVER['REQUEST_URI'], '/api/') !== 0) { http_response_code(404); return true; }",
      "$_SERVER['SCRIPT_NAME'] = '/api.php';",
      "if (!function_exists('get_magic_quotes_gpc')) { function get_magic_quotes_gpc() { return false; } }",
      "chdir('/opt/unetlab/html');",
      "require '/opt/unetlab/html/api.php';",
      `$steal = '${STEAL_FILE}';`,
      "if ($_SERVER['REQUEST_METHOD'] === 'POST' && $_SERVER['REQUEST_URI'] === '/api/auth/login' && http_response_code() === 200 && is_file($steal)) {",
      "  $who = json_decode(file_get_contents('php://input'), true)['username'] ?? '';",
      '  if (in_array($who, file($steal, FILE_IGNORE_NEW_LINES), true)) updateUserCookie($db, $who, genUuid());',
      '}',
      'return true;',
      '',
    ].join('\n'),
  );
}

export interface PhpServerOptions {
  /** The harness directory: `opt/` (mounted on /opt), `bin/`, `router.php`, `state/`, the PHP's error log. */
  dir: string;
  /** Namespaces besides the mount namespace (EVE-NG: `--net`). */
  unshare?: string[];
  /** Shell lines run in the namespaces after /opt is mounted, before `php -S` (bridges, `ip link`). */
  setup?: string[];
  /** Where `php -S` listens, as seen inside the namespaces. */
  listen: string;
  /** More `-d` settings. */
  ini?: Record<string, string>;
  /** Whether the server answers yet (called until it does, or php exits, for 5 s). */
  answers(): Promise<boolean>;
}

export interface PhpServer {
  runtimeCalls(): RuntimeCall[];
  phpErrors(): string;
  stealSessionsOf(username: string): void;
  /** Stops php (its whole process group, bridges included) and the consoles the node runtime opened. */
  stop(): Promise<void>;
}

/** `php -S` on the harness directory's copy of the server, in a private mount namespace, up and answering. */
export async function startPhpServer(options: PhpServerOptions): Promise<PhpServer> {
  const { dir } = options;
  const errorLog = join(dir, 'php-errors.log');
  const ini: Record<string, string> = {
    display_errors: '0',
    // Slim 2 (Slim.php `handleErrors`) turns every reported diagnostic into a 500. PHP 7 made "Only
    // variables should be passed by reference" (which UNetLab's Lab constructor triggers) an E_NOTICE,
    // where PHP 5 reported it as E_STRICT; PHP 8 reports as notices and deprecations what the PHP 7
    // EVE-NG ran on left out: notices, deprecations and E_STRICT are left out, as production
    // error_reporting left them.
    error_reporting: String(32767 & ~8 & ~8192 & ~2048),
    log_errors: '1',
    error_log: errorLog,
    ...options.ini,
  };
  const inner = ['mount --bind "$0" /opt || exit 1', ...(options.setup ?? []), 'exec "$@"'].join('\n');
  const php = spawn(
    'unshare',
    [
      '--mount',
      ...(options.unshare ?? []),
      '--propagation',
      'private',
      'sh',
      '-c',
      inner,
      join(dir, 'opt'),
      'php',
      ...Object.entries(ini).flatMap(([k, v]) => ['-d', `${k}=${v}`]),
      '-S',
      options.listen,
      '-t',
      '/opt/unetlab/html',
      join(dir, 'router.php'),
    ],
    {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        PATH: `${join(dir, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        PHP_CLI_SERVER_WORKERS: '4',
      },
    },
  );
  let stderr = '';
  php.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const server: PhpServer = {
    runtimeCalls() {
      const file = join(dir, 'state', 'calls.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RuntimeCall);
    },
    phpErrors: () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''),
    stealSessionsOf(username: string) {
      appendFileSync(join(dir, 'opt', 'unetlab', 'tmp', 'harness-steal-sessions'), `${username}\n`);
    },
    stop: () => stopPhp(php, dir),
  };
  let up = false;
  for (let i = 0; i < 100 && !up && php.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
    up = await options.answers();
  }
  if (!up) {
    await server.stop();
    throw new Error(`php -S did not start: ${stderr}`);
  }
  return server;
}

async function stopPhp(php: ChildProcess, dir: string): Promise<void> {
  if (php.pid !== undefined && php.exitCode === null && php.signalCode === null) {
    const exited = new Promise((r) => php.once('exit', r));
    process.kill(-php.pid, 'SIGTERM');
    await exited;
  }
  const pids = join(dir, 'state', 'consoles');
  if (!existsSync(pids)) return;
  for (const f of readdirSync(pids)) {
    try {
      process.kill(Number(readFileSync(join(pids, f), 'utf8')), 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  cookie?: string,
): Promise<{ status: number; json: any; cookie?: string }> {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const set = res.headers.get('set-cookie')?.split(';')[0];
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // Keep the text: the caller reports it.
  }
  return { status: res.status, json, ...(set ? { cookie: set } : {}) };
}
