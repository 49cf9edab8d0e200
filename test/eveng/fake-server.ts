/**
 * A fake EVE-NG server for tests, built only from the facts in
 * docs/eve-ng-rest-facts.md and faithful to their quirks, so the
 * agent's EVE-NG backend can be exercised where no EVE-NG server runs:
 *
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
import { FakeConsole } from './fake-console';
import { FAKE_ICONS, FAKE_TEMPLATES, interfaceName, isProvisioned, type FakeTemplate } from './fake-templates';

/** What the server thinks its name is (EVE-NG's SERVER_NAME); deliberately not resolvable. */
export const FAKE_SERVER_NAME = 'eve-ng.fake.invalid';
const SESSION_MS = 3600 * 1000;
const DEFAULT_FILE_LOCK_TIMEOUT_MS = 3000;
const CONSOLE_PORT_BASE = 32768;

export interface FakeEveOptions {
  edition?: 'community' | 'pro';
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
  /** 0 or 1: boot from the saved startup config. */
  config: number;
  delay: number;
  left: number;
  top: number;
  status: number;
  /** Network id per ethernet index ('' when unconnected is shown as 0). */
  links: number[];
  uuid: string;
  transitionEndsAt?: number;
  startedAt?: number;
  consolePort?: number;
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
  private readonly server: Server;
  private readonly clock: () => number;
  private readonly users: { username: string; password: string }[];
  private readonly sessions = new Map<string, UserSession>();
  private readonly folders = new Set<string>(['/']);
  private readonly labs = new Map<string, FakeLab>();
  private readonly fileLocks = new Map<string, Promise<void>>();
  private readonly consoles = new Map<string, FakeConsole>();
  /** Test control: logins of these users are taken over at once by "someone else" (one session per user). */
  private readonly stolen = new Set<string>();
  /** Test control: every exchange the server saw, in order (method, path, status). */
  readonly seen: { method: string; path: string; status: number }[] = [];
  url = '';

  constructor(private readonly options: FakeEveOptions = {}) {
    this.edition = options.edition ?? 'community';
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
    for (const console of this.consoles.values()) console.close();
    this.consoles.clear();
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
      for (const lab of saved.labs) {
        for (const node of lab.nodes) Object.assign(node, { status: 0, transitionEndsAt: undefined });
        this.labs.set(lab.path, lab);
      }
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

  private settle(node: FakeNode, now: number): FakeNode {
    if ((node.status === 1 || node.status === 3) && now >= (node.transitionEndsAt ?? 0)) {
      node.status = node.status === 1 ? 2 : 0;
      node.transitionEndsAt = undefined;
    }
    return node;
  }

  private async withFileLock<T>(path: string, write: () => Promise<T>): Promise<T | Reply> {
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
      reply = await this.route(req, new URL(req.url ?? '/', 'http://x').pathname, body);
    } catch (e) {
      reply = fail(400, `Invalid request: ${(e as Error).message} (60000).`);
    }
    this.seen.push({ method: req.method ?? '', path: req.url ?? '', status: reply.http });
    const payload = JSON.stringify(reply.body);
    res.writeHead(reply.http, { 'Content-Type': 'application/json', ...reply.headers });
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
    const templateMatch = /^\/api\/list\/templates\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && templateMatch) return this.templateDetail(decodeURIComponent(templateMatch[1]));
    if (method === 'GET' && pathname === '/api/list/networks') {
      const types: Record<string, string> = { bridge: 'bridge', ovs: 'ovs' };
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
    let n = 0;
    for (const lab of this.labs.values())
      for (const node of lab.nodes) if (this.settle(node, this.clock()).status === 2) n++;
    return n;
  }

  private templateList(): Reply {
    const data: Record<string, string> = {};
    for (const [id, t] of Object.entries(FAKE_TEMPLATES))
      data[id] = isProvisioned(t) ? t.description : `${t.description}.missing`;
    return ok('Successfully listed node templates (60003).', data);
  }

