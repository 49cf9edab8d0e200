/**
 * The connection to the agent: log in (with trust on first use), log out,
 * restore after a restart, re-authenticate when the session expires. The token
 * lives in SecretStorage, keyed by agent URL, and nowhere else: not in
 * settings, not in the log.
 */
import * as vscode from 'vscode';
import { AgentClient, AgentError, normalizeFingerprint } from '../../common/api/client';
import type { CapabilitiesData } from '../../common/api/contract';
import type { AgentSessionSettings } from '../../common/protocol';
import { logFailure, type Log } from '../log';
import { parseAgentUrlInput, tokenSecretKey } from '../model/agentUrl';
import type { LoginArgs } from '../model/commandArgs';
import { describeError } from '../model/errors';
import { readCaFile, readConnectionSettings, updateSetting } from './settings';
import { askToRepin, askToTrust } from './trust';

export type ConnectionState = 'loggedOut' | 'connecting' | 'connected' | 'expired' | 'unreachable' | 'error';

/** What the status bar and the context keys show; holds no secret. */
export interface SessionInfo {
  state: ConnectionState;
  baseUrl?: string;
  username?: string;
  /** Agent version (getHealth). */
  version?: string;
  emuReachable?: boolean;
  emuBaseUrl?: string;
  capabilities?: CapabilitiesData;
  /** For unreachable/error/expired, and for a failed capabilities read: what is wrong. */
  problem?: string;
  pin?: string;
}

interface Trust {
  ca?: string;
  pin?: string;
}

interface Connected {
  client: AgentClient;
  baseUrl: string;
  username: string;
  trust: Trust;
}

/** A login the user cancelled (closed a prompt or declined to trust): nothing to report. */
class LoginCancelled extends Error {}

