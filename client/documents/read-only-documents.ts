/**
 * Read-only documents whose text the extension produces (plans, reports).
 * A content provider's documents cannot be edited, and showing the same URI
 * again updates the open editor in place.
 */
import * as vscode from 'vscode';

/** Every scheme of these documents starts with this, so that they can share one editor group. */
export const GENERATED_SCHEME_PREFIX = 'lab-agent-';

export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  /** A URI of this scheme for a lab's document of some kind, e.g. ("/labs/core.lab.yaml", "plan"). */
  uriFor(labUri: vscode.Uri, kind: string): vscode.Uri {
    const base = labUri.path.split('/').pop() ?? 'lab';
    return vscode.Uri.from({ scheme: this.scheme, path: `/${base} (${kind})`, query: labUri.toString() });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This document is no longer available. Run the command again.\n';
  }

  /** Sets the text and shows the document. */
  async show(uri: vscode.Uri, text: string): Promise<vscode.TextEditor> {
    const known = this.texts.has(uri.toString());
    this.texts.set(uri.toString(), text);
    if (known) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: false, viewColumn: generatedDocumentsColumn() });
  }

  /** Replaces the text of a document already shown, in place, without bringing it to the front. */
  update(uri: vscode.Uri, text: string): void {
    if (!this.texts.has(uri.toString())) return;
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  has(uri: vscode.Uri): boolean {
    return this.texts.has(uri.toString());
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}

/** Where plans and reports go: the editor group already showing one, else beside the current editor. */
function generatedDocumentsColumn(): vscode.ViewColumn {
  const group = vscode.window.tabGroups.all.find((g) =>
    g.tabs.some(
      (tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.scheme.startsWith(GENERATED_SCHEME_PREFIX),
    ),
  );
  return group?.viewColumn ?? vscode.ViewColumn.Beside;
}
