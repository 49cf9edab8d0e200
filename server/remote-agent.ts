/**
 * One agent's session as the client handed it to us (initializationOptions,
 * then SessionChanged naming that agent). Remote features go through call(): without a session they
 * are skipped, and every outcome keeps the SessionStatus shown to the user
 * current ('none', 'connected', or 'error' with a code and advice).
 */
import type { Connection } from 'vscode-languageserver/node';
import { AgentClient } from '../common/api/client';
import {
  DEFAULT_AGENT_NAME,
  SessionStatusNotification,
  type AgentSessionSettings,
  type SessionStatusParams,
} from '../common/protocol';
import { describeAgentProblem, isCancellation, type AgentProblem } from './agent-problems';
import type { Log } from './log';

/** The agent a document is bound to (agent-pool.ts). */
export type AgentOf = (uri: string) => RemoteAgent;

export type RemoteOutcome<T> = { ok: true; value: T } | { ok: false; problem: AgentProblem; cancelled: boolean };

/** How long the check of a new session may take before it is reported as failing. */
const SESSION_CHECK_TIMEOUT_MS = 5000;

export class RemoteAgent {
  private client: AgentClient | undefined;
  /** What the client was last told; undefined until the first status is sent. */
  private status: SessionStatusParams | undefined;
  /** Bumped on every session change, so outcomes of calls made with an older session are ignored. */
  private generation = 0;
  private readonly listeners: (() => void)[] = [];

  constructor(
    /** The agent's name in the client's list (DEFAULT_AGENT_NAME for the single-agent settings). */
    readonly name: string,
    private readonly connection: Connection,
    private readonly log: Log,
  ) {}

  /** How logs name the agent: nothing for the default one. */
  private get named(): string {
    return this.name === DEFAULT_AGENT_NAME ? '' : ` (agent "${this.name}")`;
  }

  get active(): boolean {
    return this.client !== undefined;
  }

  /** Called with the session of initializationOptions and of each SessionChanged; anything malformed is reported. */
  update(raw: unknown): void {
    this.generation++;
    // Calls still in flight for the old session end as 'aborted' and are ignored.
    void this.client?.close().catch(() => undefined);
    this.client = undefined;
    const parsed = parseSessionSettings(raw);
    this.log.setSecrets(this.name, parsed.settings ? [parsed.settings.token] : []);
    if (parsed.error !== undefined) {
      this.setStatus({ state: 'error', code: 'invalid_session_settings', message: parsed.error });
    } else if (parsed.settings === null) {
      this.setStatus({ state: 'none' });
    } else {
      this.connect(parsed.settings);
    }
    for (const listener of this.listeners) listener();
  }

  /** On shutdown: release the connections without announcing anything. */
  async close(): Promise<void> {
    this.generation++;
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  onDidChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Runs one agent call; undefined when there is no session (remote features are then skipped silently). */
  async call<T>(run: (client: AgentClient) => Promise<T>): Promise<RemoteOutcome<T> | undefined> {
    const client = this.client;
    if (client === undefined) return undefined;
    const generation = this.generation;
    try {
      const value = await run(client);
      if (generation === this.generation) this.setStatus({ state: 'connected' });
      return { ok: true, value };
    } catch (error) {
      const problem = describeAgentProblem(error);
      const cancelled = isCancellation(error);
      if (!cancelled && generation === this.generation) {
        if (problem.affectsSession) this.setStatus({ state: 'error', code: problem.code, message: problem.message });
        this.log.warn(`agent call failed${this.named}: ${problem.code}: ${problem.message}`);
      }
      return { ok: false, problem, cancelled };
    }
  }

  private connect(settings: AgentSessionSettings): void {
    // A URL the client refuses (not https, malformed) surfaces as the check's error, with its code.
    this.client = new AgentClient({
      baseUrl: settings.baseUrl,
      token: settings.token,
      ca: settings.ca,
      pin: settings.pin,
    });
    // Check the session now so the user learns about an expired token before using a remote feature.
    void this.call((client) => client.getSession({ timeoutMs: SESSION_CHECK_TIMEOUT_MS }));
  }

  private setStatus(status: SessionStatusParams): void {
    const last = this.status;
    // One lost session is reported once: the same error code from the next operation (its message
    // names that operation) is no news, and each report may prompt the user to log in.
    const same =
      last !== undefined &&
      status.state === last.state &&
      status.code === last.code &&
      (status.state === 'error' || status.message === last.message);
    this.status = status;
    if (same) return;
    // The default agent's status is sent as before several agents: without a name.
    const named = this.name === DEFAULT_AGENT_NAME ? status : { ...status, agent: this.name };
    this.connection.sendNotification(SessionStatusNotification, named).catch((error: unknown) => {
      this.log.error('could not send the session status', error);
    });
  }
}

interface ParsedSettings {
  settings: AgentSessionSettings | null;
  error?: string;
}

function parseSessionSettings(raw: unknown): ParsedSettings {
  if (raw === null || raw === undefined) return { settings: null };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      settings: null,
      error: 'The session settings sent to the language server are not an object; log in again.',
    };
  }
  const record = raw as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof record.baseUrl !== 'string' || record.baseUrl === '') problems.push('baseUrl must be a non-empty string');
  if (typeof record.token !== 'string') problems.push('token must be a string');
  for (const key of ['ca', 'pin'] as const) {
    if (record[key] !== undefined && record[key] !== null && typeof record[key] !== 'string') {
      problems.push(`${key} must be a string when given`);
    }
  }
  if (problems.length > 0) {
    return {
      settings: null,
      error: `The session settings sent to the language server are invalid (${problems.join('; ')}); log in again.`,
    };
  }
  const settings: AgentSessionSettings = { baseUrl: record.baseUrl as string, token: record.token as string };
  if (typeof record.ca === 'string') settings.ca = record.ca;
  if (typeof record.pin === 'string') settings.pin = record.pin;
  return { settings };
}
