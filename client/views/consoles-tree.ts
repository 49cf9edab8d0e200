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
import { rowsFingerprint, type TreeRow } from '../model/tree-row';
import { loadLab, observationPayload } from '../labs/lab-context';
import { findLabFiles } from '../labs/workspace-labs';
import type { Services } from '../services';
import { LiveTree } from './agent-tree';
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

  async getChildren(row?: Row): Promise<Row[]> {
    if (row !== undefined) return row.children ?? [];
    if (!this.services.agents.all().some((s) => s.current.state === 'connected')) return [];
    try {
      const files = await findLabFiles();
      const groups = await Promise.all(files.map((uri) => this.labGroup(uri)));
      this.setMessage(undefined);
      const bound = files.map((uri) => this.services.labAgents.bindingOf(uri).agent);
      const rows = this.grouped(
        (agent) => groups.flatMap((g, i) => (g !== undefined && bound[i] === agent ? [g.row] : [])),
        () => ({ uri: '' }),
      );
      this.loaded(
        rowsFingerprint(rows),
        groups.some((g) => g?.settling === true),
      );
      return rows;
    } catch (err) {
      return this.failed('Loading consoles', err);
    }
  }

  private async labGroup(uri: vscode.Uri): Promise<{ row: Row; settling: boolean } | undefined> {
    const lab = await loadLab(uri, this.services.labParses).catch(() => undefined);
    if (lab === undefined) return undefined;
    const session = this.services.labAgents.sessionIfAny(uri);
    if (session === undefined || !isLabActionAllowed(session.capabilities, 'consoles', lab.mode)) return undefined;
    const id = `${uri.toString()}#consoles`;
    const data = { uri: uri.toString() };
    let children: Row[];
    let settling = false;
    try {
      const consoles = await session.agent().listProjectConsoles(observationPayload(lab));
      children = consoleRows({ uri: uri.toString(), mode: lab.mode }, consoles, session.capabilities);
      settling = consolesSettling(consoles);
      if (children.length === 0) children = [messageRow(`${id}:none`, 'No consoles', 'info', data)];
    } catch (err) {
      if (err instanceof AgentError && err.code === 'lab_not_found') {
        children = [
          messageRow(`${id}:absent`, 'Not deployed', 'circle-outline', data, 'Deploy the lab to get consoles.'),
        ];
      } else {
        children = [messageRow(`${id}:error`, 'Consoles unavailable', 'warning', data, describeError(err).message)];
      }
    }
    const row: Row = {
      id,
      label: lab.name,
      description: vscode.workspace.asRelativePath(uri),
      icon: 'beaker',
      contextValue: 'consoleLab',
      collapsible: 'expanded',
      children,
      data,
    };
    return { row, settling };
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
