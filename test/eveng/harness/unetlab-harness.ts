/**
 * UNetLab's own API code (github.com/dainok/unetlab, the public GPL ancestor
 * of EVE-NG Community) served on 127.0.0.1 as a test peer for the EVE-NG
 * backend. The server's source never enters this repository: UNETLAB_SRC
 * names a git clone of it, and each harness exports `html/` from it into its
 * own temporary directory.
 *
 * The PHP hard-codes /opt/unetlab everywhere (require paths, exec'd commands),
 * so `php -S` runs in a private mount namespace (unshare) where the temporary
 * directory is bind-mounted on /opt: no file of the server is edited to move
 * it, and nothing outside the namespace sees /opt/unetlab. What is not the
 * server's code:
 * - `sudo`, `netstat` and `free` on the PHP's PATH: sudo runs its arguments
 *   (the harness is root already); netstat is `ss`, which the PHP greps for a
 *   node's console port to call it running; free prints the old procps layout
 *   /api/status reads by line number; /opt/qemu/bin/qemu-system-x86_64 only
 *   tells its version;
 * - `/opt/unetlab/wrappers/unl_wrapper`, the node runtime: node-runtime.ts
 *   records each call and opens a telnet console on start;
 * - `includes/config.php` (UNetLab's documented configuration file) and a
 *   router script standing in for Apache's rewrite to api.php, which also
 *   defines `get_magic_quotes_gpc()` (PHP 8 removed it; Slim 2 still calls it);
 * - image folders: one image per template in IMAGES, none for the others;
 * - templates the repository's HEAD ships truncated to their header comment
 *   (commit 8ef5197 cut iol.php, linux.php and three others): the ones in
 *   RESTORED_TEMPLATES are taken from the newest earlier commit where they
 *   parse; the others stay broken, as on a server installed from HEAD.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeCall } from './node-runtime';
import { claimPod, type PodClaim } from './pod-claim';
import { portAnswers } from './port';

export const UNETLAB_SRC_ENV = 'UNETLAB_SRC';
export const UNETLAB_REPOSITORY = 'https://github.com/dainok/unetlab';

/** The images installed, one per template; every other template has an empty image folder. */
export const IMAGES = {
  vios: 'vios-adventerprisek9-m.SPA.159-3.M6',
  viosl2: 'viosl2-adventerprisek9-m.SSA.high_iron_20200929',
  linux: 'linux-debian-12',
  iol: 'i86bi-linux-l3-adventerprisek9-15.4.1T.bin',
  // The second IOL image, as the tests written for the fake name it.
  iolL2: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
};
/** Templates restored by default: the ones the scenario uses. */
const RESTORED_TEMPLATES = ['iol', 'linux'];

export interface HarnessAccount {
  username: string;
  password: string;
  /**
   * The account's pod, as an admin sets it (`pod` of `POST /api/users`): a number, or 'free' for a
   * pod no other harness on this machine holds (pod-claim.ts), so that parallel harnesses never share
   * console ports. Default: none, and the server gives the first free one at the first login (pod 1
   * for the first account).
   */
  pod?: number | 'free';
}

export interface HarnessOptions {
  /** A git clone of dainok/unetlab; default: $UNETLAB_SRC. */
  source?: string;
  /** The commit to serve; default HEAD. */
  ref?: string;
  /** Accounts created with the server's own `INSERT` of `POST /api/users` (role admin). */
  users?: HarnessAccount[];
  /** Truncated templates to restore from history; default RESTORED_TEMPLATES (the others stay broken). */
  restoreTemplates?: string[];
  /** Port for `php -S`; default a free one. */
  port?: number;
  /**
   * Where the server is installed (its labs, database and node runtime state). A directory an
   * earlier harness installed is served again as it stands, as a server restarted on the same disk,
   * and is not removed by close(); a new one is laid out there and removed by close(). Default: a
   * new temporary directory.
   */
  home?: string;
}

