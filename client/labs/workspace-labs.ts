/** The lab files of the workspace. */
import * as vscode from 'vscode';

export const LAB_GLOB = '**/*.{lab.yaml,lab.yml}';
const EXCLUDE = '**/{node_modules,.git,.lab-agent}/**';
const MAX_LABS = 500;

export function isLabFileName(path: string): boolean {
  return /\.lab\.ya?ml$/i.test(path);
}

export async function findLabFiles(): Promise<vscode.Uri[]> {
  const found = await vscode.workspace.findFiles(LAB_GLOB, EXCLUDE, MAX_LABS);
  return found.sort((a, b) => vscode.workspace.asRelativePath(a).localeCompare(vscode.workspace.asRelativePath(b)));
}

/** Watches lab files being created, deleted or changed on disk. */
export function watchLabFiles(onChange: () => void): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher(LAB_GLOB);
  const subscriptions = [
    watcher,
    watcher.onDidCreate(onChange),
    watcher.onDidDelete(onChange),
    watcher.onDidChange(onChange),
  ];
  return vscode.Disposable.from(...subscriptions);
}