  private templateDetail(id: string): Reply {
    const t = FAKE_TEMPLATES[id];
    if (!t) return fail(404, 'Requested template is not valid (60031).');
    const list = (values: string[]) => Object.fromEntries(values.map((v) => [v, v]));
    const options: Record<string, unknown> = {};
    if (t.type !== 'vpcs')
      options.image = { type: 'list', name: 'Image', list: list(t.images), value: t.images[t.images.length - 1] ?? '' };
    Object.assign(options, {
      name: { type: 'input', name: 'Name/prefix', value: id === 'vpcs' ? 'VPC' : id.toUpperCase() },
      icon: { type: 'list', name: 'Icon', list: list(FAKE_ICONS), value: t.icon },
      uuid: { type: 'input', name: 'UUID', value: '' },
      cpu: { type: 'input', name: 'CPU', value: t.cpu },
      ram: { type: 'input', name: 'RAM (MB)', value: t.ram },
      ethernet: { type: 'input', name: 'Ethernets', value: t.ethernet },
      console: { type: 'list', name: 'Console', list: list(t.consoles), value: t.console },
      config: { type: 'list', name: 'Startup configuration', list: { 0: 'None', 1: 'Exported' }, value: '0' },
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
    if (!/^[A-Za-z0-9_+\s-]+$/.test(name)) return fail(400, 'Lab name is not valid (60018).');
    if (!this.folders.has(folder)) return fail(400, 'Folder does not exist (60008).');
    const path = `${folder === '/' ? '' : folder}/${name}.unl`;
    if (this.labs.has(path)) return fail(400, 'Lab already exists (60016).');
    return this.withFileLock(path, () => {
      this.labs.set(path, newLab(path, name, str(body.description, ''), str(body.author, '')));
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
    const now = this.clock();
    for (const node of lab.nodes) this.settle(node, now);
    const write = (change: () => Reply | Promise<Reply>): Promise<Reply> => {
      if (lab.lock) return Promise.resolve(fail(400, 'Lab is locked and cannot be edited (60062).'));
      return this.withFileLock(path, async () => change());
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
          // One field per request (evengsdk): extra fields are ignored here too.
          const [field, value] = Object.entries(body)[0] ?? [];
          if (field === 'name') lab.name = String(value);
          else if (field === 'description') lab.description = String(value);
          return ok('Lab has been saved (60023).');
        });
      if (method === 'DELETE')
        return write(() => {
          for (const node of lab.nodes) this.stopConsole(lab, node);
          this.labs.delete(path);
          return ok('Lab has been deleted (60022).');
        });
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
          Object.fromEntries(lab.networks.map((n) => [n.id, networkView(lab, n)])),
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
            visibility: Number(body.visibility ?? 1),
          });
          return ok('Network has been added to the lab (60006).', { id }, 201);
        });
    }
    const networkMatch = /^\/networks\/(\d+)$/.exec(sub);
    if (networkMatch) {
      const network = lab.networks.find((n) => n.id === Number(networkMatch[1]));
      if (!network) return fail(404, 'Network does not exist (20023).');
      if (method === 'GET') return ok('Successfully listed network (60005).', networkView(lab, network));
      if (method === 'PUT')
        return write(() => {
          for (const key of ['name', 'type'] as const) if (body[key] !== undefined) network[key] = str(body[key]);
          for (const key of ['left', 'top', 'visibility'] as const)
            if (body[key] !== undefined) network[key] = Number(body[key]);
          return ok('Lab has been saved (60023).', undefined, 201);
        });
      if (method === 'DELETE')
        return write(() => {
          lab.networks = lab.networks.filter((n) => n !== network);
          for (const node of lab.nodes) node.links = node.links.map((l) => (l === network.id ? 0 : l));
          return ok('Network has been deleted (60009).');
        });
    }
    if (sub === '/nodes') {
      if (method === 'GET')
        return ok(
          'Successfully listed nodes (60026).',
          Object.fromEntries(lab.nodes.map((n) => [n.id, this.nodeView(n, html5)])),
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
      if (rest === '' && method === 'PUT') return write(() => this.editNode(node, body));
      if (rest === '' && method === 'DELETE')
        return write(() => {
          this.stopConsole(lab, node);
          lab.nodes = lab.nodes.filter((n) => n !== node);
          delete lab.configs[node.id];
          return ok('Node has been deleted (60023).');
        });
      if (rest === '/interfaces' && method === 'GET')
        return ok('Successfully listed node interfaces (60030).', interfacesView(node));
      if (rest === '/interfaces' && method === 'PUT') return write(() => connect(lab, node, body));
      const action =
        /^\/(start|stop|wipe)$/.exec(rest)?.[1] ??
        (this.edition === 'pro' && /^\/stop\/stopmode=\d$/.test(rest) ? 'stop' : undefined);
      if (action && method === 'GET') return this.lifecycle(lab, node, action);
    }
    const configMatch = /^\/configs\/(\d+)$/.exec(sub);
    if (configMatch) {
      const node = lab.nodes.find((n) => n.id === Number(configMatch[1]));
      if (!node) return fail(404, 'Node does not exist (20024).');
      if (method === 'GET')
        return ok('Successfully listed node config (60057).', {
          id: node.id,
          name: node.name,
          data: lab.configs[node.id] ?? '',
        });
      if (method === 'PUT')
        return write(() => {
          lab.configs[node.id] = str(body.data, '');
          return ok('Lab has been saved (60023).', undefined, 201);
        });
    }
    return fail(404, `Route not found: ${method} ${sub} (60000).`);
  }

  private addNode(lab: FakeLab, body: Record<string, unknown>): Reply {
    const template = FAKE_TEMPLATES[str(body.template)];
    if (!template) return fail(400, 'Requested template is not valid (60031).');
    const id = Math.max(0, ...lab.nodes.map((n) => n.id)) + 1;
    const ethernet = Number(body.ethernet ?? template.ethernet);
    const node: FakeNode = {
      id,
      name: str(body.name, `${str(body.template).toUpperCase()}${id}`),
      type: str(body.type, template.type),
      template: str(body.template),
      image: str(body.image, template.images[template.images.length - 1] ?? ''),
      icon: str(body.icon, template.icon),
      cpu: Number(body.cpu ?? template.cpu),
      ram: Number(body.ram ?? template.ram),
      ethernet,
      console: str(body.console, template.console),
      config: str(body.config) === 'Saved' || str(body.config) === '1' ? 1 : 0,
      delay: Number(body.delay ?? 0),
      left: Number(body.left ?? 0),
      top: Number(body.top ?? 0),
      status: 0,
      links: new Array<number>(ethernet).fill(0),
      uuid: randomUUID(),
    };
    lab.nodes.push(node);
    return ok('Lab has been saved (60023).', { id }, 201);
  }

  private editNode(node: FakeNode, body: Record<string, unknown>): Reply {
    for (const key of ['name', 'image', 'icon', 'console'] as const)
      if (body[key] !== undefined) node[key] = str(body[key]);
    for (const key of ['cpu', 'ram', 'left', 'top', 'delay'] as const)
      if (body[key] !== undefined) node[key] = Number(body[key]);
    if (body.config !== undefined) node.config = str(body.config) === '1' || body.config === 'Saved' ? 1 : 0;
    if (body.ethernet !== undefined) {
      if (node.status !== 0) return fail(400, 'Cannot change interfaces of a running node (40016).');
      node.ethernet = Number(body.ethernet);
      node.links = Array.from({ length: node.ethernet }, (_, i) => node.links[i] ?? 0);
    }
    return ok('Lab has been saved (60023).', undefined, 201);
  }

  private async lifecycle(lab: FakeLab, node: FakeNode, action: string): Promise<Reply> {
    const now = this.clock();
    if (action === 'start') {
      if (node.status === 1 || node.status === 2) return ok('Node started (80049).');
      const template = FAKE_TEMPLATES[node.template];
      if (!template || !isProvisioned(template) || (template.type !== 'vpcs' && !template.images.includes(node.image)))
        return fail(
          400,
          `Failed to start node ${node.name}: image ${node.image || '(none)'} is not installed (80028).`,
        );
      const { console, port } = await FakeConsole.open(this.device(lab, node, template), node.consolePort);
      this.consoles.set(`${lab.path}#${node.id}`, console);
      Object.assign(node, {
        status: 1,
        consolePort: port,
        startedAt: now,
        transitionEndsAt: now + (this.options.bootMs ?? 50),
      });
      this.save();
      return ok('Node started (80049).');
    }
    this.stopConsole(lab, node);
    if (action === 'stop') {
      if (node.status === 2 || node.status === 1)
        Object.assign(node, { status: 3, transitionEndsAt: now + 10, startedAt: undefined });
      this.save();
      return ok('Node stopped (80051).');
    }
    Object.assign(node, { status: 0, transitionEndsAt: undefined, startedAt: undefined });
    this.save();
    return ok('Node cleared (80053).');
  }

  private stopConsole(lab: FakeLab, node: FakeNode): void {
    const key = `${lab.path}#${node.id}`;
    this.consoles.get(key)?.close();
    this.consoles.delete(key);
  }

  private device(lab: FakeLab, node: FakeNode, template: FakeTemplate) {
    const interfaces = () =>
      node.links.map((networkId, i) => ({ name: interfaceName(template, i), up: networkId !== 0 }));
    const prompt = () =>
      template.prompt === 'linux' ? `root@${node.name}:~# ` : template.prompt === 'vpcs' ? 'VPCS> ' : `${node.name}#`;
    return {
      title: `${lab.name}/${node.name}`,
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
            `${node.name} uptime is ${Math.round((this.clock() - (node.startedAt ?? this.clock())) / 1000)} seconds`,
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

  private nodeView(node: FakeNode, html5: boolean): Record<string, unknown> {
    const port = node.consolePort ?? CONSOLE_PORT_BASE + node.id;
    const url = html5
      ? `/html5/#/client/${Buffer.from(`${port}\0c\0mysql`).toString('base64')}?token=${randomUUID()}`
      : `telnet://${FAKE_SERVER_NAME}:${port}`;
    return {
      id: node.id,
      name: node.name,
      type: node.type,
      template: node.template,
      image: node.image,
      status: node.status,
      console: node.console,
      url,
      delay: node.delay,
      left: node.left,
      top: node.top,
      icon: node.icon,
      config: String(node.config),
      ram: node.ram,
      cpu: node.cpu,
      ethernet: node.ethernet,
      uuid: node.uuid,
      firstmac: '50:00:00:01:00:00',
      cpulimit: 0,
    };
  }

  private topology(lab: FakeLab): unknown[] {
    const edges: unknown[] = [];
    for (const node of lab.nodes) {
      const template = FAKE_TEMPLATES[node.template];
      node.links.forEach((networkId, i) => {
        if (networkId)
          edges.push({
            type: 'ethernet',
            source: `node${node.id}`,
            source_label: template ? interfaceName(template, i) : `e${i}`,
            source_node_name: node.name,
            destination: `network${networkId}`,
            destination_label: '',
            network_id: networkId,
          });
      });
    }
    return edges;
  }
}

function interfacesView(node: FakeNode): unknown {
  const template = FAKE_TEMPLATES[node.template];
  const ethernet: Record<string, unknown> = {};
  node.links.forEach((networkId, i) => {
    ethernet[i] = { name: template ? interfaceName(template, i) : `e${i}`, network_id: networkId };
  });
  return { id: node.id, sort: node.type, ethernet, serial: {} };
}

function networkView(lab: FakeLab, network: FakeNetwork): unknown {
  const count = lab.nodes.filter((n) => n.links.includes(network.id)).length;
  return { ...network, count };
}

function connect(lab: FakeLab, node: FakeNode, body: Record<string, unknown>): Reply {
  for (const [key, value] of Object.entries(body)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= node.links.length)
      return fail(400, 'Interface does not exist (20034).');
    const networkId = value === '' || value === null ? 0 : Number(value);
    if (networkId !== 0 && !lab.networks.some((n) => n.id === networkId))
      return fail(400, 'Network does not exist (20033).');
    node.links[index] = networkId;
  }
  return ok('Lab has been saved (60023).', undefined, 201);
}

