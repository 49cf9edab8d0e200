/**
 * Puts what the agent sent back (reconcile from_emu, import) into the
 * workspace as one WorkspaceEdit: visible in the editors, undoable, and never
 * saved behind the user's back. File names are checked to stay inside the
 * lab's folder.
 */
import * as vscode from 'vscode';
import { safeRelativeSegments } from '../model/lab-files';
import { changedLines } from '../model/text-change';

export interface PulledContent {
  /** The new text of the lab document (undefined: leave it). */
  yaml?: string;
  /** Config files, keyed by their path relative to the lab's folder. */
  files?: Record<string, string>;
}

export interface EditOutcome {
  applied: boolean;
  /** Files that changed or were created (the lab document included). */
  changed: vscode.Uri[];
  /** File names refused because they would leave the lab's folder. */
  refused: string[];
}

async function existingDocument(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
  return vscode.workspace.openTextDocument(uri);
}

/** Builds and applies the edit; `labUri` is the lab document (existing or to create), `label` names the edit in the undo stack. */
export async function applyPulledContent(
  labUri: vscode.Uri,
  content: PulledContent,
  label: string,
): Promise<EditOutcome> {
  const edit = new vscode.WorkspaceEdit();
  const metadata: vscode.WorkspaceEditEntryMetadata = { needsConfirmation: false, label };
  const changed: vscode.Uri[] = [];
  const refused: string[] = [];
  const encoder = new TextEncoder();

  const put = async (uri: vscode.Uri, text: string): Promise<void> => {
    const doc = await existingDocument(uri);
    if (doc === undefined) {
      edit.createFile(uri, { contents: encoder.encode(text) }, metadata);
      changed.push(uri);
    } else {
      // Only the lines that differ, so the cursor, folds and markers elsewhere stay put.
      const change = changedLines(doc.getText(), text);
      if (change === undefined) return;
      const range = new vscode.Range(doc.positionAt(change.start), doc.positionAt(change.end));
      edit.replace(uri, range, change.text, metadata);
      changed.push(uri);
    }
  };

  if (content.yaml !== undefined) await put(labUri, content.yaml);
  const folder = vscode.Uri.joinPath(labUri, '..');
  for (const [name, text] of Object.entries(content.files ?? {})) {
    const segments = safeRelativeSegments(name);
    if (segments === undefined || typeof text !== 'string') {
      refused.push(name);
      continue;
    }
    await put(vscode.Uri.joinPath(folder, ...segments), text);
  }
  if (changed.length === 0) return { applied: true, changed, refused };
  const applied = await vscode.workspace.applyEdit(edit);
  return { applied, changed, refused };
}
