/**
 * The connection to the agent: log in (the agent's identity settled before any
 * secret is asked, as SSH does), log out, restore after a restart, and keep the
 * session true to the agent afterwards. The states and transitions are in
 * sessionMachine.ts; this class carries them out: it watches every call the
 * session's client makes, probes an unreachable agent with back-off, checks
 * an idle one now and then, and renews a session the agent dropped with one
 * password prompt. There is one session per agent (agents.ts keeps them), each
 * with its own state, probe and heartbeat. The token lives in SecretStorage,
 * keyed by agent name and URL, and nowhere else: not in settings, not in the log.
 */
import * as vscode from 'vscode';
import { AgentClient, AgentError, normalizeFingerprint } from '../../common/api/client';
import { isSessionErrorCode, type CapabilitiesData } from '../../common/api/contract';
import type { AgentSessionSettings } from '../../common/protocol';
import { logFailure, type Log } from '../log';
import { DEFAULT_AGENT } from '../model/agent-list';
import { deleteAgentToken, readAgentToken, storeAgentToken } from '../model/agent-tokens';
import { parseAgentUrlInput } from '../model/agent-url';
import type { LoginArgs } from '../model/command-args';
import { describeError } from '../model/errors';
import {
  askPasswordUntilAccepted,
  askUrl,
  askUsername,
  offerPasswordPrompt,
  passwordAgainTexts,
  passwordPromptTexts,
} from './prompts';
import {
  HEARTBEAT_MS,
  heartbeatDue,
  initialState,
  isLive,
  isUnreachableCode,
  transition,
  type MachineState,
  type SessionEffect,
  type SessionEvent,
  type SessionInfo,
} from './session-machine';
import { readAgentSettings, readCaFile, updateAgentSettings, type ConnectionSettings } from './settings';
import { askToRepin, askToTrust } from './trust';

export type { SessionInfo } from './session-machine';

/** How long a probe or heartbeat may wait for the agent. */
const CHECK_TIMEOUT_MS = 5000;

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

/** A command needs an agent the user is not logged in to: its log-in is offered (agents.ts). */
export class NotLoggedIn extends AgentError {
  constructor(readonly agent: string) {
    super(
      'unauthenticated',
      agent === DEFAULT_AGENT
        ? 'You are not logged in to the Lab Agent.'
        : `You are not logged in to the agent "${agent}".`,
      'session',
    );
  }
}

/** A login the user cancelled (closed a prompt or declined to trust): nothing to report. */
class LoginCancelled extends Error {}

