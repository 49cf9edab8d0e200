/** initialize, initialized and shutdown: what the server offers, and the session the client starts it with. */
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

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    supports.codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    supports.completionEditRangeDefault =
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
  connection.onInitialized(() => void guard.run('initialized', undefined, () => services.agent.update(initialSession)));
  connection.onShutdown(() => guard.run('shutdown', undefined, () => services.agent.close()));
}
