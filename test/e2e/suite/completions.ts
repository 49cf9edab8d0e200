/** Completion in the end-to-end suite, as VS Code asks the language server for it. */
import * as vscode from 'vscode';
import { eventually } from './eventually';

/** The labels of the completion items offered at `position`, once there are any (`what` names them in a timeout). */
export async function completionLabels(what: string, uri: vscode.Uri, position: vscode.Position): Promise<string[]> {
  const list = await eventually(what, async () => {
    const result = await vscode.commands.executeCommand<vscode.CompletionList>(
      'vscode.executeCompletionItemProvider',
      uri,
      position,
    );
    return result.items.length > 0 ? result : undefined;
  });
  return list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
}
