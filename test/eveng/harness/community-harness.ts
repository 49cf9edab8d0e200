/**
 * EVE-NG Community 6.2.0-4's own API code served on 127.0.0.1 as a test peer
 * for the EVE-NG backend, beside the UNetLab harness (unetlab-harness.ts).
 * The server's source never enters this repository: EVENG_SRC names a git
 * clone of github.com/laaaaiiit/eve-ktk, whose first commit (COMMUNITY_COMMIT,
 * "eve-ng", 2025-11-17; html/themes/adminLTE/VERSION says 6.2.0-4) is a copy
 * of an installed Community server's /opt/unetlab. Later commits of that
 * repository are someone's rewrite and are never served. That first commit
 * already carries its publisher's own changes (files marked "copyright fork
 * 2025", Russian comments: private lab copies, per-user clouds, Guacamole
 * sessions); test/eveng/README.md says what that means for what it shows.
 *
 * What differs from the UNetLab harness:
 * - EVE-NG keeps users, pods and sessions in MariaDB (functions.php
 *   `checkDatabase`: `mysql:host=localhost;dbname=eve_ng_db`, user eve-ng) and
 *   Guacamole's tables in a second database (`html5_checkDatabase`:
 *   `mysql:host=127.0.0.1;dbname=guacdb`, TCP port 3306). Each harness runs its
 *   own mariadbd (datadir and unix socket in its temporary directory, no TCP),
 *   creates the schema in SCHEMA (derived from the PHP's queries: EVE-NG's
 *   `updateDatabase` would create `users` with a TEXT primary key, which
 *   MariaDB refuses) and always stops it.
 * - Port 3306 is not the harness's to take, so `php -S` runs in a network
 *   namespace of its own (as well as the mount namespace that puts the
 *   harness's directory on /opt): inside it, socket-bridge.js joins
 *   127.0.0.1:3306 to mariadbd's unix socket, and the PHP server on
 *   127.0.0.1:80 to a unix socket, which one more bridge, in the machine's
 *   network namespace, serves as 127.0.0.1:PORT.
 *   The node runtime (node-runtime.js, through `unl_wrapper`) and `netstat`
 *   run in the machine's network namespace (nsenter), so consoles are on the
 *   machine's loopback where the agent connects, as with the UNetLab harness.
 * - Templates: 6.2 reads them from html/templates/intel/*.yml, a git submodule
 *   the repository does not publish. The harness builds that folder from the
 *   same commit's html/templates_legacy/*.yml (the same options, no
 *   `description`), giving each the description `<name> (legacy template)`,
 *   since init.php lists only templates with a description, and the
 *   `config_script` of CONFIG_SCRIPTS; html/images/icons, another unpublished
 *   submodule, gets an empty file per icon the templates name.
 * - Host commands on the PHP's PATH, as in the UNetLab harness (`sudo`, `netstat`, `free`,
 *   qemu's version), and `systemctl`, which /api/status asks about ksmtuned and cpulimit.
 * - `includes/config.php` (the server's configuration file) sets
 *   TEMPLATE_DISABLED to `.missing`; the copy's own config.php hides
 *   templates without images (`.hided`), the other documented mode.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { layServerCode, serveHome, type HarnessAccount, type ServedHarness } from './harness-home';
import { call, freePort, layHostCommands, startPhpServer, waitGone, writeRouter, type PhpServer } from './php-server';

export const EVENG_SRC_ENV = 'EVENG_SRC';
export const EVENG_REPOSITORY = 'https://github.com/laaaaiiit/eve-ktk';
/** The first commit of laaaaiiit/eve-ktk: an installed Community 6.2.0-4 server's files. */
export const COMMUNITY_COMMIT = 'e1c8ef0d7ca189d63db279ce08d2fcc4dde08735';
const COMMUNITY_VERSION = '6.2.0-4';
/** Console ports per pod: 32768 + 256 × pod + node id (EVE-NG 6.2's `Node::__construct`). */
const PORTS_PER_POD = 256;

