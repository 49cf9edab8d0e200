/**
 * The language server (dist/server.js) over IPC. It starts when the first lab
 * document opens, learns the agent session in its initializationOptions and
 * from SessionChangedNotification afterwards, and reports back how its own
 * agent calls fare (SessionStatusNotification).
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import {
  LabStateChangedNotification,
  RefreshCatalogueRequest,
  SessionChangedNotification,
  SessionStatusNotification,
  type AgentSessionSettings,
  type LabStateChangedParams,
  type ServerInitializationOptions,
  type SessionChangedParams,
  type SessionStatusParams,
} from '../common/protocol';
import type { Log } from './log';

const LANGUAGE_ID = 'lab-yaml';

export class LabLanguageClient implements vscode.Disposable {
  private readonly client: LanguageClient;
  private started: Promise<boolean> | undefined;
  /** The session last sent, as JSON, so that unchanged sessions are not sent again. */
  private lastSession: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    context: vscode.ExtensionContext,
    private readonly log: Log,
    private readonly currentSession: () => AgentSessionSettings | null,
    onStatus: (status: SessionStatusParams) => void,
  ) {
    const module = context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { language: LANGUAGE_ID, scheme: 'file' },
        { language: LANGUAGE_ID, scheme: 'untitled' },
      ],
      initializationOptions: (): ServerInitializationOptions => {
        const session = this.currentSession();
        this.lastSession = JSON.stringify(session);
        return { session };
      },
    };
    this.client = new LanguageClient('labAgent', 'Lab Agent Language Server', serverOptions, clientOptions);
    this.client.onNotification(SessionStatusNotification, (status: SessionStatusParams) => onStatus(status));

    if (vscode.workspace.textDocuments.some((d) => d.languageId === LANGUAGE_ID)) void this.start();
    else {
      this.subscriptions.push(
        vscode.workspace.onDidOpenTextDocument((d) => {
          if (d.languageId === LANGUAGE_ID) void this.start();
        }),
      );
    }
  }

  /** Starts the server once; resolves to whether it runs. */
  start(): Promise<boolean> {
    if (this.started !== undefined) return this.started;
    const started: Promise<boolean> = this.client.start().then(
      () => {
        this.log.info('Language server started');
        return true;
      },
      (err: unknown) => {
        this.log.error(`The language server did not start: ${(err as Error)?.message ?? String(err)}`);
        return false;
      },
    );
    this.started = started;
    return started;
  }

  /** Tells a running server about the session (null: logged out); a server that starts later reads it at initialize. */
  sessionChanged(): void {
    if (this.started === undefined) return;
    void this.started.then((running) => {
      const session = this.currentSession();
      const key = JSON.stringify(session);
      if (!running || key === this.lastSession) return;
      this.lastSession = key;
      const params: SessionChangedParams = { session };
      return this.client.sendNotification(SessionChangedNotification, params);
    }).catch((err: unknown) => this.log.warn(`Could not tell the language server about the session: ${(err as Error)?.message}`));
  }

  labStateChanged(uri: vscode.Uri): void {
    if (this.started === undefined) return;
    const params: LabStateChangedParams = { uri: uri.toString() };
    void this.started
      .then((running) => (running ? this.client.sendNotification(LabStateChangedNotification, params) : undefined))
      .catch((err: unknown) => this.log.warn(`Could not tell the language server about the lab state: ${(err as Error)?.message}`));
  }

  refreshCatalogue(): void {
    if (this.started === undefined) return;
    void this.started
      .then((running) => (running ? this.client.sendRequest(RefreshCatalogueRequest) : undefined))
      .catch((err: unknown) => this.log.warn(`The language server could not refresh its catalogue: ${(err as Error)?.message}`));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    if (this.started !== undefined) void this.client.stop().catch(() => undefined);
  }
}
