/**
 * The typed client of the agent API v1: one method per operationId, built from
 * the operation table in contract.ts. Used by the language server and the
 * extension host alike, so it imports nothing from `vscode`.
 */
import type { Duplex } from 'node:stream';
import { parseAgentUrl } from './base-url';
import {
  isSessionErrorCode,
  MAX_BODY_BYTES,
  OPERATIONS,
  STREAM_UPGRADE,
  operationPath,
  type AuthoringPayload,
  type CapturePayload,
  type ConsolePayload,
  type ListTemplatesQuery,
  type LoginRequest,
  type LogoutRequest,
  type OperationId,
  type ProjectPayload,
} from './contract';
import { decodeEnvelope } from './envelope';
import type { CallOptions, JsonOperationId, OperationMethods, Req, Res } from './operations';
import { checkReply } from './replies';
import { AgentError } from './errors';
import { normalizeFingerprint } from './tls';
import { Transport, type Exchange, type Reply, type StreamReply } from './transport';

export { AgentError } from './errors';
export { normalizeFingerprint, isFingerprint, readServerCertificate } from './tls';
export { ticketOf, openConsole } from './console-stream';

export interface AgentConnection {
  /** https://host:port of the agent (a path, if any, prefixes every API path). */
  baseUrl: string;
  /** Bearer token (the agent session id); '' or absent: no Authorization header. */
  token?: string;
  /** PEM trust root for the agent's certificate. */
  ca?: string;
  /** SHA-256 fingerprint of the agent's DER certificate: hex, any case, colons optional. */
  pin?: string;
}

export interface ClientHooks {
  /**
   * Called when a read-style call fails with a session code (SESSION_ERROR_CODES:
   * the session is gone or expired): returns a new token (e.g. after logging in again),
   * or undefined to give up. Concurrent failures share one call; if the hook
   * throws, the calls waiting on it fail with its error.
   */
  reauthenticate?: () => Promise<string | undefined>;
  /**
   * Told how every call ended (`error` undefined: it succeeded) and with which
   * token, so a caller can notice the agent going away or coming back.
   */
  observe?: (op: OperationId, error: unknown, token: string) => void;
}

/** Characters an HTTP header value can carry; anything else would be refused by undici with the value in the message. */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

type Setup = { transport: Transport } | { error: AgentError };

export class AgentClient implements OperationMethods {
  /** The bearer token; '' means no Authorization header. Settable at any time. */
  token: string;
  private readonly setup: Setup;
  private readonly hooks: ClientHooks;
  private reauthInFlight: Promise<string | undefined> | undefined;

  constructor(connection: AgentConnection, hooks: ClientHooks = {}) {
    this.token = connection.token ?? '';
    this.hooks = hooks;
    this.setup = prepareTransport(connection);
  }

  // ------------------------------------------------------------- operations

