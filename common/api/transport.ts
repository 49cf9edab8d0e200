/**
 * One HTTP exchange with the agent over a keep-alive pool: JSON calls and the
 * console stream's upgrade go through the same dispatch handler, which collects
 * the body (bounded by MAX_BODY_BYTES) without a stream in between, or hands
 * over the socket after `101 Switching Protocols`.
 */
import type { Duplex, Readable } from 'node:stream';
import type * as undici from 'undici';
import type { Dispatcher, Pool } from 'undici';
import { MAX_BODY_BYTES } from './contract';
import { Deadline } from './deadline';
import { AgentError, toTransportError } from './errors';
import { createTlsConnector, type TrustSettings } from './tls';

export interface Exchange {
  method: 'GET' | 'POST';
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Protocol to ask for with `Upgrade:`; the reply is then a socket on 101. */
  upgrade?: string;
}

/** A streamed reply: its status and body as they arrive; `trailers` once the body has ended. */
export interface StreamReply {
  status: number;
  body: Readable;
  trailers: Record<string, string>;
}

export type Reply =
  { status: number; body: Buffer; socket?: undefined } | { status: number; socket: Duplex; body?: undefined };

type Settle = (outcome: { reply: Reply } | { error: AgentError }) => void;

/** Receives undici's callbacks for one exchange and settles its promise exactly once. */
class ReplyHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private cancelledWith: AgentError | undefined;
  private settled = false;
  private status = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly operationId: string,
    private readonly origin: string,
    private readonly settle: Settle,
  ) {}

  /** Timeout or abort: settle now, and stop the exchange whenever undici lets us. */
  cancel(reason: AgentError): void {
    if (this.settled) return;
    this.cancelledWith = reason;
    this.finish({ error: reason });
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cancelledWith) controller.abort(this.cancelledWith);
  }

  onRequestUpgrade(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    _headers: unknown,
    socket: Duplex,
  ): void {
    if (this.settled) socket.destroy();
    else this.finish({ reply: { status: statusCode, socket } });
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    this.chunks = [];
    this.size = 0;
    const declared = Number(headers['content-length']);
    if (declared > MAX_BODY_BYTES) this.tooLarge(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_BODY_BYTES) this.tooLarge(controller);
    else if (!this.settled) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [];
    this.finish({ reply: { status: this.status, body } });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.finish({ error: toTransportError(err, this.operationId, this.origin) });
  }

  private tooLarge(controller: Dispatcher.DispatchController): void {
    const error = new AgentError(
      'invalid_response',
      `${this.operationId}: the agent's reply exceeds the ${MAX_BODY_BYTES}-byte limit; it was not read.`,
      this.operationId,
      this.status,
    );
    this.finish({ error });
    controller.abort(error);
  }

  private finish(outcome: { reply: Reply } | { error: AgentError }): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(outcome);
  }
}

export class Transport {
  private readonly pool: Pool;
  private closing: Promise<void> | undefined;

  /** `origin` is the agent's https origin; `pathPrefix` is any path of the configured base URL. */
  constructor(
    readonly origin: string,
    private readonly pathPrefix: string,
    trust: TrustSettings,
  ) {
    // Required here, not at the top: loading undici's modules costs tens of ms, which the
    // extension's activation should not pay before any agent is called.
    const { Pool } = require('undici') as typeof undici;
    this.pool = new Pool(origin, {
      connect: createTlsConnector(trust),
      // Deadlines are enforced per call (Deadline); undici's own would cut long operations short.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  send(operationId: string, exchange: Exchange, timeoutMs: number, signal: AbortSignal | undefined): Promise<Reply> {
    if (signal?.aborted) return Promise.reject(new AgentError('aborted', `${operationId} was cancelled.`, operationId));
    return new Promise<Reply>((resolve, reject) => {
      const handler = new ReplyHandler(operationId, this.origin, (outcome) => {
        deadline.dispose();
        if ('reply' in outcome) resolve(outcome.reply);
        else reject(outcome.error);
      });
      const deadline = new Deadline(operationId, timeoutMs, signal, (reason) => handler.cancel(reason));
      this.pool.dispatch(
        {
          method: exchange.method,
          path: this.pathPrefix + exchange.path,
          headers: exchange.headers,
          body: exchange.body,
          upgrade: exchange.upgrade,
        },
        handler,
      );
    });
  }

  /**
   * A GET whose body is streamed rather than collected (the capture stream): the deadline and
   * signal cover the response head only; destroying the body ends the exchange.
   */
  async stream(
    operationId: string,
    exchange: Exchange,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<StreamReply> {
    const controller = new AbortController();
    const deadline = new Deadline(operationId, timeoutMs, signal, (reason) => controller.abort(reason));
    try {
      const reply = await this.pool.request({
        method: 'GET',
        path: this.pathPrefix + exchange.path,
        headers: exchange.headers,
        signal: controller.signal,
      });
      return { status: reply.statusCode, body: reply.body, trailers: reply.trailers };
    } catch (err) {
      throw controller.signal.aborted && controller.signal.reason instanceof AgentError
        ? controller.signal.reason
        : toTransportError(err, operationId, this.origin);
    } finally {
      deadline.dispose();
    }
  }

  /** Idempotent: undici rejects a second close of the same pool. */
  close(): Promise<void> {
    this.closing ??= this.pool.close();
    return this.closing;
  }
}
