/**
 * Import: the agent clones an existing emulator lab into a managed copy and
 * returns it as a lab document. We put it into `imported/<name>/` of the
 * workspace through a WorkspaceEdit (undoable) and open it.
 * Automation: `{ lab, folder?, overwrite? }` skips the prompts.
 */
import * as vscode from 'vscode';
import type { ImportData } from '../../common/api/contract';
import { importDenial } from '../model/capabilities';
import { booleanArg, fieldOf, stringArg } from '../model/command-args';
import { emulatorLabBaseName, emulatorLabPathProblem, labFileStem } from '../model/lab-files';
import { applyPulledContent } from '../labs/apply-pulled';
import { PromptCancelled, storeLabState } from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { pickAgent } from '../connection/pick-agent';
import { LabCommand } from '../../common/commands';

async function askLabPath(arg: unknown): Promise<string> {
  const given = stringArg(fieldOf(arg, 'lab'));
  if (given !== undefined) {
    const problem = emulatorLabPathProblem(given);
    if (problem !== undefined) throw new Error(problem);
    return given.trim();
  }
  const value = await vscode.window.showInputBox({
    title: 'Lab Agent: Import Lab',
    prompt: 'The path of the lab on the emulator. The agent copies it; the original is not changed.',
    placeHolder: '/examples/campus.unl',
    ignoreFocusOut: true,
    validateInput: (v) => emulatorLabPathProblem(v),
  });
  if (value === undefined) throw new PromptCancelled();
  return value.trim();
}

async function targetFolder(arg: unknown): Promise<vscode.Uri> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const given = stringArg(fieldOf(arg, 'folder'));
  if (given !== undefined) {
    const match = folders.find((f) => f.uri.toString() === given || f.uri.fsPath === given || f.name === given);
    if (match === undefined) throw new Error(`${given} is not a folder of this workspace.`);
    return match.uri;
  }
  if (folders.length === 0) throw new Error('Open a folder first: the imported lab is written into the workspace.');
  if (folders.length === 1) return folders[0].uri;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Import the lab into which folder?' });
  if (picked === undefined) throw new PromptCancelled();
  return picked.uri;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function importLab(services: Services, arg: unknown): Promise<(ImportData & { file: string }) | undefined> {
  // Imported from one agent, the lab belongs to it.
  const session = await pickAgent(services.agents, arg, 'Lab Agent: Import from Which Agent?');
  if (session === undefined) throw new PromptCancelled();
  const client = session.agent();
  const denial = importDenial(session.capabilities);
  if (denial !== undefined) throw new Error(denial);
  const source = await askLabPath(arg);
  const folder = await targetFolder(arg);

  const data = await withCancellableProgress(`Importing ${source}…`, (signal) =>
    client.importProject({ lab: source }, { signal }),
  );
  if (typeof data.yaml !== 'string' || data.yaml === '') {
    throw new Error(`The agent imported ${source} but sent no lab document back; nothing was written.`);
  }
  const stem = labFileStem(data.name ?? emulatorLabBaseName(source), 'imported-lab');
  const labUri = vscode.Uri.joinPath(folder, 'imported', stem, `${stem}.lab.yaml`);
  const relative = vscode.workspace.asRelativePath(labUri);
  if ((await exists(labUri)) && booleanArg(fieldOf(arg, 'overwrite')) !== true) {
    const replace = 'Replace';
    const choice = await vscode.window.showWarningMessage(
      `${relative} already exists. Replace its content with the imported lab?`,
      { modal: true, detail: 'The replacement is an edit you can review and undo before saving.' },
      replace,
    );
    if (choice !== replace) throw new PromptCancelled();
  }

  const outcome = await applyPulledContent(labUri, { yaml: data.yaml, files: data.files }, `Import ${source}`);
  if (!outcome.applied) throw new Error(`The imported lab could not be written to ${relative}.`);
  for (const name of outcome.refused)
    services.log.warn(`Import ${source}: ignored file ${JSON.stringify(name)}: outside the lab's folder`);
  if (services.labAgents.bindingOf(labUri).agent !== session.name) await services.labAgents.move(labUri, session.name);
  await storeLabState(labUri.fsPath, { lab: data.managed_lab ?? data.lab, state: data.state, source: data.source });
  services.labStateChanged(labUri);
  await vscode.window.showTextDocument(labUri, { preview: false });

  const copy = data.managed_lab ?? data.lab;
  services.log.info(`Imported ${source} as ${relative}${copy ? ` (managed copy ${copy})` : ''}`);
  void vscode.window.showInformationMessage(
    `Imported ${source} into ${relative}${copy ? `; the agent manages the copy ${copy}` : ''}.`,
  );
  return { ...data, file: labUri.toString() };
}

export function registerImportCommand(services: Services): vscode.Disposable {
  return registerGuarded(services, LabCommand.importLab, 'Import lab', (arg) => importLab(services, arg));
}
