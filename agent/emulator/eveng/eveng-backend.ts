/**
 * The agent in front of a real EVE-NG server (Community or Pro) through its
 * REST API. One service-account login serves every agent session, because
 * EVE-NG keeps a single session per user.
 */
import { normalizeFingerprint } from '../../../common/api/tls';
import type { EmulatorBackend, EmulatorClient } from '../backend';
import { EveCatalogue } from './catalogue-cache';
import { EveHttpSession } from './http-session';
import { record, text } from './envelope';
import { EveLabClient, type EveServer } from './lab-client';
import { NodePod } from './node-pod';
import { ExchangeRecorder } from './recorder';

export interface EveNgSettings {
  /** http(s)://host[:port] of the EVE-NG web server. */
  url: string;
  username: string;
  /** Never logged, never written (recordings redact it). */
  password: string;
  /** PEM trust root(s) for https. */
  ca?: string;
  /** SHA-256 fingerprint of the server's certificate, any usual spelling. */
  fingerprint?: string;
  /** Plain http was asked for explicitly (Community's default). */
  allowHttp?: boolean;
  /** Write every exchange with the server to this directory. */
  recordDir?: string;
}

/** The server's base URL, or a message saying what is wrong with it. */
export function checkEveUrl(url: string, allowHttp: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--emu-url must be an http(s) URL such as https://eve.example.net, not "${url}".`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error(`--emu-url must start with https:// (or http:// with --emu-allow-http), not "${parsed.protocol}".`);
  if (parsed.protocol === 'http:' && !allowHttp)
    throw new Error(
      'The EVE-NG URL is plain http: the service account password and session cookie would travel in clear. Use https, or pass --emu-allow-http to accept that.',
    );
  if (parsed.username || parsed.password) throw new Error('--emu-url must not carry a user or password.');
  return parsed;
}

export class EveNgBackend implements EmulatorBackend {
  private readonly server: EveServer;

  private constructor(
    private readonly http: EveHttpSession,
    url: URL,
    clock: () => number,
  ) {
    let version: Promise<string> | undefined;
    const askVersion = (): Promise<string> => {
      if (!version) {
        const asked = http.call('GET', '/api/status').then((a) => text(record(a.data).version, 'unknown'));
        // A failed question is asked again next time.
        asked.catch(() => (version = undefined));
        version = asked;
      }
      return version;
    };
    this.server = {
      http,
      catalogue: new EveCatalogue(http, clock),
      apiHost: url.hostname,
      baseUrl: url.origin,
      version: askVersion,
      edition: async () => (/pro/i.test(await askVersion()) ? 'Pro' : 'Community'),
      linksBeingMade: new Map(),
      pod: new NodePod(),
      nextNodeIds: new Map(),
    };
  }

  /** Checks the settings, warns about what the user should know, and logs in once (so a wrong setting fails at start). */
  static async open(
    settings: EveNgSettings,
    clock: () => number,
    log: (message: string) => void,
  ): Promise<EveNgBackend> {
    const url = checkEveUrl(settings.url, settings.allowHttp ?? false);
    if (url.protocol === 'http:')
      log(
        `WARNING: talking to EVE-NG over plain http (${url.origin}): its password and session cookie are not encrypted.`,
      );
    log(
      `EVE-NG allows one session per user: the agent logs in as "${settings.username}", which logs that user out of any other browser or client. Use a service account that no person uses.`,
    );
    const recorder = settings.recordDir ? new ExchangeRecorder(settings.recordDir, settings.password) : undefined;
    if (settings.recordDir)
      log(`Recording every exchange with EVE-NG in ${settings.recordDir} (cookie and password redacted).`);
    const http = new EveHttpSession({
      baseUrl: url.origin,
      username: settings.username,
      password: settings.password,
      ca: settings.ca,
      pin: settings.fingerprint ? normalizeFingerprint(settings.fingerprint) : undefined,
      recorder,
    });
    const backend = new EveNgBackend(http, url, clock);
    try {
      await http.login();
      const edition = await backend.server.edition();
      log(`Connected to EVE-NG ${edition} at ${url.origin} as ${settings.username}.`);
    } catch (e) {
      await http.close();
      throw e;
    }
    return backend;
  }

  /** Every agent user works through the one service-account session. */
  async connect(_username: string): Promise<EmulatorClient> {
    if (!this.http.loggedIn) await this.http.login();
    return new EveLabClient(this.server);
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
