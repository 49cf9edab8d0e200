/**
 * The reference agent as a library: startAgent() serves the whole v1 API over
 * HTTPS in front of the simulated emulator, the Linux one (real labs in
 * network namespaces) or a real EVE-NG server. main.ts is a thin CLI over it; tests start agents
 * in-process with it.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolve } from 'node:path';
import { DEFAULT_PORT, MAX_BODY_BYTES, OPERATIONS, type OperationId } from '../common/api/contract';
import { ConsoleRunner } from './console/console-runner';
import { handleStreamUpgrade, upgradeRequired } from './console/stream';
import { ConsoleTickets } from './console/tickets';
import { Captures } from './capture/captures';
import { streamCapture } from './capture/capture-stream';
import { streamCaptureSummaries } from './capture/summaries-stream';
import { startCapture } from './handlers/capture';
import type { AgentContext } from './context';
import { ExecLimits } from './console/exec-limits';
import { LoginThrottle, type ThrottleLimits } from './login-throttle';
import { lockDataDir } from './storage/data-dir-lock';
import { Credentials, DEFAULT_USER, type AgentUser } from './users';
import type { EmulatorBackend } from './emulator/backend';
import type { EveNgSettings } from './emulator/eveng/eveng-backend';
import { openBackend, type EmulatorKind } from './emulator/registry';
import type { PublicHandler, SessionHandler } from './handlers/handler';
import { completeLinkInterfaces, previewInterfaces } from './handlers/authoring';
import {
  getTemplate,
  listIcons,
  listNetworkTypes,
  listTemplateAttributes,
  listTemplateImages,
  listTemplates,
} from './handlers/catalogue';
import { getCapabilities, getHealth, getSession, login, logout } from './handlers/connection';
import { attachConsole, execConsole, execConsoleMany } from './handlers/console';
import { execProject } from './handlers/lifecycle';
import {
  deployProject,
  destroyProject,
  getProjectStatus,
  importProject,
  inspectProject,
  listProjectConsoles,
  openProject,
  planProject,
  reconcileProject,
  validateProject,
} from './handlers/projects';
import { ApiError, toApiError } from './http/api-error';
import { BodyBudgets, BodyTooLargeError, parseObject, readBody, readJsonObject, type BodyLimits } from './http/body';
import { answerClientError } from './http/client-error';
import { sendData, sendDataJson, sendError } from './http/respond';
import { RouteTable } from './http/routes';
import { ApplyJournal } from './domain/apply-journal';
import { loadCatalogueData, type CatalogueData } from './domain/catalogue';
import { ValidateWorkers } from './http/validate-workers';
import { LabActivity } from './domain/lab-activity';
import { LabOwners } from './domain/lab-owners';
import { SessionStore, type LoginSession } from './sessions';
import { loadOrCreateCertificate } from './tls';
import { prepareDataDir } from './storage/data-dir';

export interface AgentOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default: the demo user lab / lab (main.ts refuses it in front of real labs). */
  users?: AgentUser[];
  /** Failed-login throttling (default LOGIN_THROTTLE); tests make it quick. */
  loginThrottle?: ThrottleLimits;
  /** Certificate, emulator labs and the apply journal live here. */
  dataDir: string;
  /** Which emulator the agent fronts (default simulated). */
  emulator?: EmulatorKind;
  /** The EVE-NG server, when `emulator` is eve-ng. */
  eveNg?: EveNgSettings;
  /** Simulated node boot time in ms (default 1500). */
  bootMs?: number;
  /** Time source for session, emulator-session and ticket expiry and node boots (default Date.now). */
  clock?: () => number;
  /** Time each simulated emulator write takes, in ms (default 3). */
  writeDelayMs?: number;
  /** Heap of each validate worker thread in MB (default 512); a document that needs more is refused. */
  validateHeapMb?: number;
  /** Time one validate worker may spend on a document in seconds (default 60); a document that needs more is refused. */
  validateSeconds?: number;
  /** Where the agent reports what it does (never secrets); default: nowhere. */
  log?: (message: string) => void;
  /** Connection time limits (default CONNECTION_TIMEOUTS); tests make them short. */
  timeouts?: Partial<ConnectionTimeouts>;
  /** Linux: stop every lab when the agent stops (routers save their running configs first); default: labs keep running. */
  stopLabsOnExit?: boolean;
  /** Linux: nodes one lab may have (default QUOTAS.nodesPerLab, decisions §11). */
  nodesPerLab?: number;
  /** Linux: node starts under way at once (default defaultConcurrentStarts(), quotas.ts). */
  concurrentStarts?: number;
  /** Labs one user may own, whatever the emulator (default DEFAULT_LABS_PER_USER, decisions §11). */
  labsPerUser?: number;
}