/** The images installed: a qemu folder `<template>-…` or an IOL `.bin` (init.php's test for "provisioned"). */
export const COMMUNITY_IMAGES = {
  vios: 'vios-adventerprisek9-m.SPA.159-3.M6',
  viosl2: 'viosl2-adventerprisek9-m.SSA.high_iron_20200929',
  linux: 'linux-debian-12',
  vmx: 'vmx-14.1R1.10',
  iol: 'i86bi-linux-l3-adventerprisek9-15.4.1T.bin',
  iolL2: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
};

/**
 * The tables EVE-NG's PHP reads and writes, from its queries: users, pods
 * (functions.php `configureUserPod`, `getUserByCookie`, `updateUserCookie`,
 * `updatePodLab`; api_uusers.php), html5 (`updateUserToken`), user_clouds
 * (api_clouds.php, `listNetworkTypes`) in eve_ng_db; Guacamole's tables the
 * login and console code write (api_authentication.php `apiLogin`,
 * functions.php `html5AddSession`, `giveUserPermission`, `addHtml5Perm`) in
 * guacdb, with the keys its `ON DUPLICATE KEY`/`REPLACE` statements rely on.
 */
const SCHEMA = `
CREATE DATABASE eve_ng_db;
CREATE DATABASE guacdb;
CREATE USER 'eve-ng'@'localhost' IDENTIFIED BY 'eve-ng';
CREATE USER 'guacuser'@'localhost' IDENTIFIED BY 'eve-ng';
GRANT ALL ON eve_ng_db.* TO 'eve-ng'@'localhost';
GRANT ALL ON guacdb.* TO 'guacuser'@'localhost';
USE eve_ng_db;
CREATE TABLE users (username VARCHAR(255) PRIMARY KEY, cookie VARCHAR(255), email TEXT, expiration INTEGER DEFAULT -1,
  name TEXT, password TEXT, session INTEGER, ip TEXT, role TEXT, folder TEXT, html5 INTEGER DEFAULT 0);
CREATE TABLE pods (id INTEGER PRIMARY KEY, expiration INTEGER DEFAULT -1, username VARCHAR(255), lab_id TEXT,
  INDEX username_pods (username));
CREATE TABLE html5 (username VARCHAR(255), pod INTEGER PRIMARY KEY, token TEXT);
CREATE TABLE user_clouds (id INTEGER AUTO_INCREMENT PRIMARY KEY, cloudname TEXT, username TEXT, pnet TEXT);
INSERT INTO users (email, name, username, password, role) VALUES ('root@localhost', 'UNetLab Administrator', 'admin', SHA2('eve', 256), 'admin');
INSERT INTO pods (id, expiration, username) VALUES (0, -1, 'admin');
USE guacdb;
CREATE TABLE guacamole_entity (entity_id INTEGER PRIMARY KEY, name VARCHAR(128), type VARCHAR(16));
CREATE TABLE guacamole_user (user_id INTEGER PRIMARY KEY, entity_id INTEGER, password_hash BINARY(32), password_date DATETIME);
CREATE TABLE guacamole_user_permission (entity_id INTEGER, affected_user_id INTEGER, permission VARCHAR(32),
  PRIMARY KEY (entity_id, affected_user_id, permission));
CREATE TABLE guacamole_system_permission (entity_id INTEGER, permission VARCHAR(32), PRIMARY KEY (entity_id, permission));
CREATE TABLE guacamole_connection (connection_id INTEGER PRIMARY KEY, connection_name VARCHAR(255), protocol VARCHAR(32));
CREATE TABLE guacamole_connection_parameter (connection_id INTEGER, parameter_name VARCHAR(128), parameter_value TEXT,
  PRIMARY KEY (connection_id, parameter_name));
CREATE TABLE guacamole_connection_permission (entity_id INTEGER, connection_id INTEGER, permission VARCHAR(32),
  PRIMARY KEY (entity_id, connection_id, permission));
CREATE TABLE guacamole_sharing_profile (sharing_profile_id INTEGER PRIMARY KEY, sharing_profile_name VARCHAR(255),
  primary_connection_id INTEGER);
CREATE TABLE guacamole_sharing_profile_permission (entity_id INTEGER, sharing_profile_id INTEGER, permission VARCHAR(32),
  PRIMARY KEY (entity_id, sharing_profile_id, permission));
`;

