/** Network Types view: the network types the emulator offers for `networks:` entries. */
import * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import { networkTypeRows, networkTypesMessage } from '../model/catalogueRows';
import type { TreeRow } from '../model/treeRow';
import type { Services } from '../services';
import { treeItemOf, viewFailure } from './rowItem';

export const NetworkTypesView = {
  id: 'labAgent.networkTypes',
  refresh: 'labAgent.refreshNetworkTypes',
} as const;

class NetworkTypesTree implements vscode.TreeDataProvider<TreeRow> {
  private readonly changed = new vscode.EventEmitter<TreeRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<TreeRow> | undefined;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(row: TreeRow): vscode.TreeItem {
    return treeItemOf(row);
  }

  async getChildren(row?: TreeRow): Promise<TreeRow[]> {
    if (row !== undefined || this.services.session.current.state !== 'connected') return [];
    try {
      const data = await this.services.session.agent().listNetworkTypes();
      this.setMessage(networkTypesMessage(data));
      return networkTypeRows(data);
    } catch (err) {
      this.setMessage(viewFailure(this.services, 'Loading network types', err));
      return [];
    }
  }

  private setMessage(message: string | undefined): void {
    if (this.view !== undefined) this.view.message = message;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerNetworkTypesView(services: Services): vscode.Disposable[] {
  const tree = new NetworkTypesTree(services);
  const view = vscode.window.createTreeView(NetworkTypesView.id, { treeDataProvider: tree });
  tree.view = view;
  return [
    tree,
    view,
    registerGuarded(services, NetworkTypesView.refresh, 'Refresh network types', () => {
      services.refreshCatalogue();
      tree.refresh();
    }),
    services.session.onDidChange(() => tree.refresh()),
  ];
}
