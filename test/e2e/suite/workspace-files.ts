/**
 * Suites remove the lab files they added to the workspace when they end: a later suite, logged in
 * to another agent (the Linux one), would otherwise validate them against that agent's catalogue
 * and start with their Problems (757 of them once, mostly from the 500-node lab).
 */
import { rmSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { statePathFor } from '../../../common/project-files/state-file';
import { eventually } from './eventually';

/**
 * Closes the editors of `target` (a lab file, or a folder and everything in it) dropping unsaved
 * edits, deletes it (a lab file with its state file, if a destroy left one), and waits until the Problems view has nothing left from it.
 */
export async function removeFromWorkspace(target: string): Promise<void> {
  const inside = (uri: vscode.Uri): boolean =>
    uri.scheme === 'file' && (uri.fsPath === target || uri.fsPath.startsWith(target + path.sep));
  const open = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .flatMap((tab) => (tab.input instanceof vscode.TabInputText && inside(tab.input.uri) ? [tab.input.uri] : []));
  for (const uri of open) {
    await vscode.window.showTextDocument(uri, { preview: false });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
  rmSync(target, { recursive: true, force: true });
  rmSync(statePathFor(target), { force: true });
  await eventually(`no Problems left from ${target}`, () =>
    vscode.languages.getDiagnostics().some(([uri, problems]) => inside(uri) && problems.length > 0) ? undefined : true,
  );
}
