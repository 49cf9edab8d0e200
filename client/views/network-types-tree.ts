/** Network Types view: the network types the emulator offers for `networks:` entries. */
import type * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import { networkTypeRows, networkTypesMessage } from '../model/catalogue-rows';
import type { TreeRow } from '../model/tree-row';
import type { Services } from '../services';
import { AgentTree } from './agent-tree';
import { LabCommand } from '../../common/commands';

export const NetworkTypesView = {
  id: 'labAgent.networkTypes',
} as const;

class NetworkTypesTree extends AgentTree<TreeRow> {
  async getChildren(row?: TreeRow): Promise<TreeRow[]> {
    if (row !== undefined || this.services.session.current.state !== 'connected') return [];
    try {
      const data = await this.services.session.agent().listNetworkTypes();
      this.setMessage(networkTypesMessage(data));
      return networkTypeRows(data);
    } catch (err) {
      return this.failed('Loading network types', err);
    }
  }
}

export function registerNetworkTypesView(services: Services): vscode.Disposable[] {
  const tree = new NetworkTypesTree(services);
  return [
    ...tree.register(NetworkTypesView.id),
    registerGuarded(services, LabCommand.refreshNetworkTypes, 'Refresh network types', () => {
      services.refreshCatalogue();
      tree.refresh();
    }),
  ];
}