/**
 * How long a connection may keep the agent waiting at each step (decisions §11). The HTTPS
 * server never listen()s (sniffProtocol hands it sockets), so Node arms none of these itself.
 */
export interface ConnectionTimeouts {
  /** A connection that sends nothing at all is dropped before TLS starts. */
  firstByteMs: number;
  /** The TLS handshake must be done by then. */
  handshakeMs: number;
  /** The request line and headers must have arrived by then (from the first byte of the request). */
  headersMs: number;
  /** The whole request, body included, must have arrived by then. */
  requestMs: number;
  /** A kept-alive connection with no request in progress is closed after this. */
  keepAliveMs: number;
}

export const CONNECTION_TIMEOUTS: Readonly<ConnectionTimeouts> = {
  firstByteMs: 10_000,
  handshakeMs: 10_000,
  headersMs: 20_000,
  // A 32 MiB body at 2.5 Mbit/s: longer than any client's own per-call timeout but the three slowest.
  requestMs: 120_000,
  // Longer than clients' idle pools usually keep sockets, so a reused socket is rarely closed under them.
  keepAliveMs: 30_000,
};

export interface RunningAgent {
  url: string;
  /** Which emulator the agent fronts, in words (e.g. "simulated (EVE-NG style)"). */
  emulator: string;
  /** Why the chosen emulator cannot run here (empty when it can); every emulator call then fails with that reason. */
  emulatorProblems: string[];
  /** SHA-256 of the certificate, uppercase colon-separated hex. */
  fingerprint: string;
  certPem: string;
  /** Stops the agent; its labs keep running (Linux) unless `stopLabs` or the option stopLabsOnExit says otherwise. */
  close(how?: { stopLabs?: boolean }): Promise<void>;
}

export const DEFAULT_BOOT_MS = 1500;
export const DEFAULT_WRITE_DELAY_MS = 3;
/** First byte of a TLS handshake record. */
const TLS_HANDSHAKE = 0x16;
/** Login is the only public call with a body, and a user name and password never need more. */
const PUBLIC_BODY_BYTES = 16 * 1024;
/** The bodies being read at once (decisions §11): bytes as they arrive, not what they declare. */
const BODY_LIMITS: BodyLimits = {
  // Two of the largest bodies the contract allows.
  total: 2 * MAX_BODY_BYTES,
  // 64 logins of the largest size at once; slow logins hold only what they sent.
  public: 1024 * 1024,
  // One of the largest bodies: a user alone cannot take the agent's whole budget.
  perUser: MAX_BODY_BYTES,
};
/** On stop, requests in flight get this long to answer before their connections are cut. */
const STOP_GRACE_MS = 5_000;
/** After answering, connections get this long to flush before they are cut. */
const FLUSH_GRACE_MS = 500;

/** Request bodies larger than this are read on a worker thread first (validate-workers.ts); validate and plan are handled there. */
const WORKER_DOCUMENT_BYTES = 256 * 1024;

/** What the HTTP layer keeps for the life of one agent. */
interface HttpState {
  routes: RouteTable;
  bodies: BodyBudgets;
  validateWorkers: ValidateWorkers;
  /** Requests being handled; stop() lets them answer. */
  inFlight: Set<Promise<void>>;
  stopping: boolean;
}

/** Operations the contract marks `auth: false`; the compiler checks that each operation has exactly one handler. */
type PublicOperation = { [K in OperationId]: (typeof OPERATIONS)[K]['auth'] extends false ? K : never }[OperationId];
/** The capture streams answer with bodies of their own, not envelopes (capture-stream.ts, summaries-stream.ts). */
type SessionOperation = Exclude<OperationId, PublicOperation | 'streamCapture' | 'streamCaptureSummaries'>;
const isPublic = (op: OperationId): op is PublicOperation => !OPERATIONS[op].auth;