  getHealth(options?: CallOptions) {
    return this.call('getHealth', undefined, options);
  }
  /** On success the client keeps the returned token. */
  async login(request: LoginRequest, options?: CallOptions) {
    const data = await this.call('login', request, options);
    if (typeof data.token === 'string') this.token = data.token;
    return data;
  }
  /** On success the client forgets its token. */
  async logout(request: LogoutRequest = {}, options?: CallOptions) {
    const data = await this.call('logout', request, options);
    this.token = '';
    return data;
  }
  getSession(options?: CallOptions) {
    return this.call('getSession', undefined, options);
  }
  getCapabilities(options?: CallOptions) {
    return this.call('getCapabilities', undefined, options);
  }
  listTemplates(query: ListTemplatesQuery = {}, options?: CallOptions) {
    return this.call('listTemplates', query, options);
  }
  getTemplate(request: { id: string }, options?: CallOptions) {
    return this.call('getTemplate', request, options);
  }
  listTemplateImages(request: { id: string }, options?: CallOptions) {
    return this.call('listTemplateImages', request, options);
  }
  listTemplateAttributes(request: { id: string }, options?: CallOptions) {
    return this.call('listTemplateAttributes', request, options);
  }
  listNetworkTypes(options?: CallOptions) {
    return this.call('listNetworkTypes', undefined, options);
  }
  listIcons(options?: CallOptions) {
    return this.call('listIcons', undefined, options);
  }
  completeLinkInterfaces(request: AuthoringPayload, options?: CallOptions) {
    return this.call('completeLinkInterfaces', request, options);
  }
  previewInterfaces(request: AuthoringPayload, options?: CallOptions) {
    return this.call('previewInterfaces', request, options);
  }
  validateProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('validateProject', request, options);
  }
  importProject(request: Req<'importProject'>, options?: CallOptions) {
    return this.call('importProject', request, options);
  }
  planProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('planProject', request, options);
  }
  deployProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('deployProject', request, options);
  }
  reconcileProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('reconcileProject', request, options);
  }
  destroyProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('destroyProject', request, options);
  }
  getProjectStatus(request: ProjectPayload, options?: CallOptions) {
    return this.call('getProjectStatus', request, options);
  }
  inspectProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('inspectProject', request, options);
  }
  openProject(request: ProjectPayload, options?: CallOptions) {
    return this.call('openProject', request, options);
  }
  listProjectConsoles(request: ProjectPayload, options?: CallOptions) {
    return this.call('listProjectConsoles', request, options);
  }
  execProject(request: Req<'execProject'>, options?: CallOptions) {
    return this.call('execProject', request, options);
  }
  execConsole(request: ConsolePayload, options?: CallOptions) {
    return this.call('execConsole', request, options);
  }
  execConsoleMany(request: ConsolePayload, options?: CallOptions) {
    return this.call('execConsoleMany', request, options);
  }
  attachConsole(request: ConsolePayload, options?: CallOptions) {
    return this.call('attachConsole', request, options);
  }
  startCapture(request: CapturePayload, options?: CallOptions) {
    return this.call('startCapture', request, options);
  }

  /**
   * Opens the console byte stream of a ticket from attachConsole: the socket
   * after `101 Switching Protocols`. A refusal is the agent's envelope → AgentError.
   */
  async streamConsole(request: { ticket: string }, options?: CallOptions): Promise<Duplex> {
    const op = 'streamConsole';
    const transport = this.transportFor(op);
    const exchange: Exchange = {
      method: 'GET',
      path: operationPath(op, { ticket: String(request?.ticket ?? '') }),
      headers: this.headers(op, this.token, false),
      upgrade: STREAM_UPGRADE,
    };
    const reply = await transport.send(op, exchange, options?.timeoutMs ?? OPERATIONS[op].timeoutMs, options?.signal);
    if (reply.socket && reply.status === 101) return reply.socket;
    envelopeOf(op, reply, this.token);
    throw new AgentError(
      'invalid_response',
      `${op}: the agent answered HTTP ${reply.status} instead of switching to the console stream.`,
      op,
      reply.status,
    );
  }

  /**
   * Opens the pcapng stream of a ticket from startCapture (decisions §14): on 200 the body as it
   * arrives, and the `capture-end` trailer once it has ended by itself. The options' timeout
   * covers the response head; destroying the body stops the capture. A refusal → AgentError.
   */
  streamCapture(request: { ticket: string }, options?: CallOptions): Promise<StreamReply> {
    return this.openStream('streamCapture', request, options);
  }

  /**
   * Opens the summaries stream of a `summaries_ticket` from startCapture (decisions §14): on 200
   * one JSON object a line, a packet's summary each and a last line saying why it ended.
   * Destroying the body stops the summaries, not the capture. A refusal → AgentError.
   */
  streamCaptureSummaries(request: { ticket: string }, options?: CallOptions): Promise<StreamReply> {
    return this.openStream('streamCaptureSummaries', request, options);
  }

  /** A GET whose 200 body is streamed as it arrives; any other answer is an envelope, thrown. */
  private async openStream(
    op: 'streamCapture' | 'streamCaptureSummaries',
    request: { ticket: string },
    options: CallOptions | undefined,
  ): Promise<StreamReply> {
    const transport = this.transportFor(op);
    const exchange: Exchange = {
      method: 'GET',
      path: operationPath(op, { ticket: String(request?.ticket ?? '') }),
      headers: this.headers(op, this.token, false),
    };
    const reply = await transport.stream(op, exchange, options?.timeoutMs ?? OPERATIONS[op].timeoutMs, options?.signal);
    if (reply.status === 200) return reply;
    // A refusal is a small envelope: read it (bounded) and throw its error.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of reply.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) break;
      chunks.push(chunk);
    }
    reply.body.destroy();
    envelopeOf(op, { status: reply.status, body: Buffer.concat(chunks) }, this.token);
    throw new AgentError(
      'invalid_response',
      `${op}: the agent answered HTTP ${reply.status} without an error.`,
      op,
      reply.status,
    );
  }

  /** Closes the pooled connections; later calls fail with `aborted`. */
  async close(): Promise<void> {
    if ('transport' in this.setup) await this.setup.transport.close();
  }

  // ------------------------------------------------------------- mechanics

  private async call<K extends JsonOperationId>(
    op: K,
    request: unknown,
    options: CallOptions | undefined,
  ): Promise<Res<K>> {
    const spec = OPERATIONS[op];
    let usedToken = this.token;
    try {
      let data: Res<K>;
      try {
        data = await this.send(op, request, usedToken, options);
      } catch (err) {
        const reauthenticate = this.hooks.reauthenticate;
        if (!spec.retry || !reauthenticate || !(err instanceof AgentError) || !isSessionErrorCode(err.code)) throw err;
        const fresh = await this.renewToken(usedToken, reauthenticate);
        if (fresh === undefined) throw err;
        usedToken = fresh;
        data = await this.send(op, request, fresh, options);
      }
      this.hooks.observe?.(op, undefined, usedToken);
      return data;
    } catch (err) {
      this.hooks.observe?.(op, err, usedToken);
      throw err;
    }
  }

  private async send<K extends JsonOperationId>(
    op: K,
    request: unknown,
    token: string,
    options: CallOptions | undefined,
  ): Promise<Res<K>> {
    const transport = this.transportFor(op);
    const spec = OPERATIONS[op];
    const exchange: Exchange = {
      method: spec.method,
      path: '',
      headers: this.headers(op, token, spec.method === 'POST'),
    };
    const params = (request ?? {}) as Record<string, unknown>;
    if (spec.method === 'GET') {
      exchange.path =
        operationPath(op, { id: typeof params.id === 'string' ? params.id : '' }) +
        (op === 'listTemplates' ? queryOf(params) : '');
    } else {
      exchange.path = spec.path;
      exchange.body = serializeBody(op, request ?? {});
    }
    const reply = await transport.send(op, exchange, options?.timeoutMs ?? spec.timeoutMs, options?.signal);
    return checkReply(op, reply.status, envelopeOf(op, reply, token));
  }

  private transportFor(op: OperationId): Transport {
    if ('error' in this.setup) {
      const { code, message } = this.setup.error;
      throw new AgentError(code, message, op);
    }
    return this.setup.transport;
  }

  private headers(op: OperationId, token: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (OPERATIONS[op].auth && token !== '') {
      if (!HEADER_SAFE.test(token)) {
        throw new AgentError(
          'unauthenticated',
          `${op}: the stored agent token is malformed (it cannot be sent in a header); sign in again.`,
          op,
        );
      }
      headers.authorization = `Bearer ${token}`;
    }
    return headers;
  }

  /**
   * One re-authentication for all callers that failed with the same token; a
   * caller whose token was already replaced meanwhile just uses the new one.
   */
  private renewToken(
    staleToken: string,
    reauthenticate: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    if (this.token !== staleToken) return Promise.resolve(this.token);
    if (!this.reauthInFlight) {
      this.reauthInFlight = reauthenticate()
        .then((token) => {
          if (token !== undefined) this.token = token;
          return token;
        })
        .finally(() => {
          this.reauthInFlight = undefined;
        });
    }
    return this.reauthInFlight;
  }
}

