/**
 * Consoles view: for each lab of the workspace, the consoles of its nodes
 * (listProjectConsoles). Clicking an attachable console opens it in a terminal.
 * While visible it follows the nodes (LiveTree), so a console becomes
 * attachable as soon as its node runs.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../common/api/client';
import { registerGuarded } from '../commands/guard';
import { isLabActionAllowed } from '../model/capabilities';
import { consoleRows, consolesSettling } from '../model/console-rows';
import { describeError } from '../model/errors';
import type { LabRowData } from '../model/lab-rows';
import type { TreeRow } from '../model/tree-row';
import { loadLab, observationPayload, type LabContext } from '../labs/lab-context';
import type { Session } from '../connection/session';
import type { Services } from '../services';
import { LiveTree, type AgentRows } from './agent-tree';
import { messageRow, treeItemOf } from './row-item';
import { LabCommand } from '../../common/commands';

export const ConsolesView = {
  id: 'labAgent.consoles',
} as const;

type Row = TreeRow<LabRowData>;

class ConsolesTree extends LiveTree<Row> {
  override getTreeItem(row: Row): vscode.TreeItem {
    const attach = row.contextValue?.split(' ').includes('attach')
      ? {
          command: LabCommand.openConsole,
          title: 'Open Console',
          arguments: [{ uri: row.data.uri, node: row.data.node }],
        }
      : undefined;
    return treeItemOf(row, attach);
  }

  protected readonly what = 'Loading consoles';

  protected override hasRows(): boolean {
    return this.services.agents.all().some((s) => s.current.state === 'connected');
  }

  protected agentData(): LabRowData {
    return { uri: '' };
  }

  protected async agentRows(_agent: string, files: vscode.Uri[]): Promise<AgentRows<Row>> {
    const groups = (await Promise.all(files.map((uri) => this.labGroup(uri)))).filter((g) => g !== undefined);
    return { rows: groups.map((g) => g.row), settling: groups.some((g) => g.settling) };
  }

  private async labGroup(uri: vscode.Uri): Promise<{ row: Row; settling: boolean } | undefined> {
    const lab = await loadLab(uri, this.services.labParses).catch(() => undefined);
    if (lab === undefined) return undefined;
    const session = this.services.labAgents.sessionIfAny(uri);
    if (session === undefined || !isLabActionAllowed(session.capabilities, 'consoles', lab.mode)) return undefined;
    const id = `${uri.toString()}#consoles`;
    const data = { uri: uri.toString() };
    const read = await this.consolesOf(session, lab, uri, id, data);
    const row: Row = {
      id,
      label: lab.name,
      description: vscode.workspace.asRelativePath(uri),
      icon: 'beaker',
      contextValue: 'consoleLab',
      collapsible: 'expanded',
      children: read.children,
      data,
    };
    return { row, settling: read.settling };
  }

  /** The lab's console rows as the agent lists them, or the row that says why there are none. */
  private async consolesOf(
    session: Session,
    lab: LabContext,
    uri: vscode.Uri,
    id: string,
    data: { uri: string },
  ): Promise<{ children: Row[]; settling: boolean }> {
    try {
      const consoles = await session.agent().listProjectConsoles(observationPayload(lab));
      const children = consoleRows({ uri: uri.toString(), mode: lab.mode }, consoles, session.capabilities);
      if (children.length === 0)
        return { children: [messageRow(`${id}:none`, 'No consoles', 'info', data)], settling: false };
      return { children, settling: consolesSettling(consoles) };
    } catch (err) {
      if (err instanceof AgentError && err.code === 'lab_not_found')
        return {
          children: [
            messageRow(`${id}:absent`, 'Not deployed', 'circle-outline', data, 'Deploy the lab to get consoles.'),
          ],
          settling: false,
        };
      return {
        children: [messageRow(`${id}:error`, 'Consoles unavailable', 'warning', data, describeError(err).message)],
        settling: false,
      };
    }
  }
}

export function registerConsolesView(services: Services): vscode.Disposable[] {
  const tree = new ConsolesTree(services);
  return [
    ...tree.register(ConsolesView.id, { showCollapseAll: true }),
    registerGuarded(services, LabCommand.refreshConsoles, 'Refresh consoles', () => tree.refresh()),
    services.onLabViewsStale(() => tree.followAction()),
  ];
}