const PUBLIC_HANDLERS: Record<PublicOperation, PublicHandler> = { getHealth, login };
const SESSION_HANDLERS: Record<SessionOperation, SessionHandler> = {
  logout,
  getSession,
  getCapabilities,
  listTemplates,
  getTemplate,
  listTemplateImages,
  listTemplateAttributes,
  listNetworkTypes,
  listIcons,
  completeLinkInterfaces,
  previewInterfaces,
  validateProject,
  importProject,
  planProject,
  deployProject,
  reconcileProject,
  destroyProject,
  getProjectStatus,
  inspectProject,
  openProject,
  listProjectConsoles,
  execProject,
  execConsole,
  execConsoleMany,
  attachConsole,
  // A stream request without an upgrade reaches the plain handler: it needs the Upgrade header.
  streamConsole: () => Promise.reject(upgradeRequired()),
  startCapture,
};

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const dataDir = resolve(options.dataDir);
  prepareDataDir(dataDir);
  const lock = lockDataDir(dataDir);
  try {
    return await startLocked(options, dataDir, () => lock.release());
  } catch (e) {
    lock.release();
    throw e;
  }
}

async function startLocked(options: AgentOptions, dataDir: string, unlock: () => void): Promise<RunningAgent> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  const clock = options.clock ?? Date.now;
  const certificate = await loadOrCreateCertificate(dataDir);
  const credentials = await Credentials.of(options.users?.length ? options.users : [DEFAULT_USER]);
  const owners = new LabOwners(dataDir, log, options.labsPerUser);
  const {
    backend,
    description: emulator,
    problems: emulatorProblems,
  } = await openBackend(options.emulator ?? 'simulated', {
    dataDir,
    clock,
    log,
    eveNg: options.eveNg,
    bootMs: options.bootMs ?? DEFAULT_BOOT_MS,
    writeDelayMs: options.writeDelayMs ?? DEFAULT_WRITE_DELAY_MS,
    stopLabsOnExit: options.stopLabsOnExit,
    nodesPerLab: options.nodesPerLab,
    concurrentStarts: options.concurrentStarts,
  });
  const ctx: AgentContext = {
    clock,
    credentials,
    logins: new LoginThrottle(clock, options.loginThrottle),
    execs: new ExecLimits(),
    sessions: new SessionStore(clock),
    backend,
    activity: new LabActivity(new ApplyJournal(dataDir, log)),
    owners,
    tickets: new ConsoleTickets(clock),
    captures: new Captures(clock),
    consoles: new ConsoleRunner(),
    log,
  };
  const http: HttpState = {
    routes: new RouteTable(),
    bodies: new BodyBudgets(BODY_LIMITS),
    validateWorkers: new ValidateWorkers(options.validateHeapMb, options.validateSeconds),
    inFlight: new Set(),
    stopping: false,
  };
  const timeouts = { ...CONNECTION_TIMEOUTS, ...options.timeouts };
  const streams = new Set<Duplex>();
  const https = apiServer(ctx, http, certificate, streams, timeouts);
  const plain = plainServer(host, timeouts);
  const sockets = new Set<Socket>();
  const tcp = createTcpServer({ noDelay: true }, (socket) =>
    sniffProtocol(socket, sockets, https, plain, timeouts.firstByteMs),
  );
  await listen(tcp, options.port ?? DEFAULT_PORT, host, backend);
  const port = (tcp.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `https://${urlHost}:${port}`,
    fingerprint: certificate.fingerprint,
    certPem: certificate.certPem,
    emulator,
    emulatorProblems,
    close(how) {
      closing ??= stop({ ctx, http, tcp, https, plain, streams, sockets }, how).finally(unlock);
      return closing;
    },
  };
}

