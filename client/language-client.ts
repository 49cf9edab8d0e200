/**
 * The language server (dist/server.js) over IPC. It starts when the first lab
 * document opens, learns every agent's session in its initializationOptions
 * and from SessionChangedNotification afterwards, and each lab document's
 * agent from LabAgentNotification (sent before the document opens, and when
 * its binding changes); it reports back how its own agent calls fare, per
 * agent (SessionStatusNotification).
 */
import * as vscode from 'vscode';
import type * as languageClientNode from 'vscode-languageclient/node';
import type { RequestType } from 'vscode-languageserver-protocol';
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import type * as protocol from '../common/protocol';
import type { AgentSessionSettings, ServerInitializationOptions, SessionStatusParams } from '../common/protocol';
import { LAB_GLOB } from './labs/workspace-labs';
import { DEFAULT_AGENT } from './model/agent-list';
import { SERVER_NODE_OPTIONS } from '../common/server-options';
import type { Log } from './log';

const LANGUAGE_ID = 'lab-yaml';
/** A server that crashes this often within RESTART_WINDOW_MS is left stopped (as vscode-eslint does). */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class LabLanguageClient implements vscode.Disposable {
  /** Set by start(): the client, whether it runs, and the typed custom messages. */
  private server: { client: LanguageClient; running: Promise<boolean>; messages: typeof protocol } | undefined;
  /** Each agent's session last sent, as JSON, so that unchanged sessions are not sent again. */
  private readonly lastSessions = new Map<string, string>();
  /** Each agent's session state last seen (agentChanged). */
  private readonly lastStates = new Map<string, string>();
  /** Each open lab document's agent as last sent. */
  private readonly sentAgents = new Map<string, string>();
  /** The node states last sent per lab, as JSON; a new server is sent them again. */
  private readonly sentNodeStates = new Map<string, string>();
  /** When the server crashed lately, to stop restarting one that keeps crashing. */
  private readonly crashes: number[] = [];
  /** A failure to start is told to the user once, whichever handler sees it first. */
  private startFailureTold = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Log,
    /** Every agent's session by name (null: logged out), the default agent's included. */
    private readonly currentSessions: () => Map<string, AgentSessionSettings | null>,
    /** The agent a lab document is bound to. */
    private readonly agentOf: (uri: vscode.Uri) => string,
    private readonly onStatus: (status: SessionStatusParams) => void,
  ) {
    if (vscode.workspace.textDocuments.some((d) => d.languageId === LANGUAGE_ID)) {
      // Once activate() has returned: loading the client and starting the server are not part of activation.
      const timer = setTimeout(() => void this.start(), 0);
      this.subscriptions.push({ dispose: () => clearTimeout(timer) });
    } else {
      this.subscriptions.push(
        vscode.workspace.onDidOpenTextDocument((d) => {
          if (d.languageId === LANGUAGE_ID) void this.start();
        }),
      );
    }
  }

  /** Starts the server once; resolves to whether it runs. */
  start(): Promise<boolean> {
    if (this.server !== undefined) return this.server.running;
    const { client, messages } = this.create();
    const running: Promise<boolean> = client.start().then(
      () => {
        this.log.info('Language server started');
        return true;
      },
      (err: unknown) => {
        this.startFailed(err);
        return false;
      },
    );
    this.server = { client, running, messages };
    this.sentNodeStates.clear();
    this.sentAgents.clear();
    return running;
  }

  private create(): { client: LanguageClient; messages: typeof protocol } {
    // Required here rather than imported: loading the language client's modules (and
    // vscode-jsonrpc, which the typed messages are made of) would slow activation, and a
    // workspace without lab documents never needs them.
    const { LanguageClient, TransportKind, ErrorAction, CloseAction, RevealOutputChannelOn } =
      require('vscode-languageclient/node') as typeof languageClientNode;
    const messages = require('../common/protocol') as typeof protocol;
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_NODE_OPTIONS] } },
      debug: {
        module,
        transport: TransportKind.ipc,
        options: { execArgv: [...SERVER_NODE_OPTIONS, '--nolazy', '--inspect=6009'] },
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { language: LANGUAGE_ID, scheme: 'file' },
        { language: LANGUAGE_ID, scheme: 'untitled' },
      ],
      // Deleted and re-created lab files only: VS Code may keep a closed editor's document open long after its
      // file is deleted, and the server clears that document's Problems when told.
      synchronize: { fileEvents: this.labFileWatcher() },
      initializationOptions: (): ServerInitializationOptions => {
        const sessions = this.currentSessions();
        this.lastSessions.clear();
        for (const [name, session] of sessions) this.lastSessions.set(name, JSON.stringify(session));
        const agents = Object.fromEntries([...sessions].filter(([name]) => name !== DEFAULT_AGENT));
        return { session: sessions.get(DEFAULT_AGENT) ?? null, agents };
      },
      middleware: {
        // The server learns the document's agent before its text: its first checks go to that agent.
        didOpen: async (document, next) => {
          await this.sendAgentOf(document.uri);
          return next(document);
        },
        didClose: (document, next) => {
          this.sentAgents.delete(document.uri.toString());
          return next(document);
        },
      },
      // One channel: the server's messages go to the Lab Agent log that Show Log opens.
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationFailedHandler: (error: unknown) => {
        this.startFailed(error);
        return false;
      },
      errorHandler: {
        error: (error, _message, count) => {
          this.log.error(`Language server connection error: ${error.message}`);
          return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
        },
        closed: () => {
          const now = Date.now();
          this.crashes.push(now);
          while (this.crashes.length > 0 && this.crashes[0] < now - RESTART_WINDOW_MS) this.crashes.shift();
          if (this.crashes.length <= MAX_RESTARTS) {
            this.log.warn('The language server stopped unexpectedly; restarting it.');
            return { action: CloseAction.Restart, handled: true };
          }
          this.tellUser(
            `The Lab Agent language server stopped ${this.crashes.length} times in three minutes and will not be restarted: completion, diagnostics and lenses are off until you reload the window.`,
          );
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient('labAgent', 'Lab Agent Language Server', serverOptions, clientOptions);
    client.onNotification(messages.SessionStatusNotification, (status) => this.onStatus(status));
    return { client, messages };
  }

  private labFileWatcher(): vscode.FileSystemWatcher {
    const watcher = vscode.workspace.createFileSystemWatcher(LAB_GLOB, false, true, false);
    this.subscriptions.push(watcher);
    return watcher;
  }

  /** Logs why the server did not start and tells the user once, with the way to the log. */
  private startFailed(err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    this.log.error(`The language server did not start: ${reason}`);
    if (this.startFailureTold) return;
    this.startFailureTold = true;
    this.tellUser(
      `The Lab Agent language server did not start (${reason}): completion, diagnostics and lenses are off.`,
    );
  }

  private tellUser(message: string): void {
    void vscode.window.showErrorMessage(message, 'Show Log').then((choice) => {
      if (choice !== undefined) this.log.show();
    });
  }

  /**
   * Tells a running server about the session (null: logged out); a server that starts later reads it at
   * initialize. `force` sends it even unchanged, so the server reconnects and computes its results again.
   */
  sessionChanged(options: { force?: string } = {}): void {
    const server = this.server;
    if (server === undefined) return;
    void server.running
      .then(async (running) => {
        if (!running) return;
        const sessions = this.currentSessions();
        // An agent removed from the list: the server drops its session (its documents are rebound by the client).
        for (const name of this.lastSessions.keys()) if (!sessions.has(name)) sessions.set(name, null);
        for (const [name, session] of sessions) {
          const key = JSON.stringify(session);
          if (key === this.lastSessions.get(name) && options.force !== name) continue;
          this.lastSessions.set(name, key);
          await server.client.sendNotification(server.messages.SessionChangedNotification, {
            session,
            ...(name === DEFAULT_AGENT ? {} : { agent: name }),
          });
        }
      })
      .catch((err: unknown) =>
        this.log.warn(`Could not tell the language server about the session: ${(err as Error)?.message}`),
      );
  }

  /**
   * An agent's session changed. One that has just become unreachable is sent
   * again as it is: the server's plans and lenses are from before, and only
   * its own calls, made afresh, show the user that agent's labs cannot plan.
   */
  agentChanged(name: string, state: string): void {
    const before = this.lastStates.get(name);
    this.lastStates.set(name, state);
    const lost = state === 'unreachable' && before !== undefined && before !== 'unreachable';
    this.sessionChanged(lost ? { force: name } : {});
  }

  /** Lab bindings may have changed (a move, a folder setting, the list of agents): the server hears of the new ones. */
  bindingsChanged(): void {
    const server = this.server;
    if (server === undefined) return;
    void server.running
      .then(async (running) => {
        if (!running) return;
        for (const document of vscode.workspace.textDocuments)
          if (this.sentAgents.has(document.uri.toString())) await this.sendAgentOf(document.uri);
      })
      .catch((err: unknown) =>
        this.log.warn(`Could not tell the language server about lab agents: ${(err as Error)?.message}`),
      );
  }

  /** Tells the server the document's agent, when it is news. */
  private async sendAgentOf(uri: vscode.Uri): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    const key = uri.toString();
    const agent = this.agentOf(uri);
    if (this.sentAgents.get(key) === agent) return;
    this.sentAgents.set(key, agent);
    await server.client.sendNotification(server.messages.LabAgentNotification, { uri: key, agent });
  }

  labStateChanged(uri: vscode.Uri): void {
    const server = this.server;
    if (server === undefined) return;
    void server.running
      .then((running) =>
        running
          ? server.client.sendNotification(server.messages.LabStateChangedNotification, { uri: uri.toString() })
          : undefined,
      )
      .catch((err: unknown) =>
        this.log.warn(`Could not tell the language server about the lab state: ${(err as Error)?.message}`),
      );
  }

  /** Tells the server the node states the Labs view read, once per change. */
  nodeStates(uri: vscode.Uri, states: Record<string, string> | undefined): void {
    const server = this.server;
    if (server === undefined) return;
    const key = uri.toString();
    const sent = JSON.stringify(states ?? null);
    if (this.sentNodeStates.get(key) === sent) return;
    this.sentNodeStates.set(key, sent);
    void server.running
      .then((running) =>
        running
          ? server.client.sendNotification(server.messages.NodeStatesNotification, { uri: key, states: states ?? null })
          : undefined,
      )
      .catch((err: unknown) =>
        this.log.warn(`Could not tell the language server about node states: ${(err as Error)?.message}`),
      );
  }

  /** Sends a custom request, starting the server if needed; undefined when it does not run. */
  async request<P extends object, R>(type: RequestType<P, R, void>, params: P): Promise<R | undefined> {
    if (!(await this.start()) || this.server === undefined) return undefined;
    // A generic P does not narrow through the client's RequestParam<P> (P | undefined for null): the method and params go as they are.
    return this.server.client.sendRequest<R>(type.method, params);
  }

  refreshCatalogue(): void {
    const server = this.server;
    if (server === undefined) return;
    void server.running
      .then((running) => (running ? server.client.sendRequest(server.messages.RefreshCatalogueRequest) : undefined))
      .catch((err: unknown) =>
        this.log.warn(`The language server could not refresh its catalogue: ${(err as Error)?.message}`),
      );
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    void this.server?.client.stop().catch(() => undefined);
  }
}
