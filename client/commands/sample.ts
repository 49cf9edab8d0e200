/**
 * "Open the Sample Lab" (walkthrough): copies the samples shipped with the
 * extension into `samples/` of the workspace, without overwriting anything, and
 * opens samples/campus.lab.yaml. The copy matters: the lab's state is stored
 * beside the lab file, which must not be inside the installed extension.
 */
import * as vscode from 'vscode';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

const SAMPLE_LAB = 'campus.lab.yaml';

async function listFiles(root: vscode.Uri, prefix: string[] = []): Promise<string[][]> {
  const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(root, ...prefix));
  const nested = await Promise.all(
    entries.map(([name, type]) =>
      type === vscode.FileType.Directory
        ? listFiles(root, [...prefix, name])
        : Promise.resolve(type === vscode.FileType.File ? [[...prefix, name]] : []),
    ),
  );
  return nested.flat();
}

async function openSample(context: vscode.ExtensionContext): Promise<string> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined)
    throw new Error('Open a folder first: the sample lab is copied into the workspace so that it can be deployed.');
  const source = vscode.Uri.joinPath(context.extensionUri, 'samples');
  const target = vscode.Uri.joinPath(folder.uri, 'samples');
  const files = await listFiles(source);
  if (!files.some((f) => f.length === 1 && f[0] === SAMPLE_LAB))
    throw new Error(`The extension ships no samples/${SAMPLE_LAB}.`);
  const edit = new vscode.WorkspaceEdit();
  for (const segments of files) {
    const contents = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(source, ...segments));
    edit.createFile(
      vscode.Uri.joinPath(target, ...segments),
      { contents, ignoreIfExists: true },
      { needsConfirmation: false, label: 'Copy the sample labs' },
    );
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`Could not copy the samples into ${target.fsPath}.`);
  const lab = vscode.Uri.joinPath(target, SAMPLE_LAB);
  await vscode.window.showTextDocument(lab, { preview: false });
  return lab.toString();
}

export function registerSampleCommand(services: Services, context: vscode.ExtensionContext): vscode.Disposable {
  return registerGuarded(services, LabCommand.openSample, 'Open the sample lab', () => openSample(context));
}