/** The HTTPS server of the API and the console streams; it never listens itself (sniffProtocol hands it sockets). */
function apiServer(
  ctx: AgentContext,
  http: HttpState,
  certificate: { certPem: string; keyPem: string },
  streams: Set<Duplex>,
  timeouts: ConnectionTimeouts,
): HttpsServer {
  const https = createHttpsServer(
    {
      cert: certificate.certPem,
      key: certificate.keyPem,
      handshakeTimeout: timeouts.handshakeMs,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // How often Node looks for requests past headersTimeout or requestTimeout.
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
    (req, res) => {
      const handled = handleRequest(ctx, http, req, res);
      http.inFlight.add(handled);
      void handled.finally(() => http.inFlight.delete(handled));
    },
  );
  // Node checks headersTimeout and requestTimeout from a timer it starts on 'listening', which a
  // server that is handed its sockets never emits: without this a half-sent request is held for good.
  https.emit('listening');
  https.keepAliveTimeout = timeouts.keepAliveMs;
  https.on('clientError', answerClientError);
  https.on(
    'upgrade',
    (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      void handleStreamUpgrade(ctx, http.routes, req, socket, head, streams),
  );
  // A failed or timed-out handshake (handshakeTimeout) is not closed by Node when this event has a listener.
  https.on('tlsClientError', (_error, socket) => socket.destroy());
  return https;
}

/** Plain HTTP on the TLS port gets one answer, tls_required, and the connection closes. */
function plainServer(host: string, timeouts: ConnectionTimeouts): HttpServer {
  const plain = createHttpServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
    (req, res) => {
      req.resume();
      sendError(
        res,
        new ApiError(
          'tls_required',
          `This agent speaks HTTPS only: use https://${host}:<port>/ (plain HTTP is refused so that passwords and tokens never travel in clear).`,
        ),
        { Connection: 'close' },
      );
    },
  );
  plain.emit('listening'); // as for the HTTPS server: arms headersTimeout and requestTimeout
  plain.on('upgrade', (_req, socket: Duplex) => socket.destroy());
  plain.on('clientError', answerClientError);
  return plain;
}

/**
 * One port for both: the first byte tells a TLS handshake from plain HTTP. noDelay on the
 * listener: console echo is one small write per keystroke; Nagle's algorithm would hold each
 * one back ~40 ms (node's HTTP server sets this itself, but it never sees these sockets).
 */
function sniffProtocol(
  socket: Socket,
  sockets: Set<Socket>,
  https: HttpsServer,
  plain: HttpServer,
  firstByteMs: number,
): void {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => socket.destroy());
  socket.setTimeout(firstByteMs, () => socket.destroy());
  socket.once('data', (first: Buffer) => {
    socket.setTimeout(0);
    socket.pause();
    socket.unshift(first);
    (first[0] === TLS_HANDSHAKE ? https : plain).emit('connection', socket);
    process.nextTick(() => socket.resume());
  });
}

/** Nothing half-starts: the emulator's kernel objects go when the port cannot be had. */
function listen(tcp: TcpServer, port: number, host: string, backend: EmulatorBackend): Promise<void> {
  return new Promise<void>((resolveListen, rejectListen) => {
    tcp.once('error', (e) => {
      void backend.close().finally(() => rejectListen(e));
    });
    tcp.listen(port, host, () => {
      tcp.off('error', rejectListen);
      resolveListen();
    });
  });
}

/**
 * Applies in flight stop between two emulator calls (their journal stays behind) and answer
 * agent_stopping; every other request in flight finishes and answers too. Then the answers
 * get to reach the clients before what is left is cut, and the emulator closes last.
 */
async function stop(
  agent: {
    ctx: AgentContext;
    http: HttpState;
    tcp: TcpServer;
    https: HttpsServer;
    plain: HttpServer;
    streams: Set<Duplex>;
    sockets: Set<Socket>;
  },
  how?: { stopLabs?: boolean },
): Promise<void> {
  const { ctx, http, tcp, https, plain, streams, sockets } = agent;
  http.stopping = true;
  const stopped = ctx.activity.stopAll();
  const closed = new Promise<void>((done) => tcp.close(() => done()));
  for (const stream of streams) stream.destroy();
  await Promise.race([Promise.allSettled([...http.inFlight, ctx.captures.stopAll()]), sleep(STOP_GRACE_MS)]);
  const ended = [...sockets].map((socket) => new Promise<void>((done) => socket.once('close', done)));
  for (const socket of sockets) socket.end();
  await Promise.race([Promise.all(ended), sleep(FLUSH_GRACE_MS)]);
  for (const socket of sockets) socket.destroy();
  https.closeAllConnections();
  // Stops the timer of headersTimeout and requestTimeout; the server itself was never listening.
  https.close(() => undefined);
  plain.close(() => undefined);
  await Promise.all([closed, stopped, http.validateWorkers.close()]);
  await ctx.backend.close(how);
}