export class Session implements vscode.Disposable {
  private machine: MachineState = initialState;
  private connection: Connected | undefined;
  /** The one password prompt open at a time; everyone who needs a fresh token waits on it. */
  private passwordPrompt: Promise<string | undefined> | undefined;
  /** Guarded commands running: a session found lost during one asks for the password at once. */
  private userCommands = 0;
  private probeTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private lastContact = 0;
  private readonly changed = new vscode.EventEmitter<SessionInfo>();
  private readonly resynced = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** The session works again after being unreachable or lost: everything that shows agent data loads again. */
  readonly onDidResync = this.resynced.event;
  /** The latest resync's reading of the agent info: a login is done when the commands can use it. */
  private synced: Promise<void> = Promise.resolve();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Log,
    /** The agent's name: "default" for the single-agent settings, else its labAgent.agents entry. */
    readonly name: string = DEFAULT_AGENT,
  ) {
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
  }

  get current(): SessionInfo {
    return this.machine.info;
  }

  /** What the agent allows, as last read; kept while it is unreachable or the session is being renewed. */
  get capabilities(): CapabilitiesData | undefined {
    return this.connection !== undefined && isLive(this.machine.info.state)
      ? this.machine.info.capabilities
      : undefined;
  }

  /**
   * The client of the session. Unreachable and expired sessions hand it out
   * too: the user's action is the best probe, and a lost session asks for the
   * password during it. Throws an AgentError the command wrapper reports.
   */
  agent(): AgentClient {
    if (this.connection !== undefined && isLive(this.machine.info.state)) return this.connection.client;
    throw new NotLoggedIn(this.name);
  }

  /** What the language server needs, or null when it has no session to use. */
  serverSettings(): AgentSessionSettings | null {
    const c = this.connection;
    // Kept while unreachable or expired: the server's calls then say so, and a resync sets it going again.
    if (c === undefined || !isLive(this.machine.info.state) || c.client.token === '') return null;
    const settings: AgentSessionSettings = { baseUrl: c.baseUrl, token: c.client.token };
    if (c.trust.ca !== undefined) settings.ca = c.trust.ca;
    if (c.trust.pin !== undefined) settings.pin = c.trust.pin;
    return settings;
  }

  /** Runs a command the user started: a session found lost meanwhile asks for the password right away. */
  async duringUserCommand<T>(run: () => Promise<T>): Promise<T> {
    this.userCommands++;
    try {
      return await run();
    } finally {
      this.userCommands--;
    }
  }

  /**
   * Logs in. Each field of `args` skips its prompt (automation, and the expiry
   * prompt which knows URL and user already). The certificate is settled
   * before the user name and password are asked. Returns whether it connected.
   */
  async login(args: LoginArgs = {}): Promise<boolean> {
    const before = this.machine;
    try {
      const settings = this.settings();
      const baseUrl = checkedUrl(args.url ?? (await this.askLoginUrl(settings.agentUrl)));
      if (this.name !== DEFAULT_AGENT && baseUrl !== settings.agentUrl)
        throw new Error(
          `The agent "${this.name}" is at ${settings.agentUrl}: edit its entry of labAgent.agents to move it.`,
        );
      const ca = await readCaFile(settings.caFile);
      const pin = args.pin ?? (settings.pin !== '' ? settings.pin : undefined);
      const trust = await this.settleTrust(baseUrl, { ca, pin }, args.pin === undefined);
      const username = args.username ?? (await askUsername(settings.username, baseUrl));
      if (username === undefined) throw new LoginCancelled();
      const connecting = (): void => this.dispatch({ type: 'connecting', baseUrl, username });
      let token: string | undefined;
      if (args.password !== undefined) {
        connecting();
        token = await this.authenticate(baseUrl, username, args.password, trust);
      } else {
        token = await this.askAndAuthenticate(
          passwordPromptTexts(username, baseUrl),
          baseUrl,
          username,
          trust,
          connecting,
        );
      }
      if (token === undefined) throw new LoginCancelled();
      await storeAgentToken(this.secrets, { name: this.name, url: baseUrl }, token);
      await this.rememberSettings(baseUrl, username, args.pin !== undefined ? trust.pin : undefined);
      await this.useConnection(baseUrl, username, token, trust);
      // Commands check the capabilities: without them a command right after login would say to log in.
      await this.synced;
      this.log.info(`${this.logPrefix}Logged in to ${baseUrl} as ${username}`);
      void vscode.window.showInformationMessage(`Lab Agent: logged in to ${baseUrl} as ${username}.`);
      return true;
    } catch (err) {
      if (err instanceof LoginCancelled) {
        this.log.info('Login cancelled');
      } else {
        logFailure(this.log, 'Login', err);
        void this.showWithLog(`Lab Agent login failed: ${describeError(err).message}`);
      }
      // A failed attempt leaves an earlier session as it was.
      if (this.machine.info.state === 'connecting') {
        if (this.connection !== undefined) this.setMachine(before);
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
      await deleteAgentToken(this.secrets, { name: this.name, url: c.baseUrl });
      this.log.info(`${this.logPrefix}Logged out of ${c.baseUrl}`);
    }
    await this.reset();
  }

  /** Reconnects with the stored token after a restart (or on request). Never prompts for a password. */
  async restore(): Promise<void> {
    const settings = readAgentSettings(this.name);
    if (settings === undefined) return;
    const parsed = parseAgentUrlInput(settings.agentUrl);
    if ('problem' in parsed) {
      this.dispatch({ type: 'loggedOut', problem: `Setting labAgent.agentUrl: ${parsed.problem}` });
      return;
    }
    const baseUrl = parsed.url;
    const token = await readAgentToken(this.secrets, { name: this.name, url: baseUrl });
    if (token === undefined || token === '') {
      this.dispatch({ type: 'loggedOut', baseUrl });
      return;
    }
    const username = settings.username || undefined;
    this.dispatch({ type: 'connecting', baseUrl, username });
    let trust: Trust;
    try {
      trust = { ca: await readCaFile(settings.caFile), pin: settings.pin !== '' ? settings.pin : undefined };
    } catch (err) {
      this.dispatch({ type: 'failed', problem: (err as Error).message });
      return;
    }
    const client = this.createClient(baseUrl, token, trust);
    try {
      // Not connected yet, so an expired token makes reauthenticate() decline: no password prompt at startup.
      const who = await client.getSession({ timeoutMs: CHECK_TIMEOUT_MS });
      await this.useConnection(baseUrl, who.username ?? settings.username, token, trust, client);
      this.log.info(`${this.logPrefix}Session restored: ${baseUrl} as ${this.current.username ?? '?'}`);
    } catch (err) {
      await this.restoreFailed(client, { baseUrl, username, trust }, err);
    }
  }

  /** Reads capabilities and health again (after a reconnect of the emulator, on request). */
  async refresh(): Promise<void> {
    const c = this.connection;
    if (c === undefined) return;
    if (this.machine.info.state === 'unreachable') await this.probe();
    else if (this.machine.info.state === 'connected') await this.loadAgentInfo(c.client);
  }

  /**
   * A command found the session gone (the command wrapper reports it here).
   * Asks for the password at once; returns whether the session works again.
   */
  async sessionLost(err: unknown): Promise<boolean> {
    const described = describeError(err);
    if (this.connection === undefined) {
      // Nothing to renew: offer a full log-in.
      const choice = await vscode.window.showWarningMessage(described.message, 'Log In');
      return choice === 'Log In' && (await this.login());
    }
    return this.duringUserCommand(async () => {
      this.report(described.code ?? 'unauthenticated', described.message);
      return (await this.renew(described.message)) !== undefined;
    });
  }

  /** The language server's report on its own calls (its session is the one last handed to it). */
  serverReported(code: string | undefined, message: string | undefined): void {
    if (this.connection === undefined || this.machine.info.state !== 'connected') return;
    if (isUnreachableCode(code)) this.report(code ?? 'agent_unreachable', message ?? 'The agent did not answer.');
    // The server may still hold a token replaced meanwhile: check ours before calling the session lost.
    else if (isSessionErrorCode(code)) void this.check(this.connection.client);
  }

  /** Opens the password prompt of a lost session (status bar, notification). */
  async logInAgain(): Promise<void> {
    if (this.connection === undefined || this.machine.info.state !== 'expired') {
      await this.login();
      return;
    }
    await this.renew(this.machine.info.problem ?? 'Your Lab Agent session ended.');
  }

  dispose(): void {
    clearInterval(this.heartbeat);
    this.clearProbe();
    void this.connection?.client.close();
    this.changed.dispose();
    this.resynced.dispose();
  }

  // ------------------------------------------------------------------ transitions

  private dispatch(event: SessionEvent): void {
    const next = transition(this.machine, event);
    if (next.state !== this.machine) this.setMachine(next.state);
    for (const effect of next.effects) this.run(effect);
  }

  private setMachine(state: MachineState): void {
    const changed = state.info !== this.machine.info;
    this.machine = state;
    if (state.info.state !== 'unreachable') this.clearProbe();
    if (changed) this.changed.fire(state.info);
  }

  private run(effect: SessionEffect): void {
    switch (effect.type) {
      case 'probe':
        this.clearProbe();
        this.probeTimer = setTimeout(() => {
          this.probeTimer = undefined;
          void this.probe();
        }, effect.afterMs);
        return;
      case 'sessionLost':
        this.log.warn(`${this.logPrefix}Session lost: ${effect.message}`);
        if (this.userCommands > 0) void this.renew(effect.message);
        else
          void offerPasswordPrompt(`Lab Agent: ${effect.message}`).then((yes) =>
            yes ? this.renew(effect.message) : undefined,
          );
        return;
      case 'resync':
        this.log.info(`${this.logPrefix}Session with ${this.current.baseUrl ?? 'the agent'} works again`);
        this.synced = this.afterResync();
        return;
    }
  }

  private async afterResync(): Promise<void> {
    const c = this.connection;
    if (c !== undefined) await this.loadAgentInfo(c.client);
    this.resynced.fire();
  }

  /** A call with the current token failed (or a report of one): `code` decides what it means. */
  private report(code: string, message: string): void {
    this.dispatch({ type: 'callFailed', code, message });
  }

  /** Every call of the session's client ends here: the agent answers, went away, or dropped the session. */
  private observe(client: AgentClient, error: unknown, token: string): void {
    // Only the live client and token speak for the session; an older one's answers are stale.
    if (client !== this.connection?.client || token !== client.token) return;
    if (error === undefined) {
      this.lastContact = Date.now();
      this.dispatch({ type: 'callSucceeded' });
      return;
    }
    const described = describeError(error);
    if (described.code !== undefined) this.report(described.code, described.message);
  }

  private clearProbe(): void {
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  /** Is the agent back? A success or a lost session is seen by observe(); only "still away" is counted here. */
  private async probe(): Promise<void> {
    const c = this.connection;
    if (c === undefined || this.machine.info.state !== 'unreachable') return;
    try {
      await c.client.getCapabilities({ timeoutMs: CHECK_TIMEOUT_MS });
    } catch (err) {
      const described = describeError(err);
      if (isUnreachableCode(described.code) || described.code === 'timeout')
        this.dispatch({ type: 'probeFailed', message: described.message });
    }
  }

  /** The idle check: only when nothing else spoke with the agent lately. */
  private async beat(): Promise<void> {
    const c = this.connection;
    if (c === undefined || this.machine.info.state !== 'connected') return;
    if (!heartbeatDue(this.lastContact, Date.now())) return;
    await this.check(c.client);
  }

  /** One capabilities read: keeps the emulator's reachability current, and observe() sees how it went. */
  private async check(client: AgentClient): Promise<void> {
    try {
      const caps = await client.getCapabilities({ timeoutMs: CHECK_TIMEOUT_MS });
      if (client === this.connection?.client) this.dispatch({ type: 'agentInfo', capabilities: caps });
    } catch {
      // observe() took it in.
    }
  }

  // ------------------------------------------------------------------ internals

  /** The agent's settings now; an agent removed from the settings meanwhile fails the action that needs them. */
  private settings(): ConnectionSettings {
    const settings = readAgentSettings(this.name);
    if (settings === undefined) throw new Error(`The agent "${this.name}" is no longer in setting labAgent.agents.`);
    return settings;
  }

  /** The default agent's URL is asked (prefilled); another agent's is the one of its entry. */
  private async askLoginUrl(current: string): Promise<string | undefined> {
    return this.name === DEFAULT_AGENT ? askUrl(current) : current;
  }

  /** Log lines of other agents than the default one say whose they are. */
  private get logPrefix(): string {
    return this.name === DEFAULT_AGENT ? '' : `[${this.name}] `;
  }

  private async savePin(pin: string): Promise<void> {
    await updateAgentSettings(this.name, { pin });
  }

  private createClient(baseUrl: string, token: string, trust: Trust): AgentClient {
    const client: AgentClient = new AgentClient(
      { baseUrl, token, ...trust },
      {
        reauthenticate: () => this.reauthenticate(client),
        observe: (_op, error, used) => this.observe(client, error, used),
      },
    );
    return client;
  }

  private async reset(): Promise<void> {
    const c = this.connection;
    this.connection = undefined;
    this.dispatch({ type: 'loggedOut', baseUrl: c?.baseUrl });
    await c?.client.close();
  }

  /** Remembers where and as whom we logged in (and a pin given by automation), for the next start. */
  private async rememberSettings(baseUrl: string, username: string, pin: string | undefined): Promise<void> {
    try {
      await updateAgentSettings(this.name, {
        url: baseUrl,
        username,
        pin: pin === undefined ? undefined : normalizeFingerprint(pin),
      });
    } catch (err) {
      // The session works without them; only the restore after a restart would miss them.
      this.log.warn(`Could not save the connection settings: ${(err as Error).message}`);
    }
  }

  private async showWithLog(message: string): Promise<void> {
    if ((await vscode.window.showErrorMessage(message, 'Show Log')) === 'Show Log') this.log.show();
  }

  /**
   * Reaches the agent before anything secret is asked: an untrusted or changed
   * certificate runs the trust prompts (when `prompts`); an agent that does
   * not answer ends the log-in here. Returns the trust that works.
   */
  private async settleTrust(baseUrl: string, trust: Trust, prompts: boolean): Promise<Trust> {
    let current = { ...trust };
    // At most: untrusted → pinned → (certificate changed meanwhile) re-pinned.
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = new AgentClient({ baseUrl, ...current });
      try {
        await client.getHealth({ timeoutMs: CHECK_TIMEOUT_MS });
        return current;
      } catch (err) {
        const code = err instanceof AgentError ? err.code : undefined;
        if (prompts && code === 'tls_untrusted' && current.ca === undefined) {
          const pin = await askToTrust(baseUrl, this.log);
          if (pin === undefined) throw new LoginCancelled();
          await this.savePin(pin);
          current = { ...current, pin };
        } else if (prompts && code === 'tls_pin_mismatch' && current.pin !== undefined) {
          const pin = await askToRepin(baseUrl, current.pin, this.log);
          if (pin === undefined) throw new LoginCancelled();
          await this.savePin(pin);
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

  /** Logs in with a throwaway client and the settled trust; returns the token. */
  private async authenticate(baseUrl: string, username: string, password: string, trust: Trust): Promise<string> {
    const client = new AgentClient({ baseUrl, ...trust });
    try {
      const data = await client.login({ username, password });
      if (typeof data.token !== 'string' || data.token === '') {
        throw new AgentError('invalid_response', 'The agent accepted the login but sent no session token.', 'login');
      }
      return data.token;
    } finally {
      await client.close();
    }
  }

  private async useConnection(
    baseUrl: string,
    username: string,
    token: string,
    trust: Trust,
    existing?: AgentClient,
  ): Promise<void> {
    const client = existing ?? this.createClient(baseUrl, token, trust);
    const previous = this.connection;
    this.connection = { client, baseUrl, username, trust };
    this.lastContact = Date.now();
    if (previous !== undefined && previous.client !== client) await previous.client.close();
    // The resync effect reads the agent info and tells the language server and the views.
    this.dispatch({ type: 'connected', baseUrl, username, pin: trust.pin });
  }

  private async loadAgentInfo(client: AgentClient): Promise<void> {
    const [caps, health] = await Promise.allSettled([client.getCapabilities(), client.getHealth()]);
    if (client !== this.connection?.client) return;
    let problem: string | undefined;
    if (caps.status === 'rejected') {
      logFailure(this.log, 'Reading the agent capabilities', caps.reason);
      problem = `Could not read what the agent allows: ${describeError(caps.reason).message}`;
    }
    if (health.status === 'rejected') logFailure(this.log, 'Reading the agent health', health.reason);
    this.dispatch({
      type: 'agentInfo',
      capabilities: caps.status === 'fulfilled' ? caps.value : undefined,
      version: health.status === 'fulfilled' ? health.value.version : undefined,
      problem,
    });
  }

  private async restoreFailed(
    client: AgentClient,
    where: { baseUrl: string; username: string | undefined; trust: Trust },
    err: unknown,
  ): Promise<void> {
    const { baseUrl, username, trust } = where;
    const described = describeError(err);
    logFailure(this.log, 'Restoring the session', err);
    if (described.kind === 'session' && username !== undefined) {
      // Who and where are known: the password alone renews the session.
      await deleteAgentToken(this.secrets, { name: this.name, url: baseUrl });
      this.connection = { client, baseUrl, username, trust };
      this.dispatch({ type: 'restoredExpired', baseUrl, username, message: described.message });
      return;
    }
    if (described.code === 'agent_unreachable' || described.code === 'timeout') {
      // Keep the token: the agent may come back with the session still valid.
      this.connection = { client, baseUrl, username: username ?? '', trust };
      this.dispatch({ type: 'restoredUnreachable', baseUrl, username, message: described.message });
      return;
    }
    await client.close();
    if (described.kind === 'session') {
      await deleteAgentToken(this.secrets, { name: this.name, url: baseUrl });
      this.dispatch({ type: 'loggedOut', baseUrl });
      return;
    }
    this.dispatch({ type: 'failed', problem: described.message });
    if (described.code === 'tls_pin_mismatch') {
      const choice = await vscode.window.showErrorMessage(
        `WARNING: the certificate of the Lab Agent at ${baseUrl} no longer matches the pinned one. Not connected.`,
        'Review Certificate',
      );
      if (choice === 'Review Certificate') {
        const pin = await askToRepin(baseUrl, this.settings().pin, this.log);
        if (pin !== undefined) {
          await this.savePin(pin);
          await this.restore();
        }
      }
    }
  }

  /**
   * The AgentClient hook: a read-style call found the session gone. The
   * machine learns it; if the user is acting (or a prompt is open already) the
   * call waits for the one password prompt, else it fails and the user is told once.
   */
  private async reauthenticate(client: AgentClient): Promise<string | undefined> {
    if (client !== this.connection?.client) return undefined;
    if (!isLive(this.machine.info.state)) return undefined;
    this.report('unauthenticated', 'Your Lab Agent session ended on the agent.');
    if (this.passwordPrompt !== undefined) return this.passwordPrompt;
    if (this.userCommands > 0) return this.renew(this.machine.info.problem ?? 'Your Lab Agent session ended.');
    return undefined;
  }

  /** The one password prompt: a new token for the same user and agent, handed to every part of the extension. */
  private renew(why: string): Promise<string | undefined> {
    this.passwordPrompt ??= this.askAndRenew(why).finally(() => {
      this.passwordPrompt = undefined;
    });
    return this.passwordPrompt;
  }

  private async askAndRenew(why: string): Promise<string | undefined> {
    const c = this.connection;
    if (c === undefined) return undefined;
    let token: string | undefined;
    try {
      token = await this.askAndAuthenticate(
        passwordAgainTexts(c.username, c.baseUrl, why),
        c.baseUrl,
        c.username,
        c.trust,
      );
    } catch (err) {
      logFailure(this.log, 'Logging in again', err);
      void this.showWithLog(`Lab Agent login failed: ${describeError(err).message}`);
      return undefined;
    }
    if (token === undefined || c !== this.connection) return undefined;
    await storeAgentToken(this.secrets, { name: this.name, url: c.baseUrl }, token);
    // Set before the transition, so the language server is handed the new token with it.
    c.client.token = token;
    this.lastContact = Date.now();
    this.log.info(`${this.logPrefix}Logged in again to ${c.baseUrl} as ${c.username}`);
    this.dispatch({ type: 'connected', baseUrl: c.baseUrl, username: c.username, pin: c.trust.pin });
    return token;
  }

  /**
   * Asks for the password until the agent takes one: a refused password is
   * said under the box, which stays open; any other failure rejects.
   */
  private askAndAuthenticate(
    texts: { title: string; prompt: string },
    baseUrl: string,
    username: string,
    trust: Trust,
    beforeAttempt?: () => void,
  ): Promise<string | undefined> {
    return askPasswordUntilAccepted(texts.title, texts.prompt, async (password) => {
      beforeAttempt?.();
      try {
        return { done: await this.authenticate(baseUrl, username, password, trust) };
      } catch (err) {
        const described = describeError(err);
        if (described.code !== 'invalid_credentials') throw err;
        this.log.info(`The agent at ${baseUrl} refused the password of ${username}`);
        return { refused: `${described.message} Type the password again, or press Escape to cancel.` };
      }
    });
  }
}

function checkedUrl(input: string | undefined): string {
  if (input === undefined) throw new LoginCancelled();
  const parsed = parseAgentUrlInput(input);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.url;
}
