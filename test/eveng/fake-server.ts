/**
 * A fake EVE-NG server for tests, built from the facts in
 * docs/eve-ng-rest-facts.md as EVE-NG's own PHP code has them (UNetLab and
 * Community 6.2.0-4, `html/api.php` and `html/includes/*`), quirks included,
 * so the agent's EVE-NG backend can be exercised where no EVE-NG server runs:
 *
 * - `Lab::save()` drops a hidden (visibility 0) network that has no member, so
 *   attaching to it afterwards fails with 20033;
 * - `Node::edit` refuses (400, 20026) an edit that changes none of name,
 *   position, console, image, config or interfaces (a one-field `ram` edit),
 *   and ignores an image sent without its type and template;
 * - `config` takes "0", "1" (or a config template name); anything else, such
 *   as "Saved", is ignored; a config read for a template without a config
 *   script answers HTTP 200 with `status: fail` (60058); Pro reads a config
 *   with `POST …/configs/{id} {cfsid}`;
 * - a lab's name is its file name: `PUT {name}` moves the lab to `<name>.unl`;
 *   `+` is refused in lab and folder names; descriptions come back through
 *   htmlspecialchars();
 * - a node add that fails (the node limit) answers 201 success all the same
 *   (`apiAddLabNode`'s `else if ($rc = 20046)`), and nothing is added;
 * - IOL interfaces come in port groups of four, ids x + 16·y; vMX, XRv 9K,
 *   vEOS, NX-OSv 9K, ASAv and XRv are named as `Node::setEthernets` names them;
 *   VPCS nodes have image "none";
 * - status 1 is starting (stopped, locked), 3 running while the config is
 *   injected (running, locked), then 2; a stop is immediate;
 * - one pod per user: node N of every lab of the account has console port
 *   32768 + N and reads running when that port listens, so lab B's node 1
 *   shows lab A's running node 1, its console is A's, and stopping it stops A's;
 * - `GET /api/auth` answers 401 (not 412) without a session; `GET /api/status`
 *   is counted (the real one runs `top`, seconds per call);
 * - a template listed but broken (its detail answers 500) can be set up;
 * - the `unetlab` flavour stores and returns no network visibility at all;
 * - the `unetlab` flavour lists nodes without their config flag (only a node
 *   read or `GET …/configs` has it);
 * - a cookie session `unetlab_session`, one per user (a new login ends the
 *   previous one), sliding one hour; no or an expired cookie gets HTTP 412;
 * - a wrong password gets HTTP 200 carrying a `code: 400` failure (2025 fork);
 * - node, network and interface lists are objects keyed by id; the topology
 *   answers `code: "200"` (a string); node and interface writes answer 201;
 * - every lab write takes the lab's file lock; a lock not obtained in time is
 *   a 400 with message id 60061;
 * - templates without images are listed as `<description>.missing`;
 * - `/api/icons` is bare JSON with no envelope;
 * - console URLs are `telnet://<server name>:<port>` only when the login sent
 *   html5 "0" (else a Guacamole URL), with a server name that does not
 *   resolve, so a client must rewrite the host;
 * - Community has no `/stop/stopmode=N` route; Pro has it.
 *
 * It imports nothing from the agent: it is a separate reading of EVE-NG's
 * behaviour, so it can disagree with the agent's.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXAMPLE_LABS, linkNetworkName } from './example-labs';
import { FakeConsole } from './fake-console';
import { FAKE_ICONS, FAKE_TEMPLATES, eveInterfaces, isProvisioned, type FakeTemplate } from './fake-templates';

/** What the server thinks its name is (EVE-NG's SERVER_NAME); deliberately not resolvable. */
export const FAKE_SERVER_NAME = 'eve-ng.fake.invalid';
const SESSION_MS = 3600 * 1000;
const DEFAULT_FILE_LOCK_TIMEOUT_MS = 3000;
const CONSOLE_PORT_BASE = 32768;

export interface FakeEveOptions {
  edition?: 'community' | 'pro';
  /** UNetLab: networks have no visibility (none stored, none returned, none dropped). */
  flavour?: 'eve-ng' | 'unetlab';
  /** Templates listed whose detail answers 500 (a broken template file). */
  brokenTemplates?: string[];
  /** Node ids a lab may use before adds fail (EVE-NG: 255); the failure still answers 201. */
  maxNodeId?: number;
  /**
   * How a new node's id is chosen: `per-lab`, the lab's lowest free id (UNetLab), so labs of one account
   * overlap; `per-account` (default), the first id no lab of the same author uses (the 6.2.0-4 copy
   * on GitHub, laaaaiiit/eve-ktk `Lab::getFreeNodeId`).
   */
  nodeIds?: 'per-lab' | 'per-account';
  /**
   * The network types `GET /api/list/networks` lists, instead of bridge, ovs and the clouds. The
   * laaaaiiit/eve-ktk copy of 6.2.0-4 lists only the clouds of `user_clouds` (functions.php
   * `listNetworkTypes`), while its `checkNetworkType` still accepts `bridge`.
   */
  listedNetworkTypes?: Record<string, string>;
  /** Serve https with this identity instead of plain http. */
  tls?: { cert: string; key: string };
  users?: { username: string; password: string }[];
  clock?: () => number;
  bootMs?: number;
  /** Time each lab write holds the file lock. */
  writeDelayMs?: number;
  /** How long a write waits for a busy lab file lock before the 60061 failure (default 3 s). */
  fileLockTimeoutMs?: number;
  /** Keep labs in this JSON file (loaded at start when present, written after each change). */
  stateFile?: string;
}