/** The data of the envelope a reply carries; a reply that switched protocols carries none. */
function envelopeOf(op: OperationId, reply: Reply, token: string): unknown {
  if (reply.socket) {
    reply.socket.destroy();
    throw new AgentError(
      'invalid_response',
      `${op}: the agent switched protocols (HTTP ${reply.status}) where a JSON reply was expected.`,
      op,
      reply.status,
    );
  }
  return decodeEnvelope(op, reply.status, reply.body, token);
}

function prepareTransport(connection: AgentConnection): Setup {
  try {
    const url = parseAgentUrl(connection?.baseUrl, 'AgentClient');
    const pin =
      connection.pin === undefined || connection.pin === '' ? undefined : normalizeFingerprint(connection.pin);
    const ca = connection.ca === undefined || connection.ca === '' ? undefined : connection.ca;
    return { transport: new Transport(url.origin, url.pathname.replace(/\/+$/, ''), { ca, pin }) };
  } catch (err) {
    // Bad settings surface on each call, as the AgentError the caller already handles.
    if (err instanceof AgentError) return { error: err };
    throw err;
  }
}

/** The ListTemplatesQuery as a query string (only string values; the contract has just `provisioned`). */
function queryOf(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') query.set(key, value);
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** JSON text of a request body, refused before sending when over the contract's limit. */
function serializeBody(op: OperationId, request: unknown): string {
  let body: string | undefined;
  try {
    body = JSON.stringify(request);
  } catch (err) {
    throw new AgentError(
      'invalid_request',
      `${op}: the request cannot be serialized as JSON (${(err as Error).message}).`,
      op,
    );
  }
  if (body === undefined) body = '{}';
  // Three bytes per UTF-16 unit is the UTF-8 worst case, so short bodies skip the exact count.
  if (body.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(body) > MAX_BODY_BYTES) {
    throw new AgentError(
      'payload_too_large',
      `${op}: the request is ${Buffer.byteLength(body)} bytes, over the agent's limit of ${MAX_BODY_BYTES} bytes; nothing was sent.`,
      op,
    );
  }
  return body;
}