export interface CommunityHarnessOptions {
  /** A git clone of laaaaiiit/eve-ktk; default: $EVENG_SRC. */
  source?: string;
  /** Accounts (role admin), inserted as api_uusers.php `apiAddUUser` inserts them, with a pod as it sets one. */
  users?: HarnessAccount[];
  /** Port on 127.0.0.1; default a free one. */
  port?: number;
  /**
   * Where the server is installed (its labs, MariaDB's datadir, the node runtime's state). A
   * directory an earlier harness installed is served again as it stands, as a server restarted on
   * its disk (after the earlier harness's close()); close() never removes a home given here.
   * Default: a new temporary directory.
   */
  home?: string;
}

/** The server the harness serves (harness-home.ts). */
export type CommunityHarness = ServedHarness;

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Why the harness cannot run here, or undefined when it can. */
export function communityHarnessUnavailable(source = process.env[EVENG_SRC_ENV]): string | undefined {
  if (!source)
    return (
      `${EVENG_SRC_ENV} is not set: the EVE-NG Community harness serves the public copy of EVE-NG Community ` +
      `${COMMUNITY_VERSION}'s server code, which is not in this repository. Get it with ` +
      `\`git clone ${EVENG_REPOSITORY} /tmp/eve-ktk\` and set ${EVENG_SRC_ENV}=/tmp/eve-ktk ` +
      `(the harness serves its first commit, ${COMMUNITY_COMMIT}).`
    );
  const version = spawnSync('git', ['-C', source, 'show', `${COMMUNITY_COMMIT}:html/themes/adminLTE/VERSION`]);
  if (version.status !== 0 || version.stdout.toString().trim() !== COMMUNITY_VERSION)
    return `${EVENG_SRC_ENV}=${source} has no commit ${COMMUNITY_COMMIT} with VERSION ${COMMUNITY_VERSION}: it is not a clone of ${EVENG_REPOSITORY}.`;
  const modules = spawnSync('php', ['-m']);
  if (modules.status !== 0) return 'php is not installed (apt-get install php-cli php-mysql php-yaml).';
  for (const [module, pkg] of [
    ['pdo_mysql', 'php-mysql'],
    ['yaml', 'php-yaml'],
  ])
    if (!new RegExp(`^${module}$`, 'm').test(modules.stdout.toString()))
      return `PHP has no ${module} (apt-get install ${pkg}).`;
  if (!has('mariadbd') || !has('mariadb-install-db') || !has('mariadb'))
    return 'MariaDB is not installed (apt-get install mariadb-server).';
  if (!has('nsenter') || !has('ip')) return 'nsenter or ip is missing (apt-get install util-linux iproute2).';
  if (process.getuid?.() !== 0)
    return 'the harness needs root: it runs the PHP in its own mount and network namespaces.';
  if (spawnSync('unshare', ['--mount', '--net', 'true']).status !== 0)
    return '`unshare --mount --net` is not permitted here.';
  return undefined;
}

function run(command: string, args: string[], input?: string | Buffer): string {
  const done = spawnSync(command, args, { input, maxBuffer: 256 * 1024 * 1024 });
  if (done.status !== 0)
    throw new Error(`${command} ${args.join(' ')}: ${done.stderr.toString()}${done.stdout.toString()}`.slice(0, 3000));
  return done.stdout.toString();
}

/**
 * Which templates have a startup-config script, as UNetLab's init.php (`$node_config`) names them
 * for the templates the scenario uses; EVE-NG moved that list into each template's
 * `config_script`, and api_configs.php `apiGetLabConfig` answers 60058 for a template without one.
 */
const CONFIG_SCRIPTS: Record<string, string> = {
  iol: 'embedded',
  vpcs: 'embedded',
  vios: 'config_vios.py',
  viosl2: 'config_viosl2.py',
  vmx: 'config_vmx.py',
};

/**
 * The templates folder 6.2 reads, from the same commit's legacy templates (see the header), and an
 * empty file for each icon they name: html/images/icons is a submodule the repository does not
 * publish either, and functions.php `checkNodeIcon` drops an icon whose file is missing.
 */
