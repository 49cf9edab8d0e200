/** initialize, initialized and shutdown: what the server offers, and the agents' sessions the client starts it with. */
import {
  CodeActionKind,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import type { ClientSupports, LabLanguageServices } from '../language-services';
import type { Guard } from './guard';

export function registerLifecycle(
  connection: Connection,
  services: LabLanguageServices,
  supports: ClientSupports,
  guard: Guard,
): void {
  let initialSession: unknown = null;
  let initialAgents: Record<string, unknown> = {};

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    supports.codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    supports.completionEditRangeDefault =
      params.capabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange') === true;
    const workspaceEdit = params.capabilities.workspace?.workspaceEdit;
    supports.createFiles =
      workspaceEdit?.documentChanges === true && workspaceEdit.resourceOperations?.includes('create') === true;
    const options = params.initializationOptions as { session?: unknown; agents?: unknown } | null | undefined;
    initialSession = typeof options === 'object' && options !== null ? (options.session ?? null) : null;
    const agents = typeof options === 'object' && options !== null ? options.agents : undefined;
    initialAgents =
      typeof agents === 'object' && agents !== null && !Array.isArray(agents)
        ? (agents as Record<string, unknown>)
        : {};
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
  connection.onInitialized(
    () =>
      void guard.run('initialized', undefined, () => {
        services.agents.update(undefined, initialSession);
        for (const [name, session] of Object.entries(initialAgents)) services.agents.update(name, session ?? null);
      }),
  );
  connection.onShutdown(() => guard.run('shutdown', undefined, () => services.agents.close()));
}