interface FakeNode {
  id: number;
  name: string;
  type: string;
  template: string;
  image: string;
  icon: string;
  cpu: number;
  ram: number;
  ethernet: number;
  console: string;
  /** "0", "1" or a config template name: boot from the saved startup config unless "0". */
  config: string;
  delay: number;
  left: number;
  top: number;
  /** Network id per EVE-NG interface id (0 when unconnected). */
  links: Record<string, number>;
  uuid: string;
}

/** What runs under one node id of the account's one pod (whichever lab started it). */
interface PodNode {
  lab: string;
  status: number;
  transitionEndsAt?: number;
  configured: boolean;
  startedAt: number;
  console: FakeConsole;
  port: number;
}

interface FakeNetwork {
  id: number;
  name: string;
  type: string;
  left: number;
  top: number;
  visibility: number;
}

interface FakeLab {
  path: string;
  name: string;
  description: string;
  author: string;
  version: string;
  lock: number;
  nodes: FakeNode[];
  networks: FakeNetwork[];
  configs: Record<string, string>;
}

interface UserSession {
  cookie: string;
  expiresAt: number;
  html5: boolean;
}

class Reply {
  constructor(
    readonly http: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

function envelope(code: number, message: string, data?: unknown, extra: Record<string, unknown> = {}): unknown {
  const status =
    code >= 200 && code < 300
      ? 'success'
      : code === 412
        ? 'unauthorized'
        : code === 401
          ? 'forbidden'
          : code >= 500
            ? 'error'
            : 'fail';
  return { code, status, message, ...(data !== undefined ? { data } : {}), ...extra };
}

/** A request field as text: strings and numbers as they are, anything else as `fallback`. */
function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;
}

const ok = (message: string, data?: unknown, http = 200) => new Reply(http, envelope(http, message, data));
const fail = (http: number, message: string) => new Reply(http, envelope(http, message));

export class FakeEveServer {
  readonly edition: 'community' | 'pro';
  readonly flavour: 'eve-ng' | 'unetlab';
  private readonly listedNetworkTypes?: Record<string, string>;
  private readonly server: Server;
  private readonly clock: () => number;
  private readonly users: { username: string; password: string }[];
  private readonly sessions = new Map<string, UserSession>();
  private readonly folders = new Set<string>(['/']);
  private readonly labs = new Map<string, FakeLab>();
  private readonly fileLocks = new Map<string, Promise<void>>();
  /** Labs whose lock file a failed request left behind: every later locked write times out (60061). */
  private readonly staleLocks = new Set<string>();
  /** The pod: node id → what runs under it (tenant 0: console port 32768 + id). */
  private readonly pod = new Map<number, PodNode>();
  /** Test control: logins of these users are taken over at once by "someone else" (one session per user). */
  private readonly stolen = new Set<string>();
  /** Test control: requests to refuse (failNext), each once. */
  private readonly failures: {
    matches: (method: string, path: string, body: Record<string, unknown>) => boolean;
    message: string;
  }[] = [];
  /** Test control: every exchange the server saw, in order (method, path, status). */
  readonly seen: { method: string; path: string; status: number }[] = [];
  url = '';