function layTemplates(html: string): void {
  const target = join(html, 'templates', 'intel');
  mkdirSync(target, { recursive: true });
  const icons = join(html, 'images', 'icons');
  mkdirSync(icons, { recursive: true });
  const legacy = join(html, 'templates_legacy');
  for (const file of readdirSync(legacy).filter((f) => f.endsWith('.yml'))) {
    const yaml = readFileSync(join(legacy, file), 'utf8');
    const id = file.slice(0, -4);
    const name = /^name:\s*(.+)$/m.exec(yaml)?.[1]?.trim() ?? id;
    const icon = /^icon:\s*(.+)$/m.exec(yaml)?.[1]?.trim();
    if (icon && /^[\w +-]+\.(png|svg|jpg)$/.test(icon)) writeFileSync(join(icons, icon), '');
    const added = [`description: ${JSON.stringify(`${name} (legacy template)`)}`];
    if (CONFIG_SCRIPTS[id]) added.push(`config_script: ${CONFIG_SCRIPTS[id]}`);
    writeFileSync(join(target, file), yaml.replace(/^---\n/m, `---\n${added.join('\n')}\n`));
  }
}

function lay(dir: string, source: string, hostPid: number, runtimeScript: string): void {
  const base = layServerCode(dir, source, COMMUNITY_COMMIT, COMMUNITY_IMAGES);
  layTemplates(join(base, 'html'));
  // init.php: "svm" in /opt/unetlab/platform means AMD templates; anything else Intel. "none" in
  // /opt/unetlab/hypervisor means bare metal.
  writeFileSync(join(base, 'platform'), 'vmx');
  writeFileSync(join(base, 'hypervisor'), 'none\n');
  writeFileSync(
    join(base, 'html/includes/config.php'),
    "<?php\nDEFINE('TEMPLATE_DISABLED', '.missing');\ndefine('TIMEZONE', 'UTC');\n?>\n",
  );
  const state = join(dir, 'state');
  mkdirSync(state);
  // The node runtime and netstat see the machine's loopback, where the agent reaches consoles.
  const hostNet = `/proc/${hostPid}/ns/net`;
  writeFileSync(
    join(base, 'wrappers/unl_wrapper'),
    `#!/bin/sh\nHARNESS_PORTS_PER_TENANT=${PORTS_PER_POD} exec nsenter --net=${hostNet} '${process.execPath}' '${runtimeScript}' '${state}' "$@"\n`,
    { mode: 0o755 },
  );
  layHostCommands(dir, {
    netstat: `nsenter --net=${hostNet} ss -a -t -n`,
    qemuVersion: 'QEMU emulator version 8.2.1 (stub of the EVE-NG harness)',
    // /api/status asks systemd whether ksmtuned and cpulimit run (api.php) and reads its first output
    // line unguarded: no unit runs here, as systemd answers for an inactive unit.
    extra: { systemctl: 'echo inactive\nexit 3' },
  });
  writeRouter(dir, { guacamole: true });
}

class Mariadb {
  private child?: ChildProcess;
  readonly socket: string;
  private readonly datadir: string;

  constructor(private readonly dir: string) {
    this.socket = join(dir, 'mysqld.sock');
    this.datadir = join(dir, 'mysql');
  }

  /** Starts mariadbd on the datadir, installing a new one first unless it is there already. */
  async start(): Promise<void> {
    if (!existsSync(this.datadir))
      run('mariadb-install-db', [
        '--no-defaults',
        `--datadir=${this.datadir}`,
        '--user=root',
        '--auth-root-authentication-method=socket',
        '--skip-test-db',
      ]);
    rmSync(this.socket, { force: true }); // left by a mariadbd that did not stop
    this.child = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${this.datadir}`,
        `--socket=${this.socket}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        `--log-error=${join(this.dir, 'mysqld.err')}`,
        '--skip-networking',
        '--user=root',
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 200 && !existsSync(this.socket) && this.child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    if (!existsSync(this.socket)) throw new Error(`mariadbd did not start: ${this.log()}`);
  }