async function handleRequest(
  ctx: AgentContext,
  http: HttpState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  // The log names the operation, never the path: stream paths carry tickets.
  let operation = `${req.method} (unknown route)`;
  res.on('finish', () => ctx.log(`${operation} -> ${res.statusCode} (${Date.now() - started} ms)`));
  try {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://agent');
    } catch {
      throw new ApiError('not_found', 'The request path cannot be read.');
    }
    if (http.stopping) throw new ApiError('agent_stopping', 'The agent is stopping. Try again once it is back.');
    const found = http.routes.lookup(req.method ?? 'GET', url.pathname);
    if (found.kind === 'not_found')
      throw new ApiError('not_found', `No such API route: ${req.method} ${url.pathname}. The API lives under /api/v1.`);
    if (found.kind === 'wrong_method') {
      res.setHeader('Allow', found.allowed.join(', '));
      throw new ApiError(
        'method_not_allowed',
        `${url.pathname} takes ${found.allowed.join(' or ')}, not ${req.method}.`,
      );
    }
    const { operationId, spec, params } = found.match;
    operation = operationId;
    // The bearer is checked from the headers before a byte of the body is read, so a caller
    // without a session can make the agent hold no more than a login's worth of memory.
    const session = isPublic(operationId) ? undefined : ctx.sessions.authenticate(req.headers.authorization);
    let body: Record<string, unknown>;
    if (session && spec.method === 'POST' && Number(req.headers['content-length']) > WORKER_DOCUMENT_BYTES) {
      const raw = await readBody(req, http.bodies.shareOf(session.username), MAX_BODY_BYTES, operationId);
      if (operationId === 'validateProject' || operationId === 'planProject') {
        await session.emulator.status();
        const catalogue = await loadCatalogueData(session.emulator);
        if (operationId === 'validateProject')
          sendData(res, await http.validateWorkers.validate(raw, catalogue), closing(http));
        else sendDataJson(res, await planOnWorker(ctx, http, session, raw, catalogue), closing(http));
        return;
      }
      // Any other large body is read on a worker first, within its limits; the handler then parses what is known to be readable.
      await http.validateWorkers.read(raw);
      body = parseObject(raw.toString('utf8'));
    } else {
      body =
        spec.method === 'POST'
          ? await readJsonObject(
              req,
              http.bodies.shareOf(session?.username),
              session ? MAX_BODY_BYTES : PUBLIC_BODY_BYTES,
              operationId,
            )
          : (req.resume(), {});
    }
    const input = { ctx, body, params, query: url.searchParams, address: req.socket.remoteAddress ?? 'unknown' };
    let data: unknown;
    if (isPublic(operationId)) {
      data = await PUBLIC_HANDLERS[operationId](input);
    } else if (session) {
      // Every authenticated call uses (and so extends) the emulator session, except ending it and
      // capabilities (which report an emulator that does not answer instead of failing).
      if (operationId !== 'logout' && operationId !== 'getCapabilities') await session.emulator.status();
      // The capture stream writes its own answer: a pcapng body.
      if (operationId === 'streamCapture') return await streamCapture(ctx, session, params.ticket, res);
      if (operationId === 'streamCaptureSummaries') return streamCaptureSummaries(ctx, session, params.ticket, res);
      data = await SESSION_HANDLERS[operationId]({ ...input, session });
    }
    sendData(res, data, closing(http));
  } catch (e) {
    const error = toApiError(e, ctx.log);
    // What is left of the body is discarded as it arrives, so the client can send it all and read
    // the answer; a body over the limit is cut off instead, once the client has the answer.
    req.resume();
    sendError(res, error, error instanceof BodyTooLargeError ? { Connection: 'close' } : closing(http));
  }
}

/** A large plan: its document is read, parsed and checked off the event loop (validate-workers.ts). */
function planOnWorker(
  ctx: AgentContext,
  http: HttpState,
  session: LoginSession,
  raw: Buffer,
  catalogue: CatalogueData,
): Promise<string> {
  return http.validateWorkers.plan(raw, catalogue, async (path) => {
    ctx.owners.check(path, session.username);
    return { live: await session.emulator.getLab(path), midApply: ctx.activity.journal.isInterrupted(path) };
  });
}

/** While the agent stops, every answer closes its connection. */
function closing(http: HttpState): Record<string, string> {
  return http.stopping ? { Connection: 'close' } : {};
}
