/**
 * Consoles view: for each lab of the workspace, the consoles of its nodes
 * (listProjectConsoles). Clicking an attachable console opens it in a terminal.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../common/api/client';
import { LensCommand } from '../../common/protocol';
import { registerGuarded } from '../commands/guard';
import { isLabActionAllowed } from '../model/capabilities';
import { consoleRows } from '../model/consoleRows';
import { describeError } from '../model/errors';
import type { LabRowData } from '../model/labRows';
import type { TreeRow } from '../model/treeRow';
import { loadLab, observationPayload } from '../project/labContext';
import { findLabFiles } from '../project/workspaceLabs';
import type { Services } from '../services';
import { messageRow, treeItemOf, viewFailure } from './rowItem';

export const ConsolesView = {
  id: 'labAgent.consoles',
  refresh: 'labAgent.refreshConsoles',
} as const;

type Row = TreeRow<LabRowData>;

class ConsolesTree implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<Row> | undefined;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(row: Row): vscode.TreeItem {
    const attach = row.contextValue?.split(' ').includes('attach')
      ? {
          command: LensCommand.openConsole,
          title: 'Open Console',
          arguments: [{ uri: row.data.uri, node: row.data.node }],
        }
      : undefined;
    return treeItemOf(row, attach);
  }

  async getChildren(row?: Row): Promise<Row[]> {
    if (row !== undefined) return row.children ?? [];
    if (this.services.session.current.state !== 'connected') return [];
    try {
      const files = await findLabFiles();
      const rows = await Promise.all(files.map((uri) => this.labGroup(uri)));
      if (this.view !== undefined) this.view.message = undefined;
      return rows.filter((r): r is Row => r !== undefined);
    } catch (err) {
      if (this.view !== undefined) this.view.message = viewFailure(this.services, 'Loading consoles', err);
      return [];
    }
  }

  private async labGroup(uri: vscode.Uri): Promise<Row | undefined> {
    const lab = await loadLab(uri).catch(() => undefined);
    if (lab === undefined) return undefined;
    const session = this.services.session;
    if (!isLabActionAllowed(session.capabilities, 'consoles', lab.mode)) return undefined;
    const id = `${uri.toString()}#consoles`;
    const data = { uri: uri.toString() };
    let children: Row[];
    try {
      const consoles = await session.agent().listProjectConsoles(observationPayload(lab));
      children = consoleRows({ uri: uri.toString(), mode: lab.mode }, consoles, session.capabilities);
      if (children.length === 0) children = [messageRow(`${id}:none`, 'No consoles', 'info', data)];
    } catch (err) {
      if (err instanceof AgentError && err.code === 'lab_not_found') {
        children = [
          messageRow(`${id}:absent`, 'Not deployed', 'circle-outline', data, 'Deploy the lab to get consoles.'),
        ];
      } else {
        const described = describeError(err);
        if (described.kind === 'session') void session.sessionLost(err);
        children = [messageRow(`${id}:error`, 'Consoles unavailable', 'warning', data, described.message)];
      }
    }
    return {
      id,
      label: lab.name,
      description: vscode.workspace.asRelativePath(uri),
      icon: 'beaker',
      contextValue: 'consoleLab',
      collapsible: 'expanded',
      children,
      data,
    };
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerConsolesView(services: Services): vscode.Disposable[] {
  const tree = new ConsolesTree(services);
  const view = vscode.window.createTreeView(ConsolesView.id, { treeDataProvider: tree, showCollapseAll: true });
  tree.view = view;
  return [
    tree,
    view,
    registerGuarded(services, ConsolesView.refresh, 'Refresh consoles', () => tree.refresh()),
    services.session.onDidChange(() => tree.refresh()),
    services.onLabViewsStale(() => tree.refresh()),
  ];
}