  sql(statements: string): void {
    run('mariadb', ['--no-defaults', `--socket=${this.socket}`, '-u', 'root'], statements);
  }

  log(): string {
    const file = join(this.dir, 'mysqld.err');
    return existsSync(file) ? readFileSync(file, 'utf8').slice(-2000) : '';
  }

  /** Stops mariadbd and waits until it has exited (and so released its datadir's locks). */
  async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return; // exited already
    }
    await waitGone([pid]);
  }
}

/**
 * SQL text for one account, and its pod as api_uusers.php `apiAddUUser` inserts one for a `pod`
 * field; the hash is computed here, so the password reaches no command line.
 */
function accountSql(user: { username: string; password: string }, pod: number | undefined): string {
  const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  const hash = createHash('sha256').update(user.password).digest('hex');
  return (
    'USE eve_ng_db;\nINSERT INTO users (username, email, name, password, expiration, role) VALUES ' +
    `(${quote(user.username)}, ${quote(`${user.username}@localhost`)}, ${quote(user.username)}, '${hash}', -1, 'admin');\n` +
    (pod === undefined
      ? ''
      : `INSERT INTO pods (id, expiration, username) VALUES (${pod}, -1, ${quote(user.username)});\n`)
  );
}

/**
 * php -S in its own network namespace. Inside: loopback up, MariaDB's socket as 127.0.0.1:3306
 * (guacdb), the PHP server's port as a unix socket, served on the machine's 127.0.0.1:PORT by a
 * bridge in the machine's network namespace (a process of php's group, not of this one: a test that
 * blocks its event loop, e.g. in spawnSync, can still reach the server).
 */
async function startPhp(dir: string, dbSocket: string, givenPort?: number): Promise<{ php: PhpServer; url: string }> {
  const bridgeScript = join(__dirname, 'socket-bridge.js');
  const httpSocket = join(dir, 'http.sock');
  rmSync(httpSocket, { force: true });
  const node = `'${process.execPath}'`;
  const port = givenPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const php = await startPhpServer({
    dir,
    unshare: ['--net'],
    setup: [
      'ip link set lo up',
      `${node} '${bridgeScript}' tcp:127.0.0.1:3306 'unix:${dbSocket}' &`,
      `${node} '${bridgeScript}' 'unix:${httpSocket}' tcp:127.0.0.1:80 &`,
      `nsenter --net=/proc/${process.pid}/ns/net ${node} '${bridgeScript}' tcp:127.0.0.1:${port} 'unix:${httpSocket}' &`,
    ],
    listen: '127.0.0.1:80',
    // checkDatabase() connects to "localhost": the unix socket.
    ini: { 'pdo_mysql.default_socket': dbSocket },
    answers: async () =>
      existsSync(httpSocket) &&
      (await call(url, 'GET', '/api/auth').then(
        () => true,
        () => false,
      )),
  });
  return { php, url };
}

export async function startCommunityHarness(options: CommunityHarnessOptions = {}): Promise<CommunityHarness> {
  const source = options.source ?? process.env[EVENG_SRC_ENV];
  const refusal = communityHarnessUnavailable(source);
  if (refusal || !source) throw new Error(`EVE-NG Community harness: ${refusal}`);
  const users = options.users ?? [];
  let db: Mariadb | undefined;
  return serveHome({
    home: options.home,
    tempPrefix: 'eve-ce-harness-',
    commit: COMMUNITY_COMMIT,
    users,
    portsPerPod: PORTS_PER_POD,
    lay: (dir) => lay(dir, source, process.pid, join(__dirname, 'node-runtime.js')),
    serve: async (dir, pods, reused) => {
      db = new Mariadb(dir);
      await db.start();
      if (!reused) db.sql(SCHEMA + users.map((user) => accountSql(user, pods.get(user.username))).join(''));
      return startPhp(dir, db.socket, options.port);
    },
    // After php -S with its workers and bridges and the node consoles: mariadbd, so that a harness
    // started next on the same home finds MariaDB's datadir free.
    stopMore: async () => db?.stop(),
    moreLog: () => {
      const log = db?.log();
      return log ? `\nMariaDB log:\n${log}` : '';
    },
  });
}
