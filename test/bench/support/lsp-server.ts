/**
 * A language server in its own process, spoken to over stdio as an editor
 * would: any command (ours or yaml-language-server), publications recorded
 * with their arrival time, so that "edit → diagnostics" can be timed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type {
  ClientCapabilities,
  PublishDiagnosticsParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol';
import { cpuMsOf, rssOf } from './stats';

/** What VS Code tells a server it can do, for the requests the bench makes. */
export const CAPABILITIES: ClientCapabilities = {
  workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true },
    completion: {
      completionItem: {
        snippetSupport: true,
        documentationFormat: ['markdown', 'plaintext'],
        labelDetailsSupport: true,
      },
      completionList: { itemDefaults: ['editRange', 'insertTextFormat'] },
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
  },
};

export interface Publication {
  version?: number;
  count: number;
  /** performance.now() when it arrived. */
  at: number;
}

export class LspServer {
  /** Every publishDiagnostics, per URI, in arrival order. */
  readonly publications = new Map<string, Publication[]>();
  stderr = '';
  exitCode: number | null = null;
  /** From spawning the process to the answer to `initialize`, in ms. */
  startupMs = NaN;
  private readonly versions = new Map<string, number>();
  private readonly waiters = new Set<() => boolean>();

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
  ) {}

  /**
   * Spawns `node <script> --stdio` and initializes it. `settings` answers the
   * server's workspace/configuration requests by section.
   */
  static async start(options: {
    name: string;
    script: string;
    /** Node options for the server process, e.g. --cpu-prof. */
    nodeArgs?: string[];
    initializationOptions?: unknown;
    settings?: Record<string, unknown>;
    rootUri?: string | null;
  }): Promise<LspServer> {
    const spawned = performance.now();
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, '--stdio'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const server = new LspServer(options.name, child, connection);
    // Never leave a server behind, even when the bench dies.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    child.stderr.on('data', (chunk: Buffer) => {
      if (server.stderr.length < 64 * 1024) server.stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      server.exitCode = code ?? -1;
      server.poke();
    });
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const at = performance.now();
      const list = server.publications.get(params.uri) ?? [];
      list.push({ version: params.version, count: params.diagnostics.length, at });
      server.publications.set(params.uri, list);
      server.poke();
    });
    const settings = options.settings ?? {};
    connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) =>
      params.items.map((item) => (item.section === undefined ? settings : lookup(settings, item.section)) ?? null),
    );
    // Registrations, progress and messages the servers may send: accept and ignore.
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('workspace/codeLens/refresh', () => null);
    connection.onRequest('workspace/semanticTokens/refresh', () => null);
    connection.onNotification(() => undefined);
    connection.listen();
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: options.rootUri ?? null,
      capabilities: CAPABILITIES,
      initializationOptions: options.initializationOptions,
      workspaceFolders: null,
    });
    server.startupMs = performance.now() - spawned;
    await connection.sendNotification('initialized', {});
    return server;
  }

  rss(): number | undefined {
    const pid = this.child.pid;
    return pid === undefined ? undefined : rssOf(pid);
  }

  /** CPU time the server process has used so far, in ms (Linux). */
  cpuMs(): number | undefined {
    const pid = this.child.pid;
    return pid === undefined ? undefined : cpuMsOf(pid);
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  open(uri: string, languageId: string, text: string): Promise<void> {
    this.versions.set(uri, 1);
    return this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  /** didOpen, then the time from it to the first diagnostics for `uri`, in ms. */
  async openUntilDiagnostics(uri: string, languageId: string, text: string, timeoutMs?: number): Promise<number> {
    const start = performance.now();
    await this.open(uri, languageId, text);
    return (await this.waitForPublication(uri, 0, () => true, timeoutMs)).at - start;
  }

  /** One didChange; returns the new version. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  publicationCount(uri: string): number {
    return this.publications.get(uri)?.length ?? 0;
  }

  /** The first publication for `uri` after the first `after` ones that satisfies `accept`. */
  waitForPublication(
    uri: string,
    after: number,
    accept: (p: Publication) => boolean,
    timeoutMs = 30_000,
  ): Promise<Publication> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = (this.publications.get(uri) ?? []).slice(after).find(accept);
        if (found) {
          done();
          resolve(found);
          return true;
        }
        if (this.exitCode !== null) {
          done();
          reject(new Error(`${this.name} exited (${this.exitCode})\n${this.stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name}: no diagnostics for ${uri} within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  async stop(): Promise<void> {
    if (this.exitCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      try {
        await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
        await this.connection.sendNotification('exit');
      } catch {
        // Already gone: the kill below covers it.
      }
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    this.connection.dispose();
  }

  private poke(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

function lookup(settings: Record<string, unknown>, section: string): unknown {
  if (section in settings) return settings[section];
  let value: unknown = settings;
  for (const part of section.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