  constructor(private readonly options: FakeEveOptions = {}) {
    this.edition = options.edition ?? 'community';
    this.flavour = options.flavour ?? 'eve-ng';
    this.listedNetworkTypes = options.listedNetworkTypes;
    this.clock = options.clock ?? Date.now;
    this.users = options.users ?? [{ username: 'agent', password: 'eve-secret' }];
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
    this.load();
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.url = `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const running of this.pod.values()) running.console.close();
    this.pod.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The cookie of a user's current session (to check that recordings do not contain it). */
  cookieOf(username: string): string | undefined {
    return this.sessions.get(username)?.cookie;
  }

  /** Ends a user's session, as a login of the same user elsewhere would. */
  endSessionOf(username: string): void {
    this.sessions.delete(username);
  }

  /** Simulates a person logging in with the same account after every login of `username`. */
  stealSessionsOf(username: string): void {
    this.stolen.add(username);
    this.sessions.delete(username);
  }

  /** Test view: a lab as the server stores it (nodes with their EVE-NG interface ids), or undefined. */
  labState(path: string): FakeLab | undefined {
    const lab = this.labs.get(path);
    return lab ? (JSON.parse(JSON.stringify(lab)) as FakeLab) : undefined;
  }

  /**
   * Test control: the next request that `matches` fails with HTTP 400 and `message`, as EVE-NG
   * answers a write it refuses, without changing anything.
   */
  failNext(
    matches: (method: string, path: string, body: Record<string, unknown>) => boolean,
    message = 'Injected failure (60000).',
  ): void {
    this.failures.push({ matches, message });
  }

  /** Holds a lab's file lock for `ms` (another EVE-NG process writing the lab). */
  holdFileLock(path: string, ms: number): void {
    void this.withFileLock(path, () => sleep(ms));
  }

  // ------------------------------------------------------------------ state

  private load(): void {
    const file = this.options.stateFile;
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { folders: string[]; labs: FakeLab[] };
      for (const folder of saved.folders) this.folders.add(folder);
      // A restarted fake has no console servers, so its nodes come back stopped.
      for (const lab of saved.labs) this.labs.set(lab.path, lab);
      return;
    }
    for (const lab of fixtureLabs()) {
      this.labs.set(lab.path, lab);
      this.folders.add(lab.path.slice(0, lab.path.lastIndexOf('/')) || '/');
    }
  }

  private save(): void {
    const file = this.options.stateFile;
    if (file) writeFileSync(file, JSON.stringify({ folders: [...this.folders], labs: [...this.labs.values()] }));
  }

  /** Node N's status is that of pod slot N, whichever lab started it (Node::getStatus checks the port). */
  private statusOf(node: FakeNode): number {
    const running = this.pod.get(node.id);
    if (!running) return 0;
    const now = this.clock();
    if (running.transitionEndsAt !== undefined && now >= running.transitionEndsAt) {
      // Starting (1) → running while the startup config is injected (3) → running (2).
      if (running.status === 1 && running.configured) {
        running.status = 3;
        running.transitionEndsAt = now + (this.options.bootMs ?? 50);
      } else {
        running.status = 2;
        running.transitionEndsAt = undefined;
      }
    }
    return running.status;
  }

  /** Lab::save(): a hidden network with no member is not written, so it is gone. */
  private dropEmptyHiddenNetworks(lab: FakeLab): void {
    if (this.flavour === 'unetlab') return;
    lab.networks = lab.networks.filter(
      (n) => n.visibility !== 0 || lab.nodes.some((node) => Object.values(node.links).includes(n.id)),
    );
  }

  private async withFileLock<T>(path: string, write: () => Promise<T>): Promise<T | Reply> {
    if (this.staleLocks.has(path)) {
      await sleep(this.options.fileLockTimeoutMs ?? DEFAULT_FILE_LOCK_TIMEOUT_MS);
      return fail(400, 'Failed to lock the lab file (60061).');
    }
    const held = this.fileLocks.get(path);
    if (held) {
      const gotIt = await Promise.race([
        held.then(() => true),
        sleep(this.options.fileLockTimeoutMs ?? DEFAULT_FILE_LOCK_TIMEOUT_MS).then(() => false),
      ]);
      if (!gotIt) return fail(400, 'Failed to lock the lab file (60061).');
      return this.withFileLock(path, write);
    }
    let release = () => undefined as void;
    this.fileLocks.set(path, new Promise<void>((r) => (release = r)));
    try {
      if (this.options.writeDelayMs) await sleep(this.options.writeDelayMs);
      const result = await write();
      this.save();
      return result;
    } finally {
      this.fileLocks.delete(path);
      release();
    }
  }

  // ------------------------------------------------------------------ HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let reply: Reply;
    try {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      const failure = this.failures.findIndex((f) => f.matches(req.method ?? '', pathname, body));
      reply =
        failure < 0 ? await this.route(req, pathname, body) : fail(400, this.failures.splice(failure, 1)[0].message);
    } catch (e) {
      reply = fail(400, `Invalid request: ${(e as Error).message} (60000).`);
    }
    this.seen.push({ method: req.method ?? '', path: req.url ?? '', status: reply.http });
    // A PHP error reaches the client as Slim's HTML error page.
    const html = typeof reply.body === 'string';
    const payload = html ? (reply.body as string) : JSON.stringify(reply.body);
    res.writeHead(reply.http, { 'Content-Type': html ? 'text/html' : 'application/json', ...reply.headers });
    res.end(payload);
  }

  private userOf(req: IncomingMessage): { username: string; session: UserSession } | undefined {
    const cookie = /(?:^|;\s*)unetlab_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (!cookie) return undefined;
    for (const [username, session] of this.sessions) {
      if (session.cookie !== cookie) continue;
      if (this.clock() > session.expiresAt) return undefined;
      session.expiresAt = this.clock() + SESSION_MS;
      return { username, session };
    }
    return undefined;
  }

  private async route(req: IncomingMessage, pathname: string, body: Record<string, unknown>): Promise<Reply> {
    const method = req.method ?? 'GET';
    if (method === 'POST' && pathname === '/api/auth/login') return this.login(body);
    const user = this.userOf(req);
    if (pathname === '/api/auth' && !user) return fail(401, 'User is not authenticated (90001).');
    if (!user) return fail(412, 'User is not authenticated or session timed out (90001).');
    const html5 = user.session.html5;

    if (method === 'GET' && pathname === '/api/auth')
      return ok('User has been loaded (90002).', {
        username: user.username,
        email: `${user.username}@example.invalid`,
        name: user.username,
        role: 'admin',
        folder: '/',
        lab: null,
        tenant: 0,
        html5: html5 ? 1 : 0,
        lang: 'en',
      });
    if (method === 'GET' && pathname === '/api/auth/logout') {
      this.sessions.delete(user.username);
      return ok('User logged out (90019).');
    }
    if (method === 'GET' && pathname === '/api/status')
      return ok('Fetched system status (60001).', {
        version: this.edition === 'pro' ? '5.0.1-104-PRO' : '5.0.1-24',
        qemu_version: '4.1.0',
        cpu: 3,
        mem: 41,
        disk: 12,
        cached: 0,
        swap: 0,
        iol: 0,
        dynamips: 0,
        qemu: this.runningCount(),
        docker: 0,
        vpcs: 0,
      });
    if (method === 'GET' && pathname === '/api/list/templates/') return this.templateList();
    const broken = /^\/api\/list\/templates\/([^/]+)$/.exec(pathname)?.[1];
    if (method === 'GET' && broken && this.options.brokenTemplates?.includes(decodeURIComponent(broken)))
      return new Reply(
        500,
        `<html><body><h1>Slim Application Error</h1><p>Cannot read template file (${broken}.php).</p></body></html>`,
      );
    const templateMatch = /^\/api\/list\/templates\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && templateMatch) return this.templateDetail(decodeURIComponent(templateMatch[1]));
    if (method === 'GET' && pathname === '/api/list/networks') {
      const types: Record<string, string> = this.listedNetworkTypes ?? { bridge: 'bridge', ovs: 'ovs' };
      if (!this.listedNetworkTypes)
        for (let i = 0; i <= 9; i++) types[`pnet${i}`] = i === 0 ? 'Management(Cloud0)' : `Cloud${i}`;
      if (this.edition === 'pro') Object.assign(types, { nat0: 'NAT', internal: 'internal', private: 'private' });
      return new Reply(200, envelope(200, 'Successfully listed network types (60024).', types, { icons: {} }));
    }
    if (method === 'GET' && pathname === '/api/icons')
      return new Reply(200, Object.fromEntries(FAKE_ICONS.map((i) => [i, i.replace(/\.png$/, '')])));
    if (pathname.startsWith('/api/folders')) return this.foldersRoute(method, pathname, body);
    if (method === 'POST' && pathname === '/api/labs') return this.createLab(body);
    const labMatch = /^\/api\/labs((?:\/[^/]+)*?\/[^/]+\.unl)(\/.*)?$/.exec(pathname);
    if (labMatch) {
      const path = labMatch[1].split('/').map(decodeURIComponent).join('/');
      return this.labRoute(method, path, labMatch[2] ?? '', body, html5);
    }
    return fail(404, `Route not found: ${method} ${pathname} (60000).`);
  }

  private login(body: Record<string, unknown>): Reply {
    const user = this.users.find((u) => u.username === body.username && u.password === body.password);
    // The 2025 fork answers a refused login with HTTP 200 and a 400 payload.
    if (!user) return new Reply(200, envelope(400, 'Cannot authenticate the user (90014).'));
    const cookie = randomUUID();
    // html5 is optional on Community and defaults to 1 (Guacamole console URLs).
    const html5 = body.html5 === undefined ? true : str(body.html5) === '1';
    this.sessions.set(user.username, { cookie, expiresAt: this.clock() + SESSION_MS, html5 });
    // One session per user: someone else logging in with the same account ends ours.
    if (this.stolen.has(user.username))
      this.sessions.set(user.username, { cookie: randomUUID(), expiresAt: this.clock() + SESSION_MS, html5 });
    return new Reply(200, envelope(200, 'User logged in (90013).'), {
      'Set-Cookie': `unetlab_session=${cookie}; path=/api/; domain=${FAKE_SERVER_NAME}; HttpOnly`,
    });
  }

  private runningCount(): number {
    return this.pod.size;
  }

  private templateList(): Reply {
    const data: Record<string, string> = {};
    for (const [id, t] of Object.entries(FAKE_TEMPLATES))
      // UNetLab lists descriptions only; EVE-NG marks templates without images `.missing`.
      data[id] = isProvisioned(t) || this.flavour === 'unetlab' ? t.description : `${t.description}.missing`;
    return ok('Successfully listed node templates (60003).', data);
  }

  private templateDetail(id: string): Reply {
    const t = FAKE_TEMPLATES[id];
    if (!t) return fail(404, 'Requested template is not valid (60031).');
    const list = (values: string[]) => Object.fromEntries(values.map((v) => [v, v]));
    const options: Record<string, unknown> = {};
    // apiGetLabNodeTemplate: no images is an empty array, images an object.
    if (t.type !== 'vpcs')
      options.image = t.images.length
        ? { type: 'list', name: 'Image', list: list(t.images), value: t.images[t.images.length - 1] }
        : { type: 'list', name: 'Image', list: [], value: '' };
    Object.assign(options, {
      name: { type: 'input', name: 'Name/prefix', value: id === 'vpcs' ? 'VPC' : id.toUpperCase() },
      icon: { type: 'list', name: 'Icon', list: list(FAKE_ICONS), value: t.icon },
      uuid: { type: 'input', name: 'UUID', value: '' },
      cpu: { type: 'input', name: 'CPU', value: t.cpu },
      ram: { type: 'input', name: 'RAM (MB)', value: t.ram },
      ethernet: { type: 'input', name: 'Ethernets', value: t.ethernet },
      console: { type: 'list', name: 'Console', list: list(t.consoles), value: t.console },
      ...(t.configScript
        ? { config: { type: 'list', name: 'Startup configuration', list: { 0: 'None', 1: 'Exported' }, value: '0' } }
        : {}),
      delay: { type: 'input', name: 'Delay (s)', value: 0 },
    });
    if (t.type === 'qemu')
      options.qemu_nic = { type: 'list', name: 'QEMU NIC', list: list(['e1000', 'virtio-net-pci']), value: 'e1000' };
    return ok('Successfully listed node template (60032).', { description: t.description, type: t.type, options });
  }

  private foldersRoute(method: string, pathname: string, body: Record<string, unknown>): Reply {
    if (method === 'POST' && pathname === '/api/folders') {
      const parent = str(body.path, '/');
      const path = `${parent === '/' ? '' : parent}/${str(body.name)}`;
      // functions.php checkFolder: /^\/[\/A-Za-z0-9_\s-]*$/ (no "+").
      if (!/^[A-Za-z0-9_\s-]+$/.test(str(body.name))) return fail(400, 'Path is not valid (60009).');
      if (!this.folders.has(parent)) return fail(404, 'Folder does not exist (60008).');
      if (this.folders.has(path)) return fail(400, 'Folder already exists (60013).');
      this.folders.add(path);
      this.save();
      return ok('Folder has been created (60014).');
    }
    const path = pathname.slice('/api/folders'.length).split('/').map(decodeURIComponent).join('/') || '/';
    if (method !== 'GET') return fail(400, 'Unsupported folder operation (60000).');
    if (!this.folders.has(path)) return fail(404, 'Folder does not exist (60008).');
    const prefix = path === '/' ? '/' : `${path}/`;
    return ok('Successfully listed path (60007).', {
      folders: [...this.folders]
        .filter((f) => f.startsWith(prefix) && f !== path && !f.slice(prefix.length).includes('/'))
        .map((f) => ({ name: f.slice(prefix.length), path: f })),
      labs: [...this.labs.keys()]
        .filter((l) => l.startsWith(prefix) && !l.slice(prefix.length).includes('/'))
        .map((l) => ({ file: l.slice(prefix.length), path: l, mtime: '', umtime: 0 })),
    });
  }

  private async createLab(body: Record<string, unknown>): Promise<Reply> {
    const folder = str(body.path, '/');
    const name = str(body.name, '');
    // functions.php checkLabFilename: /^[A-Za-z0-9_\s-]+\.unl$/ (no "+").
    if (!/^[A-Za-z0-9_\s-]+$/.test(name)) return fail(400, 'Lab name is not valid (60018).');
    if (!this.folders.has(folder)) return fail(400, 'Folder does not exist (60008).');
    const path = `${folder === '/' ? '' : folder}/${name}.unl`;
    if (this.labs.has(path)) return fail(400, 'Lab already exists (60016).');
    return this.withFileLock(path, () => {
      this.labs.set(path, newLab(path, name, escapeHtml(str(body.description, '')), str(body.author, '')));
      // The 2019 builds answer 200 without an id.
      return Promise.resolve(ok('Lab has been created (60019).'));
    });
  }

  private async labRoute(
    method: string,
    path: string,
    sub: string,
    body: Record<string, unknown>,
    html5: boolean,
  ): Promise<Reply> {
    const lab = this.labs.get(path);
    if (!lab) return fail(404, 'Lab does not exist (60038).');
    // Lab::__construct (UNetLab): a node with config set but no config data is loaded with config 0.
    for (const node of lab.nodes) if (node.config !== '0' && lab.configs[node.id] === undefined) node.config = '0';
    const write = (change: () => Reply | Promise<Reply>): Promise<Reply> => {
      if (lab.lock) return Promise.resolve(fail(400, 'Lab is locked and cannot be edited (60062).'));
      return this.withFileLock(path, async () => {
        const reply = await change();
        this.dropEmptyHiddenNetworks(lab);
        return reply;
      });
    };

    if (sub === '') {
      if (method === 'GET')
        return ok('Lab has been loaded (60020).', {
          author: lab.author,
          description: lab.description,
          body: '',
          filename: path.slice(path.lastIndexOf('/') + 1),
          id: randomUUID(),
          name: lab.name,
          version: lab.version,
          scripttimeout: 300,
          lock: lab.lock,
        });
      if (method === 'PUT')
        return write(() => {
          if (body.description !== undefined) lab.description = escapeHtml(str(body.description));
          if (body.name !== undefined) {
            // Lab::save() writes <name>.unl: a new name moves the lab to another file.
            const name = str(body.name);
            if (!/^[A-Za-z0-9_\s-]+$/.test(name)) return fail(400, 'Lab name is not valid (20038).');
            const moved = `${path.slice(0, path.lastIndexOf('/'))}/${name}.unl`;
            this.labs.delete(path);
            lab.path = moved;
            lab.name = name;
            this.labs.set(moved, lab);
          }
          return ok('Lab has been saved (60023).');
        });
      if (method === 'DELETE') {
        // The lab DELETE route takes no file lock (a stale lock does not stop it).
        for (const node of lab.nodes) this.stopNode(lab, node);
        this.labs.delete(path);
        this.staleLocks.delete(path);
        this.save();
        return ok('Lab has been deleted (60022).');
      }
    }
    if (method === 'PUT' && (sub === '/Lock' || sub === '/Unlock')) {
      lab.lock = sub === '/Lock' ? 1 : 0;
      this.save();
      return ok('Lab has been saved (60023).');
    }
    if (sub === '/topology' && method === 'GET')
      return new Reply(200, {
        ...(envelope(200, 'Topology loaded (60051).', this.topology(lab)) as object),
        code: '200',
      });
    if (sub === '/networks') {
      if (method === 'GET')
        return ok(
          'Successfully listed networks (60004).',
          Object.fromEntries(lab.networks.map((n) => [n.id, this.networkView(lab, n)])),
        );
      if (method === 'POST')
        return write(() => {
          const type = str(body.type, 'bridge');
          if (
            !/^(bridge|ovs|pnet\d)$/.test(type) &&
            !(this.edition === 'pro' && /^(nat0|internal|private)$/.test(type))
          )
            return fail(400, 'Invalid network type (20021).');
          const id = Math.max(0, ...lab.networks.map((n) => n.id)) + 1;
          lab.networks.push({
            id,
            name: str(body.name, `Net-${id}`),
            type,
            left: Number(body.left ?? 0),
            top: Number(body.top ?? 0),
            visibility: this.flavour === 'unetlab' ? 1 : Number(body.visibility ?? 1),
          });
          return ok('Network has been added to the lab (60006).', { id }, 201);
        });
    }
    const networkMatch = /^\/networks\/(\d+)$/.exec(sub);
    if (networkMatch) {
      const network = lab.networks.find((n) => n.id === Number(networkMatch[1]));
      if (!network) return fail(404, 'Network does not exist (20023).');
      if (method === 'GET') return ok('Successfully listed network (60005).', this.networkView(lab, network));
      if (method === 'PUT')
        return write(() => {
          for (const key of ['name', 'type'] as const) if (body[key] !== undefined) network[key] = str(body[key]);
          for (const key of ['left', 'top'] as const) if (body[key] !== undefined) network[key] = Number(body[key]);
          if (body.visibility !== undefined) {
            if (this.flavour === 'unetlab' && !['name', 'type', 'left', 'top'].some((k) => body[k] !== undefined)) {
              // Network::edit finds nothing it knows (30006), apiEditLabNetwork reads messages[False]:
              // a PHP error, Slim's HTML 500 page, and the lab file's lock is never released.
              this.staleLocks.add(path);
              return new Reply(500, '<html><body><h1>Slim Application Error</h1></body></html>');
            }
            network.visibility = Number(body.visibility);
          }
          return ok('Lab has been saved (60023).', undefined, 201);
        });
      if (method === 'DELETE')
        return write(() => {
          lab.networks = lab.networks.filter((n) => n !== network);
          for (const node of lab.nodes)
            for (const [i, l] of Object.entries(node.links)) if (l === network.id) node.links[i] = 0;
          return ok('Network has been deleted (60009).');
        });
    }
    if (sub === '/nodes') {
      if (method === 'GET')
        return ok(
          'Successfully listed nodes (60026).',
          Object.fromEntries(lab.nodes.map((n) => [n.id, this.listedNodeView(n, html5)])),
        );
      if (method === 'POST') return write(() => this.addNode(lab, body));
    }
    const lifecycleAll = /^\/nodes\/(start|stop|wipe)$/.exec(sub);
    if (lifecycleAll && method === 'GET') {
      const action = lifecycleAll[1];
      const run = async () => {
        for (const node of lab.nodes) await this.lifecycle(lab, node, action);
        return ok(`Nodes ${action === 'stop' ? 'stopped' : action === 'start' ? 'started' : 'wiped'} (80049).`);
      };
      return action === 'start' ? this.withFileLock(path, run) : run();
    }
    const nodeMatch = /^\/nodes\/(\d+)(\/.*)?$/.exec(sub);
    if (nodeMatch) {
      const node = lab.nodes.find((n) => n.id === Number(nodeMatch[1]));
      if (!node) return fail(404, 'Node does not exist (20024).');
      const rest = nodeMatch[2] ?? '';
      if (rest === '' && method === 'GET') return ok('Successfully listed node (60025).', this.nodeView(node, html5));
      if (rest === '' && method === 'DELETE')
        return write(() => {
          this.stopNode(lab, node);
          lab.nodes = lab.nodes.filter((n) => n !== node);
          delete lab.configs[node.id];
          return ok('Node has been deleted (60023).');
        });
      if (rest === '/interfaces' && method === 'GET')
        return ok('Successfully listed node interfaces (60030).', interfacesView(node));
      if (rest === '' && method === 'PUT') return write(() => this.editNode(node, body));
      if (rest === '/interfaces' && method === 'PUT') return write(() => connect(lab, node, body));
      const action =
        /^\/(start|stop|wipe)$/.exec(rest)?.[1] ??
        (this.edition === 'pro' && /^\/stop\/stopmode=\d$/.test(rest) ? 'stop' : undefined);
      if (action && method === 'GET') return this.lifecycle(lab, node, action);
    }
    // apiGetLabConfigs: the config flag of each node whose template has a config script.
    if (sub === '/configs' && method === 'GET')
      return ok(
        'Successfully listed startup-configs (60055).',
        Object.fromEntries(
          lab.nodes
            .filter((n) => FAKE_TEMPLATES[n.template]?.configScript)
            .map((n) => [n.id, { config: n.config, name: n.name }]),
        ),
      );
    const configMatch = /^\/configs\/(\d+)$/.exec(sub);
    if (configMatch) {
      const node = lab.nodes.find((n) => n.id === Number(configMatch[1]));
      if (!node) return fail(404, 'Node does not exist (20024).');
      // Pro reads a node's config from a config set with a POST {cfsid} (evengsdk); Community with a GET.
      const read = this.edition === 'pro' ? method === 'POST' && str(body.cfsid) !== '' : method === 'GET';
      if (read) {
        // apiGetLabConfig: a template without a config script answers HTTP 200 with status fail.
        if (!FAKE_TEMPLATES[node.template]?.configScript)
          return new Reply(200, { code: 200, status: 'fail', message: 'Startup config not available (60058).' });
        return ok('Successfully listed node config (60057).', {
          id: node.id,
          name: node.name,
          data: lab.configs[node.id] ?? '',
        });
      }
      if (method === 'PUT') {
        if (this.edition === 'pro' && str(body.cfsid) === '') return fail(400, 'Config set not given (60059).');
        return write(() => {
          lab.configs[node.id] = str(body.data, '');
          return ok('Lab has been saved (60023).', undefined, 201);
        });
      }
    }
    return fail(404, `Route not found: ${method} ${sub} (60000).`);
  }

  private addNode(lab: FakeLab, body: Record<string, unknown>): Reply {
    const templateId = str(body.template);
    const template = FAKE_TEMPLATES[templateId];
    if (!template) return fail(400, 'Requested template is not valid (60031).');
    const id = this.freeNodeId(lab);
    // apiAddLabNode: past the limit rc is 20046, and `else if ($rc = 20046)` answers 201 success.
    if (id > (this.options.maxNodeId ?? 255)) return ok('Max nodes reached (256)', { id }, 201);
    const type = str(body.type, template.type);
    const ethernet = Number(body.ethernet ?? template.ethernet);
    const node: FakeNode = {
      id,
      name: str(body.name, `${templateId.toUpperCase()}${id}`),
      type,
      template: templateId,
      // Node::__construct: a VPCS node's image is "none".
      image: type === 'vpcs' ? 'none' : str(body.image, template.images[template.images.length - 1] ?? ''),
      icon: str(body.icon, template.icon),
      cpu: Number(body.cpu ?? template.cpu),
      ram: Number(body.ram ?? template.ram),
      ethernet,
      console: str(body.console, template.console),
      config: validConfig(body.config) ?? '0',
      delay: Number(body.delay ?? 0),
      left: Number(body.left ?? 0),
      top: Number(body.top ?? 0),
      links: Object.fromEntries(eveInterfaces(templateId, template, ethernet).map(([i]) => [i, 0])),
      uuid: randomUUID(),
    };
    lab.nodes.push(node);
    // UNetLab answers without the new id.
    return ok('Lab has been saved (60023).', this.flavour === 'unetlab' ? undefined : { id }, 201);
  }

  private freeNodeId(lab: FakeLab): number {
    // Both the lowest free id: of the lab (UNetLab `Lab::getFreeNodeId`) or of the author's labs.
    const used = new Set<number>();
    for (const other of this.labs.values())
      if (other === lab || (this.options.nodeIds !== 'per-lab' && other.author === lab.author))
        for (const n of other.nodes) used.add(n.id);
    let id = 1;
    while (used.has(id)) id++;
    return id;
  }

  /**
   * Node::edit: only name, position, console, a valid image (checked with the request's type and
   * template), config and a changed interface count mark the node modified; cpu, ram, icon and
   * delay are taken but do not. An edit that modifies nothing is 40016, answered as 20026.
   */
  private editNode(node: FakeNode, body: Record<string, unknown>): Reply {
    let modified = false;
    const config = validConfig(body.config);
    if (config !== undefined) [node.config, modified] = [config, true];
    if (body.icon !== undefined) node.icon = str(body.icon);
    if (body.delay !== undefined) node.delay = Number(body.delay);
    const template = FAKE_TEMPLATES[str(body.template)];
    if (body.image !== undefined && str(body.type) === node.type && template?.images.includes(str(body.image)))
      [node.image, modified] = [str(body.image), true];
    for (const key of ['left', 'top'] as const)
      if (body[key] !== undefined) [node[key], modified] = [Number(body[key]), true];
    if (body.name !== undefined) [node.name, modified] = [str(body.name), true];
    if (body.console !== undefined) [node.console, modified] = [str(body.console), true];
    if (body.cpu !== undefined) node.cpu = Number(body.cpu);
    if (body.ram !== undefined) node.ram = Number(body.ram);
    if (body.ethernet !== undefined && Number(body.ethernet) !== node.ethernet) {
      if (this.statusOf(node) !== 0) return fail(400, 'Cannot change interfaces of a running node (40016).');
      node.ethernet = Number(body.ethernet);
      const nodeTemplate = FAKE_TEMPLATES[node.template];
      if (nodeTemplate)
        node.links = Object.fromEntries(
          eveInterfaces(node.template, nodeTemplate, node.ethernet).map(([i]) => [i, node.links[i] ?? 0]),
        );
      modified = true;
    }
    if (!modified) return fail(400, 'Cannot edit node in the selected lab (20026).');
    return ok('Lab has been saved (60023).', undefined, 201);
  }

  private async lifecycle(lab: FakeLab, node: FakeNode, action: string): Promise<Reply> {
    const now = this.clock();
    if (action === 'start') {
      // The pod's slot for this id is busy (this lab's node, or another lab's): the wrapper does nothing.
      if (this.pod.has(node.id)) return ok('Node started (80049).');
      const template = FAKE_TEMPLATES[node.template];
      if (!template || !isProvisioned(template) || (template.type !== 'vpcs' && !template.images.includes(node.image)))
        return fail(
          400,
          `Failed to start node ${node.name}: image ${node.image || '(none)'} is not installed (80028).`,
        );
      // The real port is 32768 + id; the fake listens where it can and reports that port for the id.
      const { console, port } = await FakeConsole.open(this.device(node, template), undefined);
      this.pod.set(node.id, {
        lab: lab.path,
        status: 1,
        transitionEndsAt: now + (this.options.bootMs ?? 50),
        configured: node.config !== '0' && template.configScript,
        startedAt: now,
        console,
        port,
      });
      return ok('Node started (80049).');
    }
    // Stop and wipe act on the pod's slot, whichever lab's node runs there.
    this.stopNode(lab, node);
    return action === 'stop' ? ok('Node stopped (80051).') : ok('Node cleared (80053).');
  }

  private stopNode(_lab: FakeLab, node: FakeNode): void {
    this.pod.get(node.id)?.console.close();
    this.pod.delete(node.id);
  }

  private device(node: FakeNode, template: FakeTemplate) {
    const interfaces = () =>
      eveInterfaces(node.template, template, node.ethernet).map(([i, name]) => ({ name, up: !!node.links[i] }));
    const prompt = () =>
      template.prompt === 'linux' ? `root@${node.name}:~# ` : template.prompt === 'vpcs' ? 'VPCS> ' : `${node.name}#`;
    return {
      // The wrapper is given the node's name as title (cli.php: `qemu_wrapper … -t "<name>"`).
      title: node.name,
      prompt,
      run: (line: string): string => {
        const words = line.trim().split(/\s+/).filter(Boolean);
        if (!words.length) return '';
        const is = (...full: string[]) => words.length === full.length && words.every((w, i) => full[i].startsWith(w));
        const lines = (out: string[]) => out.map((l) => `${l}\r\n`).join('');
        if (template.prompt === 'linux') {
          if (is('hostname')) return lines([node.name]);
          if (is('uname', '-a')) return lines([template.banner]);
          return lines([`-bash: ${words[0]}: command not found`]);
        }
        if (is('show', 'version'))
          return lines([
            template.banner,
            `${node.name} uptime is ${Math.round((this.clock() - (this.pod.get(node.id)?.startedAt ?? this.clock())) / 1000)} seconds`,
          ]);
        if (is('show', 'ip', 'interface', 'brief'))
          return lines([
            'Interface                  IP-Address      OK? Method Status                Protocol',
            ...interfaces().map(
              (i) =>
                `${i.name.padEnd(27)}unassigned      YES unset  ${(i.up ? 'up' : 'down').padEnd(22)}${i.up ? 'up' : 'down'}`,
            ),
          ]);
        return lines([`${' '.repeat(prompt().length)}^`, "% Invalid input detected at '^' marker."]);
      },
    };
  }

