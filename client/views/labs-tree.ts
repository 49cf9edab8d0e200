/**
 * Labs view: every *.lab.yaml / *.lab.yml of the workspace with its live status
 * (getProjectStatus) and its nodes with their state. Refreshed after actions,
 * when lab files change on disk, on demand, and while visible at the pace of
 * LiveTree (quick while a node is starting or stopping).
 */
import * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import { isLabActionAllowed } from '../model/capabilities';
import { targetOfArg } from '../model/command-args';
import { describeError } from '../model/errors';
import {
  isSettling,
  labRow,
  nodeStatesOf,
  type LabFileInfo,
  type LabLiveView,
  type LabRowData,
} from '../model/lab-rows';
import type { TreeRow } from '../model/tree-row';
import { loadLab, observationPayload } from '../labs/lab-context';
import { watchLabFiles } from '../labs/workspace-labs';
import type { Services } from '../services';
import { LiveTree, type AgentRows } from './agent-tree';
import { messageRow } from './row-item';
import { LabCommand } from '../../common/commands';
import type { ProjectStatusData } from '../../common/api/contract';

export const LabsView = {
  id: 'labAgent.labs',
} as const;

type Row = TreeRow<LabRowData>;

const FILE_CHANGE_DEBOUNCE_MS = 500;

/** Why the nodes show no live state, when the session cannot say. */
const LIVE_STATE_GONE: Partial<Record<string, string>> = {
  unreachable: 'The agent does not answer: node states show again as soon as it does.',
  expired: 'Your session ended: enter your password (status bar) to see node states again.',
};

class LabsTree extends LiveTree<Row> {
  private fileTimer: NodeJS.Timeout | undefined;

  /** Lab files changed on disk: one load for a burst of saves. */
  refreshSoon(ms: number): void {
    this.clearFileTimer();
    this.fileTimer = setTimeout(() => {
      this.fileTimer = undefined;
      if (this.view?.visible !== false) this.refresh();
    }, ms);
  }

  // No click command: a click expands the lab to its nodes; "Open Lab File" is in the menu.

  protected readonly what = 'Loading labs';

  protected override showsUnconfiguredAgents(): boolean {
    return true;
  }

  protected override flatMessage(): string | undefined {
    return LIVE_STATE_GONE[this.services.session.current.state];
  }

  protected agentData(): LabRowData {
    return { uri: '' };
  }

  protected async agentRows(_agent: string, files: vscode.Uri[]): Promise<AgentRows<Row>> {
    const results = await Promise.all(files.map((uri) => this.labRowFor(uri)));
    return { rows: results.map((r) => r.row), settling: results.some((r) => r.settling) };
  }

  private async labRowFor(uri: vscode.Uri): Promise<{ row: Row; settling: boolean }> {
    const relativePath = vscode.workspace.asRelativePath(uri);
    let lab;
    try {
      lab = await loadLab(uri, this.services.labParses);
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
    const live: LabLiveView = {};
    const session = this.services.labAgents.sessionIfAny(uri);
    if (session === undefined) live.error = this.services.labAgents.bindingOf(uri).problem;
    const caps = session?.capabilities;
    let handed: Promise<ProjectStatusData> | undefined;
    if (session?.current.state === 'connected' && isLabActionAllowed(caps, 'status', lab.mode)) {
      // After an action the lenses' follower has read it already: one request serves both, and the
      // follower has passed its node states on.
      handed = this.services.takeStatusReading(uri);
      try {
        live.status = await (handed ?? session.agent().getProjectStatus(observationPayload(lab)));
      } catch (err) {
        live.error = describeError(err).message;
      }
    }
    if (handed === undefined || live.status === undefined) this.services.nodeStatesSeen(uri, nodeStatesOf(live));
    return { row: labRow(info, live, caps), settling: isSettling(live) };
  }

  private clearFileTimer(): void {
    if (this.fileTimer !== undefined) clearTimeout(this.fileTimer);
    this.fileTimer = undefined;
  }

  override dispose(): void {
    this.clearFileTimer();
    super.dispose();
  }
}

export function registerLabsView(services: Services): vscode.Disposable[] {
  const tree = new LabsTree(services);
  return [
    ...tree.register(LabsView.id, { canSelectMany: true, showCollapseAll: true }),
    registerGuarded(services, LabCommand.refreshLabs, 'Refresh labs', () => tree.refresh()),
    registerGuarded(services, LabCommand.openLabFile, 'Open lab file', async (arg) => {
      const target = targetOfArg(arg);
      if (target === undefined) throw new Error('Pick a lab in the Labs view to open its file.');
      await vscode.window.showTextDocument(vscode.Uri.parse(target.uri, true), { preview: false });
    }),
    services.onLabViewsStale(() => tree.followAction()),
    services.labAgents.onDidChange(() => tree.refresh()),
    watchLabFiles(() => tree.refreshSoon(FILE_CHANGE_DEBOUNCE_MS)),
  ];
}
