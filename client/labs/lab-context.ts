/**
 * The lab a command works on: found from the command's argument (lens, tree
 * row, explorer, automation) or the active editor, loaded with its text as the
 * user sees it (unsaved edits included) and its stored agent state.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { ConsolePayload, ProjectPayload } from '../../common/api/contract';
import type { LabDocument } from '../../common/lab/model/types';
import { buildProjectPayloadWithState } from '../../common/project-files/payload';
import {
  readLabState,
  setAsideLabState,
  writeLabState,
  type LabStateFile,
} from '../../common/project-files/state-file';
import { UserFileError } from '../../common/project-files/user-file';
import { projectModeOf, type ProjectMode } from '../model/capabilities';
import { targetOfArg } from '../model/command-args';
import { labDisplayName } from '../model/lab-files';
import type { LabParses } from './lab-parses';
import { findLabFiles, isLabFileName } from './workspace-labs';

export interface LabContext {
  uri: vscode.Uri;
  /** The lab file's path on disk (the state file lives beside it). */
  labPath: string;
  text: string;
  doc: LabDocument;
  name: string;
  stored: LabStateFile | undefined;
  mode: ProjectMode;
}

/** A command was cancelled by the user at a prompt: the wrapper stays silent. */
export class PromptCancelled extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('Cancelled.');
  }
}

/** The lab at `uri`, parsed through `parses` (a text parsed before is not parsed again). */
export async function loadLab(uri: vscode.Uri, parses: LabParses): Promise<LabContext> {
  if (uri.scheme !== 'file') {
    throw new Error(
      `Save the lab to a file first: Lab Agent stores the lab's state beside its file (${uri.toString(true)}).`,
    );
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  let text: string;
  if (open !== undefined) {
    text = open.getText();
  } else {
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch (err) {
      throw new Error(`Cannot read the lab file ${uri.fsPath}: ${(err as Error).message}`, { cause: err });
    }
  }
  const doc = parses.parse(uri.toString(), text);
  const stored = await readStoredState(uri.fsPath, 'stop');
  return {
    uri,
    labPath: uri.fsPath,
    text,
    doc,
    name: labDisplayName(doc.name?.value, basename(uri.fsPath)),
    stored,
    mode: projectModeOf(stored),
  };
}

/** The lab (and node, when given) a command argument names, else the active lab editor, else a pick. */
export async function resolveLab(arg: unknown, parses: LabParses): Promise<{ lab: LabContext; node?: string }> {
  const target = targetOfArg(arg);
  if (target !== undefined) {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(target.uri, true);
    } catch {
      throw new Error(`Not a lab file URI: ${target.uri}`);
    }
    return { lab: await loadLab(uri, parses), node: target.node };
  }
  const editor = vscode.window.activeTextEditor?.document;
  if (editor !== undefined && (editor.languageId === 'lab-yaml' || isLabFileName(editor.uri.path))) {
    return { lab: await loadLab(editor.uri, parses) };
  }
  return { lab: await loadLab(await pickLabFile(), parses) };
}

async function pickLabFile(): Promise<vscode.Uri> {
  const files = await findLabFiles();
  if (files.length === 0) {
    throw new Error('Open a lab file (*.lab.yaml) first: there is none in this workspace. Import a lab or create one.');
  }
  if (files.length === 1) return files[0];
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => ({ label: basename(uri.fsPath), description: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Which lab?', placeHolder: 'Pick a lab file' },
  );
  if (picked === undefined) throw new PromptCancelled();
  return picked.uri;
}

/** The node a command is for: given, or picked from the document's nodes. */
export async function pickNodeName(lab: LabContext, given: string | undefined, title: string): Promise<string> {
  if (given !== undefined) return given;
  const names = lab.doc.nodes.map((n) => n.name);
  if (names.length === 0) throw new Error(`${lab.name} declares no nodes.`);
  const picked = await vscode.window.showQuickPick(
    lab.doc.nodes.map((n) => ({ label: n.name, description: n.resolved.template })),
    { title, placeHolder: `A node of ${lab.name}` },
  );
  if (picked === undefined) throw new PromptCancelled();
  return picked.label;
}

/** The lab's payload, with the state loadLab read (the state file is read once per command). */
export function labPayload(lab: LabContext): Promise<ProjectPayload> {
  return buildProjectPayloadWithState(lab.labPath, lab.text, lab.doc, lab.stored);
}

/** The read-only observation payload (contract: inspect/open omit yaml, files and state). */
export function observationPayload(lab: LabContext): ProjectPayload {
  const payload: ProjectPayload = {};
  // The stored lab path names the lab; a lab never deployed is found by the document's name.
  if (lab.stored?.lab !== undefined) payload.lab = lab.stored.lab;
  else payload.yaml = lab.text;
  return payload;
}

export async function consolePayload(lab: LabContext, extra: Partial<ConsolePayload>): Promise<ConsolePayload> {
  const p = await labPayload(lab);
  const payload: ConsolePayload = { ...extra };
  if (lab.stored?.lab !== undefined) payload.lab = lab.stored.lab;
  if (p.yaml !== undefined) payload.yaml = p.yaml;
  if (p.files !== undefined) payload.files = p.files;
  if (p.state !== undefined) payload.state = p.state;
  if (p.manifest !== undefined) payload.manifest = p.manifest;
  return payload;
}

/** Stores what the agent returned beside the lab file, keeping what it did not return. */
export async function storeLabState(labPath: string, update: LabStateFile): Promise<void> {
  await writeMerged(labPath, (await readStoredState(labPath, 'continue')) ?? {}, update);
}

/**
 * Stores what the agent returned for a command on `lab`, keeping what it did not return from the
 * state the command loaded (read once per command: the state file changes only through commands).
 */
export function storeLabResult(lab: LabContext, update: LabStateFile): Promise<void> {
  return writeMerged(lab.labPath, lab.stored ?? {}, update);
}

async function writeMerged(labPath: string, previous: LabStateFile, update: LabStateFile): Promise<void> {
  const next: LabStateFile = { ...previous };
  if (update.lab !== undefined) next.lab = update.lab;
  if (update.state !== undefined) next.state = update.state;
  if (update.source !== undefined) next.source = update.source;
  if (update.manifest !== undefined) next.manifest = update.manifest;
  await writeLabState(labPath, next);
}

/**
 * The stored state. A corrupt file is never taken for "no state" unannounced:
 * it is moved aside (kept for the user) with a warning, then the command stops
 * (`stop`: it would otherwise deploy to the default lab path), or goes on
 * without it (`continue`: storing what the agent just returned).
 */
async function readStoredState(labPath: string, then: 'stop' | 'continue'): Promise<LabStateFile | undefined> {
  try {
    return await readLabState(labPath);
  } catch (err) {
    if (!(err instanceof UserFileError) || err.problem !== 'corrupt') throw err;
    const aside = await setAsideLabState(labPath);
    const message =
      `${err.message} It was moved to ${aside}. The lab is no longer linked to the lab it deployed or imported: ` +
      'if it was an imported or renamed lab, import it again before deploying, or restore the file.';
    void vscode.window.showWarningMessage(message);
    if (then === 'stop') {
      throw new Error(
        `Stopped: the lab's state file was corrupt and was moved to ${aside}. Run the command again to continue without stored state.`,
        { cause: err },
      );
    }
    return undefined;
  }
}