export interface UnetlabHarness {
  url: string;
  /** The exported commit. */
  commit: string;
  /** What the PHP asked of the node runtime, in order. */
  runtimeCalls(): RuntimeCall[];
  /** The PHP's own error log (warnings, fatal errors). */
  phpErrors(): string;
  /** The lab files as the server wrote them (`/opt/unetlab/labs`). */
  labsDir: string;
  /**
   * From now on, someone else logs in with `username` right after each login of it (the server keeps
   * one session per user, so every session it gets ends at once): the router runs the server's own
   * `updateUserCookie`, as `apiLogin` does, after each successful `POST /api/auth/login` of the account.
   */
  stealSessionsOf(username: string): void;
  close(): Promise<void>;
}

/** Why the harness cannot run here, or undefined when it can. */
export function harnessUnavailable(source = process.env[UNETLAB_SRC_ENV]): string | undefined {
  if (!source)
    return (
      `${UNETLAB_SRC_ENV} is not set: the UNetLab harness serves the public server source, which is not in this ` +
      `repository. Get it with \`git clone ${UNETLAB_REPOSITORY} /tmp/unetlab-src\` and set ${UNETLAB_SRC_ENV}=/tmp/unetlab-src.`
    );
  if (spawnSync('git', ['-C', source, 'cat-file', '-e', 'HEAD:html/api.php']).status !== 0)
    return `${UNETLAB_SRC_ENV}=${source} is not a git clone of ${UNETLAB_REPOSITORY} (no html/api.php at HEAD).`;
  if (spawnSync('php', ['-m']).status !== 0) return 'php is not installed (apt-get install php-cli php-sqlite3).';
  if (!/pdo_sqlite/.test(spawnSync('php', ['-m']).stdout.toString()))
    return 'PHP has no pdo_sqlite (apt-get install php-sqlite3).';
  if (process.getuid?.() !== 0)
    return 'the harness needs root: it bind-mounts its directory on /opt in a mount namespace.';
  if (spawnSync('unshare', ['--mount', 'true']).status !== 0) return '`unshare --mount` is not permitted here.';
  return undefined;
}

