/**
 * A small LSP client for tests: spawns the bundled language server
 * (dist/server.js --stdio) and talks JSON-RPC to it as an editor would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  CancellationTokenSource,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CancellationToken,
  type MessageConnection,
  type NotificationType,
} from 'vscode-jsonrpc/node';
import type {
  ClientCapabilities,
  Diagnostic,
  InitializeResult,
  PublishDiagnosticsParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol';
import {
  SessionStatusNotification,
  type ServerInitializationOptions,
  type SessionStatusParams,
} from '../../common/protocol';

/** The bundle under test; LAB_SERVER_BUNDLE points elsewhere, e.g. at an experimental build. */
export const SERVER_BUNDLE = process.env.LAB_SERVER_BUNDLE ?? join(__dirname, '..', '..', '..', 'dist', 'server.js');

export interface StartOptions {
  initializationOptions: ServerInitializationOptions;
  /** Defaults to a client that supports code lens refresh and resolve. */
  capabilities?: ClientCapabilities;
}

const DEFAULT_CAPABILITIES: ClientCapabilities = {
  // As VS Code: edits may create, rename and delete files.
  workspace: {
    codeLens: { refreshSupport: true },
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    // As VS Code: items may share one edit range given in CompletionList.itemDefaults.
    completion: { completionItem: { snippetSupport: false }, completionList: { itemDefaults: ['editRange'] } },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    rename: { prepareSupport: true },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    codeLens: {},
  },
};

type Waiter = () => boolean;

export class LspClient {
  /** Every publishDiagnostics, per URI, in arrival order. */
  readonly diagnostics = new Map<string, PublishDiagnosticsParams[]>();
  readonly statuses: SessionStatusParams[] = [];
  readonly logs: string[] = [];
  stderr = '';
  codeLensRefreshes = 0;
  exitCode: number | null = null;
  initializeResult: InitializeResult | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly versions = new Map<string, number>();

  private constructor(
    private readonly process: ChildProcess,
    private readonly connection: MessageConnection,
  ) {}

  static async start(options: StartOptions): Promise<LspClient> {
    const child = spawn(process.execPath, [SERVER_BUNDLE, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const client = new LspClient(child, connection);
    child.stderr.on('data', (chunk: Buffer) => {
      client.stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      client.exitCode = code ?? -1;
      client.poke();
    });
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const list = client.diagnostics.get(params.uri) ?? [];
      list.push(params);
      client.diagnostics.set(params.uri, list);
      client.poke();
    });
    connection.onNotification(SessionStatusNotification, (params: SessionStatusParams) => {
      client.statuses.push(params);
      client.poke();
    });
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      client.logs.push(params.message);
    });
    connection.onRequest('workspace/codeLens/refresh', () => {
      client.codeLensRefreshes++;
      client.poke();
      return null;
    });
    connection.listen();
    client.initializeResult = await connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: options.capabilities ?? DEFAULT_CAPABILITIES,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  request<R>(method: string, params: unknown, token?: CancellationToken): Promise<R> {
    return token
      ? this.connection.sendRequest<R>(method, params, token)
      : this.connection.sendRequest<R>(method, params);
  }

  /** Sends a request and cancels it after `cancelAfterMs`. */
  requestCancelled<R>(method: string, params: unknown, cancelAfterMs: number): Promise<R> {
    const source = new CancellationTokenSource();
    setTimeout(() => source.cancel(), cancelAfterMs);
    return this.connection.sendRequest<R>(method, params, source.token);
  }

  /** A custom message of common/protocol.ts with its typed parameters, or any method with anything (robustness). */
  notify<P>(type: NotificationType<P>, params: P): Promise<void>;
  notify(method: string, params: unknown): Promise<void>;
  notify(method: string | NotificationType<unknown>, params: unknown): Promise<void> {
    return this.connection.sendNotification(typeof method === 'string' ? method : method.method, params);
  }

  open(uri: string, text: string): Promise<void> {
    this.versions.set(uri, 1);
    return this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'lab-yaml', version: 1, text } });
  }

  /** Sends one didChange with the given changes; returns the new version. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  close(uri: string): Promise<void> {
    return this.notify('textDocument/didClose', { textDocument: { uri } });
  }

  /** Resolves once `condition` holds (checked now and after every message), or rejects after `timeoutMs`. */
  waitUntil<T>(what: string, condition: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check: Waiter = () => {
        const value = condition();
        if (value === undefined || value === false) {
          if (this.exitCode !== null) {
            finish();
            reject(new Error(`server exited (${this.exitCode}) while waiting for ${what}\n${this.stderr}`));
            return true;
          }
          return false;
        }
        finish();
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  /** The first publication for `uri` (after `after` earlier ones) whose diagnostics satisfy `accept`. */
  waitForDiagnostics(
    uri: string,
    accept: (diagnostics: Diagnostic[]) => boolean,
    options: { after?: number; version?: number; timeoutMs?: number } = {},
  ): Promise<Diagnostic[]> {
    return this.waitUntil(
      `diagnostics of ${uri}`,
      () => {
        const list = (this.diagnostics.get(uri) ?? []).slice(options.after ?? 0);
        const found = list.find(
          (p) => (options.version === undefined || p.version === options.version) && accept(p.diagnostics),
        );
        return found?.diagnostics;
      },
      options.timeoutMs,
    );
  }

  publicationCount(uri: string): number {
    return this.diagnostics.get(uri)?.length ?? 0;
  }

  async stop(): Promise<void> {
    if (this.exitCode === null) {
      const exited = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
      try {
        await Promise.race([this.connection.sendRequest('shutdown'), delay(2000, { unref: true })]);
        await this.connection.sendNotification('exit');
      } catch {
        // The server may already be gone; the kill below covers it.
      }
      await Promise.race([exited, delay(2000, { unref: true }).then(() => this.process.kill('SIGKILL'))]);
    }
    this.connection.dispose();
  }

  private poke(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** A diagnostic's message as text (LSP allows markup there; this server sends plain strings). */
export function messageOf(diagnostic: Diagnostic): string {
  return typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
}

/** Resolves after `ms`; with `unref`, the timer does not keep the test process alive. */
export function delay(ms: number, options: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref) timer.unref();
  });
}
