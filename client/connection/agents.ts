/**
 * Every agent of the workspace, each with its own Session: the default agent
 * of the single-agent settings and those of labAgent.agents. The list follows
 * the settings: an agent added there gets a session (restored from its stored
 * token), one removed is disposed. Sessions share nothing, so one agent being
 * down or logged out never blocks or slows another.
 */
import * as vscode from 'vscode';
import type { Log } from '../log';
import { DEFAULT_AGENT, type AgentEntry } from '../model/agent-list';
import { logFailure } from '../log';
import { forgetStaleTokens } from '../model/agent-tokens';
import { NotLoggedIn, Session } from './session';
import { readAgentList } from './settings';

export class Agents implements vscode.Disposable {
  private readonly sessions = new Map<string, Session>();
  private readonly watches = new Map<string, vscode.Disposable>();
  private entries: AgentEntry[] = [];
  private lastProblems = '';
  private readonly changed = new vscode.EventEmitter<Session | undefined>();
  private readonly resynced = new vscode.EventEmitter<Session>();
  private readonly configWatch: vscode.Disposable;
  /** An agent's session changed (its Session), or agents were added or removed (undefined). */
  readonly onDidChange = this.changed.event;
  /** An agent answers again, or its session was renewed: what shows its data loads again. */
  readonly onDidResync = this.resynced.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Log,
  ) {
    this.sync(false);
    this.configWatch = vscode.workspace.onDidChangeConfiguration((e) => {
      // labAgent.agentUrl too: the default agent's token of a URL it left is not kept (a log-in elsewhere writes it).
      if (e.affectsConfiguration('labAgent.agents') || e.affectsConfiguration('labAgent.agentUrl')) this.sync(true);
    });
  }

  /** The agent of the single-agent settings: always there. */
  get defaultSession(): Session {
    const session = this.sessions.get(DEFAULT_AGENT);
    if (session === undefined) throw new Error('The default agent has no session.');
    return session;
  }

  /** The named agent's session, or undefined when no such agent is configured. */
  get(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  /** Every agent's session, the default one first, then in the order of labAgent.agents. */
  all(): Session[] {
    return this.entries.flatMap((e) => this.sessions.get(e.name) ?? []);
  }

  names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /** Restores every agent's stored session, each on its own: a slow agent does not hold up the others. */
  restoreAll(): void {
    for (const session of this.all()) this.restore(session);
  }

  /** Runs a command the user started: a session of any agent found lost meanwhile asks for the password at once. */
  duringUserCommand<T>(run: () => Promise<T>): Promise<T> {
    return this.all().reduce<() => Promise<T>>((inner, s) => () => s.duringUserCommand(inner), run)();
  }

  /**
   * A command failed for want of a session: the agent it needed offers its log-in, or
   * the agent whose session ended renews it (else the default one).
   */
  async sessionLost(err: unknown): Promise<boolean> {
    const needed = err instanceof NotLoggedIn ? this.sessions.get(err.agent) : undefined;
    const expired = this.all().find((s) => s.current.state === 'expired');
    return (needed ?? expired ?? this.defaultSession).sessionLost(err);
  }

  /** Follows the settings now (after a command changed labAgent.agents), without restoring new agents. */
  reload(): void {
    this.sync(false);
  }

  dispose(): void {
    this.configWatch.dispose();
    for (const watch of this.watches.values()) watch.dispose();
    for (const session of this.sessions.values()) session.dispose();
    this.sessions.clear();
    this.changed.dispose();
    this.resynced.dispose();
  }

  private drop(name: string): void {
    this.watches.get(name)?.dispose();
    this.watches.delete(name);
    this.sessions.get(name)?.dispose();
    this.sessions.delete(name);
  }

  private restore(session: Session): void {
    session
      .restore()
      .catch((err: unknown) => logFailure(this.log, `Restoring the session of agent "${session.name}"`, err));
  }

  /** Brings the sessions in line with the settings; `restore`: restore the sessions of agents just added. */
  private sync(restore: boolean): void {
    const list = readAgentList();
    const problems = list.problems.join('\n');
    if (problems !== '' && problems !== this.lastProblems) {
      for (const line of list.problems) this.log.warn(line);
      void vscode.window.showWarningMessage(`Lab Agent: ${list.problems[0]}`);
    }
    this.lastProblems = problems;
    const previous = this.entries;
    const before = new Map(previous.map((e) => [e.name, e]));
    this.entries = list.agents;
    let listChanged = false;
    for (const entry of list.agents) {
      const old = before.get(entry.name);
      before.delete(entry.name);
      // The default agent's URL changes by logging in; another's by editing its entry, which starts it afresh.
      if (entry.name !== DEFAULT_AGENT && old !== undefined && !sameConnection(old, entry)) this.drop(entry.name);
      if (this.sessions.has(entry.name)) continue;
      const session = new Session(this.secrets, this.log, entry.name);
      this.sessions.set(entry.name, session);
      this.watches.set(
        entry.name,
        vscode.Disposable.from(
          session.onDidChange(() => this.changed.fire(session)),
          session.onDidResync(() => this.resynced.fire(session)),
        ),
      );
      listChanged = true;
      if (restore) this.restore(session);
    }
    for (const name of before.keys()) {
      this.drop(name);
      listChanged = true;
    }
    // Tokens of agents removed or moved to another URL (the default one by a log-in elsewhere; by hand in
    // settings.json too) are not kept.
    forgetStaleTokens(this.secrets, previous, list.agents).catch((err: unknown) =>
      logFailure(this.log, 'Forgetting the tokens of removed agents', err),
    );
    if (listChanged) this.changed.fire(undefined);
  }
}

function sameConnection(a: AgentEntry, b: AgentEntry): boolean {
  // Not the pin: a log-in stores the one the user accepted, and the session it belongs to goes on.
  return a.url === b.url && a.caFile === b.caFile;
}
