/** Network Types view: the network types the emulator offers for `networks:` entries. */
import type * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import { networkTypeRows, networkTypesMessage } from '../model/catalogue-rows';
import type { TreeRow } from '../model/tree-row';
import type { Services } from '../services';
import { AgentTree } from './agent-tree';
import { logFailure } from '../log';
import { describeError } from '../model/errors';
import { LabCommand } from '../../common/commands';

export const NetworkTypesView = {
  id: 'labAgent.networkTypes',
} as const;

class NetworkTypesTree extends AgentTree<TreeRow> {
  async getChildren(row?: TreeRow): Promise<TreeRow[]> {
    if (row !== undefined) return row.children ?? [];
    const sessions = this.services.agents.all();
    if (sessions.length === 1) {
      // One agent: as before, flat, with the agent's note as the message line.
      if (this.services.session.current.state !== 'connected') return [];
      try {
        const data = await this.services.session.agent().listNetworkTypes();
        this.setMessage(networkTypesMessage(data));
        return networkTypeRows(data);
      } catch (err) {
        return this.failed('Loading network types', err);
      }
    }
    const loaded = new Map<string, TreeRow[]>();
    const failures: string[] = [];
    await Promise.all(
      sessions.map(async (session) => {
        if (session.current.state !== 'connected') return;
        try {
          loaded.set(session.name, networkTypeRows(await session.agent().listNetworkTypes()));
        } catch (err) {
          logFailure(this.services.log, `Loading the network types of agent "${session.name}"`, err);
          failures.push(`${session.name}: ${describeError(err).message}`);
        }
      }),
    );
    this.setMessage(failures.length === 0 ? undefined : `Loading network types failed: ${failures.join('; ')}`);
    return this.grouped(
      (agent) => loaded.get(agent) ?? [],
      () => undefined,
    );
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
