/**
 * The agent's one session with an EVE-NG server: a service account's login
 * cookie (`unetlab_session`), shared by every agent session because EVE-NG
 * keeps a single session per user. A 412 (not logged in, or timed out) logs in
 * again once and repeats the call; a second 412 is `session_expired`. A write
 * refused because the lab file is locked (message 60061) is repeated a few
 * times. Trust follows the extension's rules: https checked against a CA file
 * and/or a pinned certificate fingerprint (common/api/tls.ts); plain http only
 * when asked for.
 */
import { Pool, type Dispatcher } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { TlsCheckError } from '../../../common/api/errors';
import { createTlsConnector } from '../../../common/api/tls';
import { EmuError } from '../backend';
import { messageId, readAnswer, type EveAnswer } from './envelope';
import type { ExchangeRecorder } from './recorder';

export interface EveConnection {
  /** http(s)://host[:port], without /api. */
  baseUrl: string;
  username: string;
  password: string;
  /** PEM trust root for https. */
  ca?: string;
  /** Normalised SHA-256 fingerprint ('AB:CD:…') of the server certificate. */
  pin?: string;
  recorder?: ExchangeRecorder;
}

/** EVE-NG's "could not lock the lab file in time": another write holds it. */
const FILE_LOCK_BUSY = 60061;
const FILE_LOCK_RETRIES = 4;
const FILE_LOCK_BACKOFF_MS = 150;
const REQUEST_TIMEOUT_MS = 60_000;

export class EveHttpSession {
  private readonly pool: Pool;
  private cookie = '';
  /** A login under way: concurrent 412s share it. */
  private loggingIn: Promise<void> | undefined;

  constructor(readonly connection: EveConnection) {
    const https = connection.baseUrl.startsWith('https:');
    this.pool = new Pool(connection.baseUrl, {
      connections: 8,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
      ...(https ? { connect: createTlsConnector({ ca: connection.ca, pin: connection.pin }) } : {}),
    });
  }

  async close(): Promise<void> {
    await this.pool.close().catch(() => undefined);
  }

  /** Logs in (again); the cookie of a previous login is replaced. */
  login(): Promise<void> {
    this.loggingIn ??= (async () => {
      try {
        const { username, password } = this.connection;
        // html5 "0": node URLs are telnet://host:port rather than Guacamole links.
        const answer = await this.exchange('POST', '/api/auth/login', { username, password, html5: '0' });
        if (!answer.ok)
          throw new EmuError(
            'unreachable',
            `EVE-NG refused the login of the service account "${username}" (${answer.message || `HTTP ${answer.http}`}). Check --emu-user and the password.`,
          );
        if (!this.cookie)
          throw new EmuError('unreachable', 'EVE-NG accepted the login but set no unetlab_session cookie.');
      } finally {
        this.loggingIn = undefined;
      }
    })();
    return this.loggingIn;
  }

  get loggedIn(): boolean {
    return this.cookie !== '';
  }

  /** One API call; a failure becomes an EmuError. */
  async call(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<EveAnswer> {
    if (!this.cookie) await this.login();
    const sentWith = this.cookie;
    let answer = await this.exchange(method, path, body);
    if (notLoggedIn(path, answer)) {
      // Calls that failed with the same cookie share one new login; a call whose cookie was already
      // replaced just tries again (a second login would end the session the first one made).
      if (this.cookie === sentWith) await this.login();
      answer = await this.exchange(method, path, body);
      if (notLoggedIn(path, answer))
        throw new EmuError(
          'session_expired',
          'EVE-NG ended the session again right after a new login: someone else is probably logged in with the same account (EVE-NG allows one session per user).',
        );
    }
    for (let attempt = 1; !answer.ok && messageId(answer.message) === FILE_LOCK_BUSY; attempt++) {
      if (attempt > FILE_LOCK_RETRIES)
        throw new EmuError(
          'refused',
          `The lab file stayed locked: another EVE-NG operation holds it, or a request that failed inside EVE-NG left its lock behind, which no retry clears (the <lab>.unl.lock file next to the lab on the server; deleting the lab still works). (${method} ${path}: ${answer.message})`,
        );
      await sleep(FILE_LOCK_BACKOFF_MS * attempt);
      answer = await this.exchange(method, path, body);
    }
    if (!answer.ok) throw failure(method, path, answer);
    return answer;
  }

  private async exchange(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<EveAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pool.request({
        method,
        path,
        headers: {
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(this.cookie ? { cookie: `unetlab_session=${this.cookie}` } : {}),
        },
        body: payload,
      });
    } catch (e) {
      throw transportFailure(e, this.connection.baseUrl);
    }
    const text = await response.body.text();
    const rawCookies = response.headers['set-cookie'];
    const setCookie = rawCookies === undefined ? [] : Array.isArray(rawCookies) ? rawCookies : [rawCookies];
    for (const header of setCookie) {
      const value = /^\s*unetlab_session=([^;]*)/.exec(header)?.[1];
      if (value !== undefined) {
        this.cookie = value;
        this.connection.recorder?.addSecret(value);
      }
    }
    this.connection.recorder?.record(method, path, body, response.statusCode, setCookie, text);
    return readAnswer(response.statusCode, text);
  }
}

/** 412 everywhere, except `GET /api/auth`, which answers 401 to a caller that is not logged in. */
function notLoggedIn(path: string, answer: EveAnswer): boolean {
  return answer.code === 412 || (path === '/api/auth' && answer.code === 401);
}

function failure(method: Dispatcher.HttpMethod, path: string, answer: EveAnswer): EmuError {
  const what = `${method} ${path}: ${answer.message || `HTTP ${answer.http}`}`;
  if (answer.code === 404 || answer.http === 404)
    return new EmuError('not_found', `EVE-NG has no such object (${what}).`);
  if (answer.code === 401)
    return new EmuError(
      'refused',
      `EVE-NG forbids this to the service account (${what}); give it the editor or admin role.`,
    );
  if (answer.code >= 500 || answer.http >= 500) return new EmuError('unreachable', `EVE-NG failed (${what}).`);
  if (/already exists/i.test(answer.message)) return new EmuError('exists', `EVE-NG: ${what}.`);
  if (/\block(ed)?\b/i.test(answer.message)) return new EmuError('locked', `EVE-NG: ${what}.`);
  return new EmuError('refused', what);
}

function transportFailure(e: unknown, baseUrl: string): EmuError {
  if (e instanceof TlsCheckError)
    return new EmuError(
      'unreachable',
      e.code === 'tls_pin_mismatch'
        ? `The certificate of ${baseUrl} does not match the pinned fingerprint (--emu-fingerprint).`
        : `The certificate of ${baseUrl} is not trusted (give its CA with --emu-ca, or pin it with --emu-fingerprint).`,
    );
  const error = e as { code?: string; message?: string };
  return new EmuError('unreachable', `${baseUrl}: ${error.code ?? ''} ${error.message ?? String(e)}`.trim());
}