  /** A node in the node list: UNetLab's apiGetLabNodes leaves out the config flag its node read has. */
  private listedNodeView(node: FakeNode, html5: boolean): Record<string, unknown> {
    const view = this.nodeView(node, html5);
    if (this.flavour === 'unetlab') delete view.config;
    return view;
  }

  private nodeView(node: FakeNode, html5: boolean): Record<string, unknown> {
    // Tenant 0: the console port is 32768 + node id, the same for that id in every lab.
    const port = this.pod.get(node.id)?.port ?? CONSOLE_PORT_BASE + node.id;
    const url = html5
      ? `/html5/#/client/${Buffer.from(`${port}\0c\0mysql`).toString('base64')}?token=${randomUUID()}`
      : `telnet://${FAKE_SERVER_NAME}:${port}`;
    return {
      id: node.id,
      name: node.name,
      type: node.type,
      template: node.template,
      image: node.image,
      status: this.statusOf(node),
      console: node.console,
      url,
      delay: node.delay,
      left: node.left,
      top: node.top,
      icon: node.icon,
      config: node.config,
      ram: node.ram,
      cpu: node.cpu,
      ethernet: node.ethernet,
      uuid: node.uuid,
      firstmac: '50:00:00:01:00:00',
      cpulimit: 0,
    };
  }

