/** The standard LSP requests on a lab file: completion, hover, navigation, rename, quick fixes, lenses. */
import type { Connection } from 'vscode-languageserver/node';
import type { LabLanguageServices } from '../language-services';
import { findDefinition } from '../services/definition';
import { prepareRename, renameSymbol } from '../services/rename';
import { documentSymbols } from '../services/symbols';
import type { Guard } from './guard';

export function registerLanguageFeatures(
  connection: Connection,
  { completion, hover, codeActions, codeLens }: LabLanguageServices,
  guard: Guard,
): void {
  connection.onCompletion((params, token) =>
    guard.withFile('completion', params.textDocument.uri, null, (file) =>
      completion.provide(file, params.position, token),
    ),
  );
  connection.onHover((params, token) =>
    guard.withFile('hover', params.textDocument.uri, null, (file) => hover.provide(file, params.position, token)),
  );
  connection.onDefinition((params) =>
    guard.withFile('definition', params.textDocument.uri, null, (file) => findDefinition(file, params.position)),
  );
  connection.onDocumentSymbol((params) =>
    guard.withFile('documentSymbol', params.textDocument.uri, [], (file) => documentSymbols(file)),
  );
  connection.onPrepareRename((params) =>
    guard.withFile('prepareRename', params.textDocument.uri, null, (file) => prepareRename(file, params.position)),
  );
  connection.onRenameRequest((params) =>
    guard.withFile('rename', params.textDocument.uri, null, (file) =>
      renameSymbol(file, params.position, params.newName),
    ),
  );
  connection.onCodeAction((params) =>
    guard.withFile('codeAction', params.textDocument.uri, [], (file) => codeActions.provide(file, params)),
  );
  connection.onCodeLens((params) =>
    guard.withFile('codeLens', params.textDocument.uri, [], (file) => codeLens.provide(file)),
  );
  connection.onCodeLensResolve((lens) => guard.run('codeLens/resolve', lens, () => codeLens.resolve(lens)));
}