function newLab(path: string, name: string, description: string, author: string): FakeLab {
  return { path, name, description, author, version: '1', lock: 0, nodes: [], networks: [], configs: {} };
}

/** The labs a fresh fake server holds: one to import, one its owner locked, one whose templates are not installed. */
function fixtureLabs(): FakeLab[] {
  const build = (
    path: string,
    description: string,
    nodes: [name: string, template: string, left: number, top: number, image?: string][],
    networks: [name: string, type: string][],
    links: [a: [string, number], b: [string, number] | string][],
  ): FakeLab => {
    const lab = newLab(path, path.replace(/^.*\//, '').replace(/\.unl$/, ''), description, 'fixture');
    for (const [name, templateId, left, top, image] of nodes) {
      const t = FAKE_TEMPLATES[templateId];
      lab.nodes.push({
        id: lab.nodes.length + 1,
        name,
        type: t.type,
        template: templateId,
        image: image ?? t.images[t.images.length - 1] ?? '',
        icon: t.icon,
        cpu: t.cpu,
        ram: t.ram,
        ethernet: t.ethernet,
        console: t.console,
        config: 0,
        delay: 0,
        left,
        top,
        status: 0,
        links: new Array<number>(t.ethernet).fill(0),
        uuid: randomUUID(),
      });
    }
    for (const [name, type] of networks)
      lab.networks.push({ id: lab.networks.length + 1, name, type, left: 400, top: 0, visibility: 1 });
    const byName = <T extends { name: string }>(list: T[], name: string): T => {
      const found = list.find((item) => item.name === name);
      if (!found) throw new Error(`fixture ${path}: no ${name}`);
      return found;
    };
    const node = (name: string) => byName(lab.nodes, name);
    for (const [a, b] of links) {
      if (typeof b === 'string') {
        node(a[0]).links[a[1]] = byName(lab.networks, b).id;
        continue;
      }
      const id = lab.networks.length + 1;
      lab.networks.push({ id, name: `Net-${a[0]}iface_${a[1]}`, type: 'bridge', left: 0, top: 0, visibility: 0 });
      node(a[0]).links[a[1]] = id;
      node(b[0]).links[b[1]] = id;
    }
    return lab;
  };
  const campus = build(
    '/examples/campus.unl',
    'Campus: an edge router, two access switches, a server and a PC',
    [
      ['edge', 'vios', 400, 100],
      ['access1', 'viosl2', 250, 250],
      ['access2', 'iol', 550, 250, 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin'],
      ['server', 'linux', 250, 400],
      ['pc', 'vpcs', 550, 400],
    ],
    [['internet', 'pnet0']],
    [
      [
        ['edge', 0],
        ['access1', 0],
      ],
      [
        ['edge', 1],
        ['access2', 0],
      ],
      [
        ['access1', 1],
        ['server', 0],
      ],
      [
        ['access2', 1],
        ['pc', 0],
      ],
      [['edge', 3], 'internet'],
    ],
  );
  campus.nodes[0].config = 1;
  campus.configs[1] = 'hostname edge\n!\ninterface Gi0/0\n description to access1\n!\nend';
  const locked = build(
    '/examples/locked.unl',
    'A lab its owner locked',
    [
      ['r1', 'vios', 200, 200],
      ['r2', 'vios', 400, 200],
    ],
    [],
    [
      [
        ['r1', 0],
        ['r2', 0],
      ],
    ],
  );
  locked.lock = 1;
  const fabric = build(
    '/examples/dc-fabric.unl',
    'A spine-leaf fabric whose NX-OSv images are not on this server',
    [
      ['spine1', 'nxosv9k', 300, 100, 'nxosv9k-9.3.9'],
      ['leaf1', 'nxosv9k', 200, 300, 'nxosv9k-9.3.9'],
      ['host1', 'linux', 200, 450],
    ],
    [],
    [
      [
        ['spine1', 1],
        ['leaf1', 1],
      ],
      [
        ['leaf1', 2],
        ['host1', 0],
      ],
    ],
  );
  return [campus, locked, fabric];
}
