/**
 * Wires LSP messages to the services. Every handler is guarded: whatever a
 * service throws is logged and answered with an empty result, so no input can
 * take the server down.
 */
import {
  CodeActionKind,
  ResponseError,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import {
  FreeInterfacesRequest,
  LabStateChangedNotification,
  NodeStatesNotification,
  PlanRequest,
  RefreshCatalogueRequest,
  SessionChangedNotification,
  TopologyEditRequest,
  TopologyRequest,
} from '../common/protocol';
import { Catalogue } from './catalogue';
import { ConfigFiles } from './config-files';
import { LabDocuments, type LabFile } from './documents';
import { Log } from './log';
import type { MessageQueue } from './message-queue';
import { RemoteAgent } from './remote-agent';
import { CodeActionService } from './services/code-actions';
import { CodeLensService } from './services/code-lens';
import { LabPlans } from './lab-plans';
import { CompletionService } from './services/completion';
import { findDefinition } from './services/definition';
import { DiagnosticsService } from './services/diagnostics';
import { HoverService } from './services/hover';
import { prepareRename, renameSymbol } from './services/rename';
import { documentSymbols } from './services/symbols';
import { freeInterfaces, topologyEdit, topologyOf } from './services/topology';

export function startServer(connection: Connection, queue: MessageQueue): void {
  const log = new Log(connection);
  const agent = new RemoteAgent(connection, log);
  // Each new model publishes its local diagnostics (the service is made below; models only change after that).
  const documents = new LabDocuments(log, (file, edits) => diagnostics.documentChanged(file, edits));
  const catalogue = new Catalogue(agent);
  // Known only once the client says what it supports (initialize).
  const clientSupports = { codeLensRefresh: false, completionEditRangeDefault: false };
  const completion = new CompletionService(catalogue, () => clientSupports.completionEditRangeDefault);
  const hover = new HoverService(catalogue);
  const codeActions = new CodeActionService(catalogue);
  // A config a lab names changed on disk: its agent diagnostics and its plan are asked for again.
  const configs = new ConfigFiles((uri) => {
    const file = documents.get(uri);
    if (!file) return;
    diagnostics.configsChanged(file);
    codeLens.labStateChanged(uri);
  }, log);
  const diagnostics = new DiagnosticsService(connection, documents, agent, configs, log);
  const applyEdits = (): void => void guarded('applying edits', undefined, () => documents.applyPending());
  // One plan per lab version and state, for the lens and the client's views alike.
  const plans = new LabPlans(agent, configs, (uri, plan) => codeLens.planned(uri, plan));
  const codeLens = new CodeLensService(connection, documents, agent, plans, log, () => clientSupports.codeLensRefresh);
  let initialSession: unknown = null;

  agent.onDidChange(() => {
    diagnostics.revalidateAll();
    codeLens.sessionChanged();
  });

  /** Runs a handler; a failure is logged and answered with `fallback`. Deliberate ResponseErrors pass through. */
  async function guarded<T>(what: string, fallback: T, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      log.error(`${what} failed`, error);
      return fallback;
    }
  }

  function withFile<T>(what: string, uri: string, fallback: T, run: (file: LabFile) => T | Promise<T>): Promise<T> {
    return guarded(what, fallback, () => {
      const file = documents.get(uri);
      return file ? run(file) : fallback;
    });
  }

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    clientSupports.codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    clientSupports.completionEditRangeDefault =
      params.capabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange') === true;
    const options = params.initializationOptions as { session?: unknown } | null | undefined;
    initialSession = typeof options === 'object' && options !== null ? (options.session ?? null) : null;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        // Words trigger completion through editor.quickSuggestions (package.json turns it on for strings: the
        // YAML grammar reads a half-typed key or value as one); these are the characters that start a new slot.
        completionProvider: { triggerCharacters: [':', ' ', '[', ','] },
        hoverProvider: true,
        definitionProvider: true,
        documentSymbolProvider: true,
        renameProvider: { prepareProvider: true },
        codeLensProvider: { resolveProvider: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      },
      serverInfo: { name: 'lab-yaml' },
    };
  });

  // Status notifications may only follow the initialize answer.
  connection.onInitialized(() => void guarded('initialized', undefined, () => agent.update(initialSession)));
  connection.onShutdown(() => guarded('shutdown', undefined, () => agent.close()));

  connection.onDidOpenTextDocument(
    (params) => void guarded('didOpen', undefined, () => diagnostics.documentChanged(documents.open(params))),
  );
  connection.onDidChangeTextDocument(
    (params) =>
      void guarded('didChange', undefined, () => {
        // The model follows once the edits already queued behind this one are in too: one reparse for a burst.
        if (documents.change(params)) queue.whenDrained(applyEdits);
      }),
  );
  connection.onDidCloseTextDocument(
    (params) =>
      void guarded('didClose', undefined, () => {
        documents.close(params.textDocument.uri);
        diagnostics.documentClosed(params.textDocument.uri);
        codeLens.documentClosed(params.textDocument.uri);
        configs.close(params.textDocument.uri);
      }),
  );

  connection.onCompletion((params, token) =>
    withFile('completion', params.textDocument.uri, null, (file) => completion.provide(file, params.position, token)),
  );
  connection.onHover((params, token) =>
    withFile('hover', params.textDocument.uri, null, (file) => hover.provide(file, params.position, token)),
  );
  connection.onDefinition((params) =>
    withFile('definition', params.textDocument.uri, null, (file) => findDefinition(file, params.position)),
  );
  connection.onDocumentSymbol((params) =>
    withFile('documentSymbol', params.textDocument.uri, [], (file) => documentSymbols(file)),
  );
  connection.onPrepareRename((params) =>
    withFile('prepareRename', params.textDocument.uri, null, (file) => prepareRename(file, params.position)),
  );
  connection.onRenameRequest((params) =>
    withFile('rename', params.textDocument.uri, null, (file) => renameSymbol(file, params.position, params.newName)),
  );
  connection.onCodeAction((params) =>
    withFile('codeAction', params.textDocument.uri, [], (file) => codeActions.provide(file, params)),
  );
  connection.onCodeLens((params) =>
    withFile('codeLens', params.textDocument.uri, [], (file) => codeLens.provide(file)),
  );
  connection.onRequest(TopologyRequest, (params) =>
    withFile('topology', params?.uri, null, (file) => topologyOf(file)),
  );
  connection.onRequest(TopologyEditRequest, (params) =>
    withFile('topologyEdit', params?.uri, { error: 'The lab file is not open.' }, (file) =>
      topologyEdit(file, params.version, params.change),
    ),
  );
  connection.onRequest(FreeInterfacesRequest, (params) =>
    withFile('freeInterfaces', params?.uri, { error: 'The lab file is not open.' }, (file) =>
      freeInterfaces(file, params.node, catalogue, agent),
    ),
  );
  connection.onCodeLensResolve((lens) => guarded('codeLens/resolve', lens, () => codeLens.resolve(lens)));

  // Parameters are typed, but what arrives is still checked: a client may send anything.
  connection.onNotification(
    SessionChangedNotification,
    (params) => void guarded('sessionChanged', undefined, () => agent.update(params?.session ?? null)),
  );
  connection.onRequest(RefreshCatalogueRequest, () =>
    guarded('refreshCatalogue', null, () => {
      catalogue.clear();
      // The agent's checks use the catalogue too (images, templates): ask again.
      diagnostics.revalidateAll();
      return null;
    }),
  );
  connection.onNotification(
    LabStateChangedNotification,
    (params) =>
      void guarded('labStateChanged', undefined, () => {
        if (typeof params?.uri === 'string') codeLens.labStateChanged(params.uri);
      }),
  );
  connection.onRequest(PlanRequest, (params) =>
    guarded('plan', null, () => {
      const file = typeof params?.uri === 'string' ? documents.get(params.uri) : undefined;
      return file ? plans.of(file) : null;
    }),
  );
  connection.onNotification(
    NodeStatesNotification,
    (params) =>
      void guarded('nodeStates', undefined, () => {
        if (typeof params?.uri !== 'string') return;
        const states = params.states;
        const valid =
          states !== null &&
          typeof states === 'object' &&
          Object.values(states as Record<string, unknown>).every((s) => typeof s === 'string');
        codeLens.nodeStatesChanged(params.uri, valid ? states : null);
      }),
  );

  connection.listen();
}
