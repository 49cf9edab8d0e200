/**
 * The topology view of one lab file: a webview beside its editor that draws
 * the lab as the language server reads it, follows the document as the user
 * types and the live lab while it is visible, and turns what the user does
 * in it into commands and undoable, unsaved edits of the lab file.
 * This class owns the view's lifetime: it builds the parts (one job each) and
 * disposes of them with the webview.
 */
import * as vscode from 'vscode';
import { PlanRequest, type LabPlan } from '../../common/protocol';
import type { LabLanguageClient } from '../language-client';
import type { Services } from '../services';
import { EditorSync } from './editor-sync';
import { LabDrawing } from './lab-drawing';
import { LabEdits } from './lab-edits';
import { LivePoller } from './live-poller';
import type { WebviewMessage } from './messages';
import { MessageRouter } from './message-router';
import { LabWatchers } from './watchers';
import { pageHtml } from './webview-html';

export class TopologyPanel implements vscode.Disposable {
  private readonly poller: LivePoller;
  private readonly subscriptions: vscode.Disposable[];
  private disposed = false;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    services: Services,
    private readonly server: LabLanguageClient,
    extensionUri: vscode.Uri,
    onDisposed: () => void,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = pageHtml(panel.webview, dist);
    const isDisposed = (): boolean => this.disposed;
    const drawing = new LabDrawing(uri, panel, services, server, isDisposed);
    const poller = new LivePoller(uri, panel, services, drawing, () => this.sharedPlan(), isDisposed);
    const editorSync = new EditorSync(uri, panel, () => drawing.topology);
    const edits = new LabEdits(uri, server, () => drawing.redrawWhole());
    const router = new MessageRouter(uri, services, { drawing, poller, editorSync, edits });
    this.poller = poller;
    this.subscriptions = [
      panel.onDidDispose(() => {
        this.dispose();
        onDisposed();
      }),
      panel.webview.onDidReceiveMessage((message: WebviewMessage) => void router.route(message)),
      panel.onDidChangeViewState(() => poller.visibilityChanged()),
      new LabWatchers(uri, services, {
        typed: () => void drawing.reload(),
        typedLong: () => void poller.fetch({ status: false, plan: true }),
        cursorsMoved: (selections) => {
          if (drawing.topology) drawing.post({ type: 'highlight', ids: editorSync.idsAtCursors(selections) });
        },
        actionTaken: () => {
          poller.followAction();
          void poller.fetch({ status: true, plan: true });
        },
        agentChanged: () => void poller.fetch({ status: true, plan: true }),
      }),
    ];
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  /** The lab's plan as the language server shares it with the plan lens (the document opened for it if need be). */
  private async sharedPlan(): Promise<LabPlan | null | undefined> {
    const plan = await this.server.request(PlanRequest, { uri: this.uri.toString() });
    if (plan !== null) return plan;
    await vscode.workspace.openTextDocument(this.uri);
    return this.server.request(PlanRequest, { uri: this.uri.toString() });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.poller.stop();
    for (const s of this.subscriptions) s.dispose();
  }
}