export class Session implements vscode.Disposable {
  private info: SessionInfo = { state: 'loggedOut' };
  private connection: Connected | undefined;
  private expiryPromptOpen = false;
  private readonly changed = new vscode.EventEmitter<SessionInfo>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Log,
  ) {}

  get current(): SessionInfo {
    return this.info;
  }

  get capabilities(): CapabilitiesData | undefined {
    return this.info.state === 'connected' ? this.info.capabilities : undefined;
  }

  /** The client of the live session; throws an AgentError the command wrapper turns into a prompt. */
  agent(): AgentClient {
    if (this.connection !== undefined && this.info.state === 'connected') return this.connection.client;
    if (this.info.state === 'expired') {
      throw new AgentError('expired_agent_session', 'Your Lab Agent session expired. Log in again.', 'session');
    }
    if (this.info.state === 'unreachable' && this.info.baseUrl) {
      throw new AgentError(
        'agent_unreachable',
        `The agent at ${this.info.baseUrl} was not reachable. Start it, then click the Lab Agent status bar item to reconnect.`,
        'session',
      );
    }
    throw new AgentError('unauthenticated', 'You are not logged in to the Lab Agent.', 'session');
  }

  /** What the language server needs, or null when it has no session to use. */
  serverSettings(): AgentSessionSettings | null {
    const c = this.connection;
    if (c === undefined || this.info.state !== 'connected' || c.client.token === '') return null;
    const settings: AgentSessionSettings = { baseUrl: c.baseUrl, token: c.client.token };
    if (c.trust.ca !== undefined) settings.ca = c.trust.ca;
    if (c.trust.pin !== undefined) settings.pin = c.trust.pin;
    return settings;
  }

  /**
   * Logs in. Each field of `args` skips its prompt (automation, and the expiry
   * prompt which knows URL and user already). Returns whether it connected.
   */
  async login(args: LoginArgs = {}): Promise<boolean> {
    const before = this.info;
    try {
      const settings = readConnectionSettings();
      const baseUrl = args.url !== undefined ? checkedUrl(args.url) : await askUrl(settings.agentUrl);
      const username = args.username ?? (await askUsername(settings.username));
      const password = args.password ?? (await askPassword(`Password of ${username} at ${baseUrl}`));
      const ca = await readCaFile(settings.caFile);
      const pin = args.pin ?? (settings.pin !== '' ? settings.pin : undefined);
      this.setInfo({ state: 'connecting', baseUrl, username });
      const { token, trust } = await this.authenticate(
        baseUrl,
        username,
        password,
        { ca, pin },
        args.pin === undefined,
      );
      await this.secrets.store(tokenSecretKey(baseUrl), token);
      await this.rememberSettings(baseUrl, username, args.pin !== undefined ? trust.pin : undefined);
      await this.useConnection(baseUrl, username, token, trust);
      this.log.info(`Logged in to ${baseUrl} as ${username}`);
      return true;
    } catch (err) {
      if (err instanceof LoginCancelled) {
        this.log.info('Login cancelled');
      } else {
        logFailure(this.log, 'Login', err);
        const described = describeError(err);
        void this.showWithLog(`Lab Agent login failed: ${described.message}`);
      }
      // A failed attempt leaves an earlier session as it was.
      if (this.info.state === 'connecting') {
        if (this.connection !== undefined) this.setInfo(before);
        else await this.reset();
      }
      return false;
    }
  }

  async logout(): Promise<void> {
    const c = this.connection;
    if (c !== undefined) {
      try {
        await c.client.logout({});
      } catch (err) {
        // The session is forgotten locally either way; the agent expires it after 8 hours.
        logFailure(this.log, 'Logout', err);
      }
      await this.secrets.delete(tokenSecretKey(c.baseUrl));
      this.log.info(`Logged out of ${c.baseUrl}`);
    }
    await this.reset();
  }

  /** Reconnects with the stored token after a restart (or on request). Never prompts for a password. */
  async restore(): Promise<void> {
    const settings = readConnectionSettings();
    const parsed = parseAgentUrlInput(settings.agentUrl);
    if ('problem' in parsed) {
      this.setInfo({ state: 'loggedOut', problem: `Setting labAgent.agentUrl: ${parsed.problem}` });
      return;
    }
    const baseUrl = parsed.url;
    const token = await this.secrets.get(tokenSecretKey(baseUrl));
    if (token === undefined || token === '') {
      this.setInfo({ state: 'loggedOut', baseUrl });
      return;
    }
    this.setInfo({ state: 'connecting', baseUrl, username: settings.username || undefined });
    let trust: Trust;
    try {
      trust = { ca: await readCaFile(settings.caFile), pin: settings.pin !== '' ? settings.pin : undefined };
    } catch (err) {
      this.setInfo({ state: 'error', baseUrl, problem: (err as Error).message });
      return;
    }
    const client = new AgentClient({ baseUrl, token, ...trust }, { reauthenticate: () => this.reauthenticate() });
    try {
      // Not connected yet, so an expired token makes reauthenticate() decline: no password prompt at startup.
      const who = await client.getSession();
      await this.useConnection(baseUrl, who.username ?? settings.username, token, trust, client);
      this.log.info(`Session restored: ${baseUrl} as ${this.info.username ?? '?'}`);
    } catch (err) {
      await client.close();
      await this.restoreFailed(baseUrl, settings.username, err);
    }
  }

  /** Reads capabilities and health again (after a reconnect of the emulator, on request). */
  async refresh(): Promise<void> {
    if (this.connection === undefined || this.info.state !== 'connected') return;
    await this.loadAgentInfo(this.connection.client);
  }

  /**
   * A call failed because the session is gone (the wrapper of every command,
   * and the language server's status, report it here): ask to log in again, once.
   */
  async sessionLost(err: unknown): Promise<void> {
    const described = describeError(err);
    const c = this.connection;
    if (c !== undefined && this.info.state === 'connected') {
      this.setInfo({ ...this.info, state: 'expired', problem: described.message });
    }
    if (this.expiryPromptOpen) return;
    this.expiryPromptOpen = true;
    try {
      const choice = await vscode.window.showWarningMessage(described.message, 'Log In');
      if (choice === 'Log In') {
        await this.login(c !== undefined ? { url: c.baseUrl, username: c.username } : {});
      }
    } finally {
      this.expiryPromptOpen = false;
    }
  }

  dispose(): void {
    void this.connection?.client.close();
    this.changed.dispose();
  }

  // ------------------------------------------------------------------ internals

  private setInfo(info: SessionInfo): void {
    this.info = info;
    this.changed.fire(info);
  }

  private async reset(): Promise<void> {
    const c = this.connection;
    this.connection = undefined;
    this.setInfo({ state: 'loggedOut', baseUrl: c?.baseUrl });
    await c?.client.close();
  }

  /** Remembers where and as whom we logged in (and a pin given by automation), for the next start. */
  private async rememberSettings(baseUrl: string, username: string, pin: string | undefined): Promise<void> {
    try {
      await updateSetting('agentUrl', baseUrl);
      await updateSetting('username', username);
      if (pin !== undefined) await updateSetting('tls.pin', normalizeFingerprint(pin));
    } catch (err) {
      // The session works without them; only the restore after a restart would miss them.
      this.log.warn(`Could not save the connection settings: ${(err as Error).message}`);
    }
  }

  private async showWithLog(message: string): Promise<void> {
    if ((await vscode.window.showErrorMessage(message, 'Show Log')) === 'Show Log') this.log.show();
  }

  /**
   * Logs in with a throwaway client, running the trust prompts on certificate
   * failures (when `prompts`), and returns the token and the trust that worked.
   */
  private async authenticate(baseUrl: string, username: string, password: string, trust: Trust, prompts: boolean) {
    let current = { ...trust };
    // At most: untrusted → pinned → (certificate changed meanwhile) re-pinned.
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = new AgentClient({ baseUrl, ...current });
      try {
        const data = await client.login({ username, password });
        if (typeof data.token !== 'string' || data.token === '') {
          throw new AgentError('invalid_response', 'The agent accepted the login but sent no session token.', 'login');
        }
        return { token: data.token, trust: current };
      } catch (err) {
        const code = err instanceof AgentError ? err.code : undefined;
        if (prompts && code === 'tls_untrusted' && current.ca === undefined) {
          const pin = await askToTrust(baseUrl, this.log);
          if (pin === undefined) throw new LoginCancelled();
          current = { ...current, pin };
        } else if (prompts && code === 'tls_pin_mismatch' && current.pin !== undefined) {
          const pin = await askToRepin(baseUrl, current.pin, this.log);
          if (pin === undefined) throw new LoginCancelled();
          current = { ...current, pin };
        } else {
          throw err;
        }
      } finally {
        await client.close();
      }
    }
    throw new AgentError(
      'tls_untrusted',
      `The certificate of ${baseUrl} kept changing while connecting. Try again.`,
      'login',
    );
  }

  private async useConnection(
    baseUrl: string,
    username: string,
    token: string,
    trust: Trust,
    existing?: AgentClient,
  ): Promise<void> {
    const client =
      existing ?? new AgentClient({ baseUrl, token, ...trust }, { reauthenticate: () => this.reauthenticate() });
    const previous = this.connection;
    this.connection = { client, baseUrl, username, trust };
    if (previous !== undefined && previous.client !== client) await previous.client.close();
    this.info = { state: 'connected', baseUrl, username, pin: trust.pin };
    // A new session may expire again; an earlier, unanswered prompt must not silence that.
    this.expiryPromptOpen = false;
    await this.loadAgentInfo(client);
  }

  private async loadAgentInfo(client: AgentClient): Promise<void> {
    const [caps, health] = await Promise.allSettled([client.getCapabilities(), client.getHealth()]);
    if (client !== this.connection?.client) return;
    const next: SessionInfo = { ...this.info, problem: undefined };
    if (caps.status === 'fulfilled') {
      next.capabilities = caps.value;
      next.emuReachable = caps.value.emuReachable;
      next.emuBaseUrl = caps.value.emuBaseUrl;
    } else {
      logFailure(this.log, 'Reading the agent capabilities', caps.reason);
      next.problem = `Could not read what the agent allows: ${describeError(caps.reason).message}`;
      if (describeError(caps.reason).kind === 'session') next.state = 'expired';
    }
    if (health.status === 'fulfilled') next.version = health.value.version;
    else logFailure(this.log, 'Reading the agent health', health.reason);
    this.setInfo(next);
  }

  private async restoreFailed(baseUrl: string, username: string, err: unknown): Promise<void> {
    const described = describeError(err);
    logFailure(this.log, 'Restoring the session', err);
    if (described.kind === 'session') {
      await this.secrets.delete(tokenSecretKey(baseUrl));
      this.setInfo({ state: 'loggedOut', baseUrl });
      const choice = await vscode.window.showInformationMessage(
        `Your Lab Agent session at ${baseUrl} has ended.`,
        'Log In',
      );
      if (choice === 'Log In') await this.login({ url: baseUrl, username: username || undefined });
      return;
    }
    if (described.code === 'agent_unreachable' || described.code === 'timeout') {
      this.setInfo({ state: 'unreachable', baseUrl, username: username || undefined, problem: described.message });
      return;
    }
    this.setInfo({ state: 'error', baseUrl, username: username || undefined, problem: described.message });
    if (described.code === 'tls_pin_mismatch') {
      const choice = await vscode.window.showErrorMessage(
        `WARNING: the certificate of the Lab Agent at ${baseUrl} no longer matches the pinned one. Not connected.`,
        'Review Certificate',
      );
      if (choice === 'Review Certificate') {
        const pinned = readConnectionSettings().pin;
        if ((await askToRepin(baseUrl, pinned, this.log)) !== undefined) await this.restore();
      }
    }
  }

  /** The AgentClient hook: a read-style call found the session expired. Asks for the password again. */
  private async reauthenticate(): Promise<string | undefined> {
    const c = this.connection;
    if (c === undefined || this.info.state !== 'connected') return undefined;
    const password = await vscode.window.showInputBox({
      title: 'Lab Agent: session expired',
      prompt: `Your session expired. Enter the password of ${c.username} at ${c.baseUrl} to continue.`,
      password: true,
      ignoreFocusOut: true,
    });
    if (password === undefined) {
      this.setInfo({ ...this.info, state: 'expired', problem: 'Your Lab Agent session expired. Log in again.' });
      return undefined;
    }
    const login = new AgentClient({ baseUrl: c.baseUrl, ...c.trust });
    try {
      const data = await login.login({ username: c.username, password });
      if (typeof data.token !== 'string' || data.token === '') return undefined;
      await this.secrets.store(tokenSecretKey(c.baseUrl), data.token);
      this.log.info(`Logged in again to ${c.baseUrl} as ${c.username}`);
      // The client adopts the token when this returns; tell listeners (the language server) after that.
      setImmediate(() => this.changed.fire(this.info));
      return data.token;
    } catch (err) {
      logFailure(this.log, 'Logging in again', err);
      this.setInfo({ ...this.info, state: 'expired', problem: describeError(err).message });
      void this.showWithLog(`Lab Agent login failed: ${describeError(err).message}`);
      return undefined;
    } finally {
      await login.close();
    }
  }
}

function checkedUrl(input: string): string {
  const parsed = parseAgentUrlInput(input);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.url;
}

async function askUrl(current: string): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Lab Agent: Log In (1/3)',
    prompt: 'The URL of the Lab Agent (HTTPS)',
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const parsed = parseAgentUrlInput(v);
      return 'problem' in parsed ? parsed.problem : undefined;
    },
  });
  if (value === undefined) throw new LoginCancelled();
  return checkedUrl(value);
}

async function askUsername(current: string): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Lab Agent: Log In (2/3)',
    prompt: 'User name on the agent',
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter a user name.' : undefined),
  });
  if (value === undefined) throw new LoginCancelled();
  return value.trim();
}

async function askPassword(prompt: string): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Lab Agent: Log In (3/3)',
    prompt,
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) throw new LoginCancelled();
  return value;
}