function git(source: string, args: string[]): string {
  const run = spawnSync('git', ['-C', source, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

function parses(file: string): boolean {
  return spawnSync('php', ['-l', file]).status === 0;
}

/** Puts back a template HEAD ships truncated, from the newest commit where it parses. */
function restoreTemplate(source: string, ref: string, opt: string, name: string): void {
  const path = `html/templates/${name}.php`;
  const file = join(opt, 'unetlab', path);
  if (parses(file)) return;
  for (const commit of git(source, ['log', '--format=%H', ref, '--', path]).split('\n').filter(Boolean)) {
    const run = spawnSync('git', ['-C', source, 'show', `${commit}:${path}`]);
    if (run.status !== 0) continue;
    writeFileSync(file, run.stdout);
    if (parses(file)) return;
  }
  throw new Error(`no commit of ${source} has a ${path} that parses`);
}

/** Accounts whose every login someone else follows with one of their own (stealSessionsOf), in the mount namespace. */
const STEAL_FILE = '/opt/unetlab/tmp/harness-steal-sessions';

export const FREE_STUB = String.raw`#!/bin/sh
awk '/^MemTotal/{t=$2} /^MemFree/{f=$2} /^Buffers/{b=$2} /^Cached/{c=$2} /^SwapTotal/{st=$2} /^SwapFree/{sf=$2}
END {
  if (st == 0) { st = 1048576; sf = st }
  print "             total       used       free     shared    buffers     cached"
  printf "Mem: %13d %10d %10d %10d %10d %10d\n", t, t-f, f, 0, b, c
  printf "-/+ buffers/cache: %10d %10d\n", t-f-b-c, f+b+c
  printf "Swap: %12d %10d %10d\n", st, st-sf, sf
}' /proc/meminfo
`;

function lay(dir: string, source: string, ref: string, runtimeScript: string, restore: string[]): void {
  const opt = join(dir, 'opt');
  const base = join(opt, 'unetlab');
  for (const d of [
    'labs',
    'tmp',
    'data/Logs',
    'data/Exports',
    'addons/qemu',
    'addons/iol/bin',
    'addons/dynamips',
    'wrappers',
  ])
    mkdirSync(join(base, d), { recursive: true });
  const archive = spawnSync('git', ['-C', source, 'archive', '--format=tar', ref, 'html'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  if (archive.status !== 0) throw new Error(`git archive ${ref} html: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', base], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  for (const name of restore) restoreTemplate(source, ref, opt, name);
  writeFileSync(
    join(base, 'html/includes/config.php'),
    "<?php\ndefine('TIMEZONE', 'UTC');\ndefine('SESSION', '3600');\n?>\n",
  );
  for (const [template, image] of Object.entries(IMAGES)) {
    if (template.startsWith('iol')) writeFileSync(join(base, 'addons/iol/bin', image), '');
    else mkdirSync(join(base, 'addons/qemu', image), { recursive: true });
  }
  const state = join(dir, 'state');
  mkdirSync(state);
  writeFileSync(
    join(base, 'wrappers/unl_wrapper'),
    `#!/bin/sh\nexec '${process.execPath}' '${runtimeScript}' '${state}' "$@"\n`,
    { mode: 0o755 },
  );
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  writeFileSync(join(bin, 'netstat'), '#!/bin/sh\nexec ss -a -t -n\n', { mode: 0o755 });
  // /api/status reads `free` by line number as procps 3.3.9 (Ubuntu 14.04/16.04) printed it, with the
  // "-/+ buffers/cache" line newer procps dropped (and divides by the swap size: a swapless host
  // shows 1 GiB of free swap), and asks QEMU for its version.
  writeFileSync(join(bin, 'free'), FREE_STUB, { mode: 0o755 });
  mkdirSync(join(opt, 'qemu', 'bin'), { recursive: true });
  writeFileSync(
    join(opt, 'qemu', 'bin', 'qemu-system-x86_64'),
    '#!/bin/sh\necho "QEMU emulator version 2.4.0, Copyright (c) 2003-2008 Fabrice Bellard"\n',
    { mode: 0o755 },
  );
  // Apache's rewrite (html/.htaccess): every /api/ path goes to api.php.
  writeFileSync(
    join(dir, 'router.php'),
    [
      '<?php',
      "if (strpos($_SERVER['REQUEST_URI'], '/api/') !== 0) { http_response_code(404); return true; }",
      "$_SERVER['SCRIPT_NAME'] = '/api.php';",
      // PHP 8 removed get_magic_quotes_gpc(); Slim 2 (html/includes/Slim/Http/Util.php) still calls it.
      "if (!function_exists('get_magic_quotes_gpc')) { function get_magic_quotes_gpc() { return false; } }",
      "chdir('/opt/unetlab/html');",
      "require '/opt/unetlab/html/api.php';",
      // stealSessionsOf: after a login of an account listed in the flag file, another login of the same
      // account (a new cookie through the server's updateUserCookie, as apiLogin sets it) ends its session.
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

/**
 * The password travels in the environment, never on a command line. A pod is set with the INSERT
 * `apiAddUUser` runs for a `pod` field.
 */
function addUser(database: string, user: { username: string; password: string }, pod: number | undefined): void {
  const sql =
    "$db = new PDO('sqlite:' . getenv('DB')); $db->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);" +
    "$s = $db->prepare('INSERT INTO users (username, email, name, password, expiration, role) VALUES (?, ?, ?, ?, -1, ?)');" +
    "$s->execute([getenv('U'), getenv('U') . '@localhost', getenv('U'), hash('sha256', getenv('P')), 'admin']);" +
    "if (getenv('POD') !== '') $db->prepare('INSERT OR REPLACE INTO pods (id, expiration, username) VALUES(?, -1, ?)')->execute([(int) getenv('POD'), getenv('U')]);";
  const run = spawnSync('php', ['-r', sql], {
    env: {
      ...process.env,
      DB: database,
      U: user.username,
      P: user.password,
      POD: pod === undefined ? '' : String(pod),
    },
  });
  if (run.status !== 0) throw new Error(`adding ${user.username}: ${run.stderr.toString()}${run.stdout.toString()}`);
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

export async function startUnetlabHarness(options: HarnessOptions = {}): Promise<UnetlabHarness> {
  const source = options.source ?? process.env[UNETLAB_SRC_ENV];
  const refusal = harnessUnavailable(source);
  if (refusal || !source) throw new Error(`UNetLab harness: ${refusal}`);
  const ref = options.ref ?? 'HEAD';
  const commit = git(source, ['rev-parse', ref]).trim();
  const dir = options.home ?? mkdtempSync(join(tmpdir(), 'unetlab-harness-'));
  // A home an earlier harness laid out is served as it stands (and left in place by close()).
  const reused = options.home !== undefined && existsSync(join(dir, 'router.php'));
  const claims: PodClaim[] = [];
  let php: ChildProcess | undefined;
  const stopConsoles = () => {
    const pids = join(dir, 'state', 'consoles');
    if (!existsSync(pids)) return;
    for (const f of readdirSync(pids)) {
      try {
        process.kill(Number(readFileSync(join(pids, f), 'utf8')), 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  };
  const close = async () => {
    if (php?.pid !== undefined && php.exitCode === null) {
      const exited = new Promise((r) => php?.once('exit', r));
      process.kill(-php.pid, 'SIGTERM');
      await exited;
    }
    stopConsoles();
    await Promise.all(claims.map((c) => c.release()));
    if (!reused) rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (!reused) {
      mkdirSync(dir, { recursive: true });
      lay(dir, source, ref, join(__dirname, 'node-runtime.js'), options.restoreTemplates ?? RESTORED_TEMPLATES);
    }
    const port = options.port ?? (await freePort());
    php = spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount --bind "$1" /opt && shift && exec "$@"',
        'sh',
        join(dir, 'opt'),
        'php',
        '-d',
        'display_errors=0',
        // Slim 2 (Slim.php `handleErrors`) turns every reported diagnostic into a 500. PHP 7 made
        // "Only variables should be passed by reference" (which the Lab constructor triggers) an
        // E_NOTICE, where PHP 5, which UNetLab ran on, reported it as E_STRICT: notices are left out
        // as PHP 5's production error_reporting left E_STRICT out.
        '-d',
        `error_reporting=${32767 & ~8 & ~8192 & ~2048}`,
        '-d',
        'log_errors=1',
        '-d',
        `error_log=${join(dir, 'php-errors.log')}`,
        '-S',
        `127.0.0.1:${port}`,
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
    let up = false;
    for (let i = 0; i < 100 && !up && php.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 50));
      up = await portAnswers(port);
    }
    if (!up) throw new Error(`php -S did not start: ${stderr}`);
    const url = `http://127.0.0.1:${port}`;
    // The first request creates the database (functions.php `updateDatabase`); then the accounts are
    // added with the INSERT of api_uusers.php `apiAddUUser`, which itself dies on PHP 8 (a
    // temporary passed by reference to PDOStatement::bindParam).
    await call(url, 'GET', '/api/auth');
    for (const user of reused ? [] : (options.users ?? [])) {
      let pod = user.pod === 'free' ? undefined : user.pod;
      if (user.pod === 'free') {
        const claim = await claimPod();
        claims.push(claim);
        pod = claim.pod;
      }
      addUser(join(dir, 'opt', 'unetlab', 'data', 'database.sdb'), user, pod);
    }
    return {
      url,
      commit,
      labsDir: join(dir, 'opt', 'unetlab', 'labs'),
      runtimeCalls() {
        const file = join(dir, 'state', 'calls.jsonl');
        if (!existsSync(file)) return [];
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as RuntimeCall);
      },
      phpErrors() {
        const file = join(dir, 'php-errors.log');
        return existsSync(file) ? readFileSync(file, 'utf8') : '';
      },
      stealSessionsOf(username: string) {
        appendFileSync(join(dir, 'opt', 'unetlab', 'tmp', 'harness-steal-sessions'), `${username}\n`);
      },
      close,
    };
  } catch (err) {
    const log = join(dir, 'php-errors.log');
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '';
    await close();
    throw new Error(`${err instanceof Error ? err.message : String(err)}${tail ? `\nPHP error log:\n${tail}` : ''}`, {
      cause: err,
    });
  }
}