  private networkView(lab: FakeLab, network: FakeNetwork): unknown {
    const count = lab.nodes.filter((n) => Object.values(n.links).includes(network.id)).length;
    // UNetLab's networks have no visibility.
    if (this.flavour === 'unetlab') {
      const { visibility: _visibility, ...rest } = network;
      return { ...rest, count };
    }
    return { ...network, count };
  }

  private topology(lab: FakeLab): unknown[] {
    const edges: unknown[] = [];
    for (const node of lab.nodes) {
      for (const [i, name] of namesOf(node)) {
        const networkId = node.links[i];
        if (networkId)
          edges.push({
            type: 'ethernet',
            source: `node${node.id}`,
            source_label: name,
            source_node_name: node.name,
            destination: `network${networkId}`,
            destination_label: '',
            network_id: networkId,
          });
      }
    }
    return edges;
  }
}

/** A node's interfaces, [EVE-NG id, name]. */
function namesOf(node: FakeNode): [number, string][] {
  const template = FAKE_TEMPLATES[node.template];
  return template
    ? eveInterfaces(node.template, template, node.ethernet)
    : Object.keys(node.links).map((i) => [Number(i), `e${i}`]);
}

/** checkNodeConfig: "0", "1" or a config template name; anything else is ignored. */
function validConfig(value: unknown): string | undefined {
  const text = str(value);
  return text === '0' || text === '1' ? text : undefined;
}

/** Lab::edit stores descriptions through htmlspecialchars(). */
function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

function interfacesView(node: FakeNode): unknown {
  const ethernet: Record<string, unknown> = {};
  for (const [i, name] of namesOf(node)) ethernet[i] = { name, network_id: node.links[i] ?? 0 };
  return { id: node.id, sort: node.type, ethernet, serial: {} };
}

function connect(lab: FakeLab, node: FakeNode, body: Record<string, unknown>): Reply {
  for (const [key, value] of Object.entries(body)) {
    if (!(key in node.links)) return fail(400, 'Interface does not exist (20034).');
    const networkId = value === '' || value === null ? 0 : Number(value);
    // Lab::connectNode: the network must be in the lab as loaded (hidden empty ones were not saved).
    if (networkId !== 0 && !lab.networks.some((n) => n.id === networkId))
      return fail(400, 'Cannot link node, invalid network_id (20033).');
    node.links[key] = networkId;
  }
  return ok('Lab has been saved (60023).', undefined, 201);
}

function newLab(path: string, name: string, description: string, author: string): FakeLab {
  return { path, name, description, author, version: '1', lock: 0, nodes: [], networks: [], configs: {} };
}

/** The labs a fresh fake server holds (example-labs.ts): one to import, one its owner locked, one whose templates are not installed. */
function fixtureLabs(): FakeLab[] {
  return EXAMPLE_LABS.map((example) => {
    const lab = newLab(`/examples/${example.name}.unl`, example.name, example.description, 'fixture');
    for (const { name, template: templateId, left, top, image } of example.nodes) {
      const t = FAKE_TEMPLATES[templateId];
      lab.nodes.push({
        id: lab.nodes.length + 1,
        name,
        type: t.type,
        template: templateId,
        image: t.type === 'vpcs' ? 'none' : (image ?? t.images[t.images.length - 1] ?? ''),
        icon: t.icon,
        cpu: t.cpu,
        ram: t.ram,
        ethernet: t.ethernet,
        console: t.console,
        config: '0',
        delay: 0,
        left,
        top,
        links: Object.fromEntries(eveInterfaces(templateId, t, t.ethernet).map(([i]) => [i, 0])),
        uuid: randomUUID(),
      });
    }
    for (const { name, type } of example.networks)
      lab.networks.push({ id: lab.networks.length + 1, name, type, left: 400, top: 0, visibility: 1 });
    const byName = <T extends { name: string }>(list: T[], name: string): T => {
      const found = list.find((item) => item.name === name);
      if (!found) throw new Error(`fixture ${lab.path}: no ${name}`);
      return found;
    };
    const node = (name: string) => byName(lab.nodes, name);
    for (const [a, b] of example.links) {
      if (typeof b === 'string') {
        node(a[0]).links[a[1]] = byName(lab.networks, b).id;
        continue;
      }
      const id = lab.networks.length + 1;
      lab.networks.push({ id, name: linkNetworkName(a), type: 'bridge', left: 0, top: 0, visibility: 0 });
      node(a[0]).links[a[1]] = id;
      node(b[0]).links[b[1]] = id;
    }
    for (const [name, config] of Object.entries(example.configs ?? {})) {
      node(name).config = '1';
      lab.configs[node(name).id] = config;
    }
    lab.lock = example.locked ? 1 : 0;
    return lab;
  });
}
