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
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { layServerCode, serveHome, type HarnessAccount, type ServedHarness } from './harness-home';
import { call, freePort, layHostCommands, startPhpServer, writeRouter } from './php-server';
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
/** Console ports per pod: 32768 + 128 × pod + node id (`Node::__construct`). */
const PORTS_PER_POD = 128;
/** Templates restored by default: the ones the scenario uses. */
const RESTORED_TEMPLATES = ['iol', 'linux'];

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
   * earlier harness installed is served again as it stands, as a server restarted on the same disk
   * (after the earlier harness's close()); close() never removes a home given here. Default: a
   * new temporary directory.
   */
  home?: string;
}

/** The server the harness serves (harness-home.ts). */
export type UnetlabHarness = ServedHarness;

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

function lay(dir: string, source: string, ref: string, runtimeScript: string, restore: string[]): void {
  const opt = join(dir, 'opt');
  const base = layServerCode(dir, source, ref, IMAGES);
  for (const name of restore) restoreTemplate(source, ref, opt, name);
  writeFileSync(
    join(base, 'html/includes/config.php'),
    "<?php\ndefine('TIMEZONE', 'UTC');\ndefine('SESSION', '3600');\n?>\n",
  );
  const state = join(dir, 'state');
  mkdirSync(state);
  writeFileSync(
    join(base, 'wrappers/unl_wrapper'),
    `#!/bin/sh\nexec '${process.execPath}' '${runtimeScript}' '${state}' "$@"\n`,
    { mode: 0o755 },
  );
  layHostCommands(dir, {
    netstat: 'ss -a -t -n',
    qemuVersion: 'QEMU emulator version 2.4.0, Copyright (c) 2003-2008 Fabrice Bellard',
  });
  writeRouter(dir);
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

export async function startUnetlabHarness(options: HarnessOptions = {}): Promise<UnetlabHarness> {
  const source = options.source ?? process.env[UNETLAB_SRC_ENV];
  const refusal = harnessUnavailable(source);
  if (refusal || !source) throw new Error(`UNetLab harness: ${refusal}`);
  const ref = options.ref ?? 'HEAD';
  const users = options.users ?? [];
  return serveHome({
    home: options.home,
    tempPrefix: 'unetlab-harness-',
    commit: git(source, ['rev-parse', ref]).trim(),
    users,
    portsPerPod: PORTS_PER_POD,
    lay: (dir) =>
      lay(dir, source, ref, join(__dirname, 'node-runtime.js'), options.restoreTemplates ?? RESTORED_TEMPLATES),
    serve: async (dir) => {
      const port = options.port ?? (await freePort());
      const php = await startPhpServer({ dir, listen: `127.0.0.1:${port}`, answers: () => portAnswers(port) });
      return { php, url: `http://127.0.0.1:${port}` };
    },
    // The first request creates the database (functions.php `updateDatabase`); then the accounts are
    // added with the INSERT of api_uusers.php `apiAddUUser`, which itself dies on PHP 8 (a
    // temporary passed by reference to PDOStatement::bindParam).
    ready: async (url, dir, pods, reused) => {
      await call(url, 'GET', '/api/auth');
      for (const user of reused ? [] : users)
        addUser(join(dir, 'opt', 'unetlab', 'data', 'database.sdb'), user, pods.get(user.username));
    },
  });
}
