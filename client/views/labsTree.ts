/**
 * Labs view: every *.lab.yaml / *.lab.yml of the workspace with its live status
 * (getProjectStatus) and its nodes with their state. Refreshed after actions,
 * when lab files change on disk, on demand, and every few seconds while a node
 * is starting or stopping.
 */
import * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import { isLabActionAllowed } from '../model/capabilities';
import { targetOfArg } from '../model/commandArgs';
import { describeError } from '../model/errors';
import { isSettling, labRow, type LabFileInfo, type LabLiveView, type LabRowData } from '../model/labRows';
import type { TreeRow } from '../model/treeRow';
import { loadLab, observationPayload } from '../project/labContext';
import { findLabFiles, watchLabFiles } from '../project/workspaceLabs';
import type { Services } from '../services';
import { messageRow, treeItemOf, viewFailure } from './rowItem';

export const LabsView = {
  id: 'labAgent.labs',
  refresh: 'labAgent.refreshLabs',
  openFile: 'labAgent.openLabFile',
} as const;

type Row = TreeRow<LabRowData>;

const SETTLE_REFRESH_MS = 3000;
const FILE_CHANGE_DEBOUNCE_MS = 500;

class LabsTree implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  view: vscode.TreeView<Row> | undefined;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.clearTimer();
    this.changed.fire(undefined);
  }

  /** Refreshes after a delay, coalescing bursts (file saves, settling nodes). */
  refreshSoon(ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.view?.visible !== false) this.changed.fire(undefined);
    }, ms);
  }

  getTreeItem(row: Row): vscode.TreeItem {
    // No click command: a click expands the lab to its nodes; "Open Lab File" is in the menu.
    return treeItemOf(row);
  }

  async getChildren(row?: Row): Promise<Row[]> {
    if (row !== undefined) return row.children ?? [];
    try {
      const files = await findLabFiles();
      const rows = await Promise.all(files.map((uri) => this.labRowFor(uri)));
      if (this.view !== undefined) this.view.message = undefined;
      if (rows.some((r) => r.settling)) this.refreshSoon(SETTLE_REFRESH_MS);
      return rows.map((r) => r.row);
    } catch (err) {
      if (this.view !== undefined) this.view.message = viewFailure(this.services, 'Loading labs', err);
      return [];
    }
  }

  private async labRowFor(uri: vscode.Uri): Promise<{ row: Row; settling: boolean }> {
    const relativePath = vscode.workspace.asRelativePath(uri);
    let lab;
    try {
      lab = await loadLab(uri);
    } catch (err) {
      const row = messageRow<LabRowData>(
        `${uri.toString()}#lab`,
        relativePath,
        'warning',
        { uri: uri.toString() },
        describeError(err).message,
      );
      return { row, settling: false };
    }
    const info: LabFileInfo = {
      uri: uri.toString(),
      name: lab.name,
      relativePath,
      nodes: lab.doc.nodes.map((n) => ({ name: n.name, template: n.resolved.template, image: n.resolved.image })),
      mode: lab.mode,
    };
    const session = this.services.session;
    const caps = session.capabilities;
    const live: LabLiveView = {};
    if (session.current.state === 'connected' && isLabActionAllowed(caps, 'status', lab.mode)) {
      try {
        live.status = await session.agent().getProjectStatus(observationPayload(lab));
      } catch (err) {
        const described = describeError(err);
        live.error = described.message;
        if (described.kind === 'session') void session.sessionLost(err);
      }
    }
    return { row: labRow(info, live, caps), settling: isSettling(live) };
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.clearTimer();
    this.changed.dispose();
  }
}

export function registerLabsView(services: Services): vscode.Disposable[] {
  const tree = new LabsTree(services);
  const view = vscode.window.createTreeView(LabsView.id, {
    treeDataProvider: tree,
    canSelectMany: true,
    showCollapseAll: true,
  });
  tree.view = view;
  return [
    tree,
    view,
    registerGuarded(services, LabsView.refresh, 'Refresh labs', () => tree.refresh()),
    registerGuarded(services, LabsView.openFile, 'Open lab file', async (arg) => {
      const target = targetOfArg(arg);
      if (target === undefined) throw new Error('Pick a lab in the Labs view to open its file.');
      await vscode.window.showTextDocument(vscode.Uri.parse(target.uri, true), { preview: false });
    }),
    services.session.onDidChange(() => tree.refresh()),
    services.onLabViewsStale(() => tree.refresh()),
    watchLabFiles(() => tree.refreshSoon(FILE_CHANGE_DEBOUNCE_MS)),
  ];
}
