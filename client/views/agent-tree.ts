/**
 * What the four sidebar views share: the change emitter, the tree view with
 * its message line, reloading when the session changes, and, for views of
 * live lab data, loading again at the pace of refresh-pacer.ts while visible.
 */
import * as vscode from 'vscode';
import type { Session } from '../connection/session';
import { logFailure } from '../log';
import { AGENT_ROW, groupByAgent, type AgentGroup } from '../model/agent-rows';
import { describeError } from '../model/errors';
import { PacedRefresh } from '../model/paced-refresh';
import { intervalMsOf } from '../model/refresh-pacer';
import type { TreeRow } from '../model/tree-row';
import type { Services } from '../services';
import { treeItemOf } from './row-item';

export const REFRESH_SETTING = 'labAgent.refresh.intervalSeconds';

export abstract class AgentTree<Row extends TreeRow<unknown>>
  implements vscode.TreeDataProvider<Row>, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  protected view: vscode.TreeView<Row> | undefined;

  constructor(protected readonly services: Services) {}

  abstract getChildren(row?: Row): Promise<Row[]>;

  getTreeItem(row: Row): vscode.TreeItem {
    return treeItemOf(row);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Creates the tree view; it loads again whenever the session changes. */
  register(id: string, options: Omit<vscode.TreeViewOptions<Row>, 'treeDataProvider'> = {}): vscode.Disposable[] {
    const view = vscode.window.createTreeView(id, { ...options, treeDataProvider: this });
    this.view = view;
    return [this, view, this.services.agents.onDidChange(() => this.refresh())];
  }

  /**
   * Each agent's rows under its own row (flat with the default agent alone).
   * `rowsOf` gives an agent's rows; agents named by a lab binding but not
   * configured (`extra`) get a row that says so.
   */
  protected grouped<T>(
    rowsOf: (agent: string) => TreeRow<T>[],
    data: (agent: string) => T,
    extra: readonly string[] = [],
  ): TreeRow<T>[] {
    const sessions = this.services.agents.all();
    const groups: AgentGroup<T>[] = sessions.map((s: Session) => ({
      agent: s.name,
      state: s.current.state,
      baseUrl: s.current.baseUrl,
      username: s.current.username,
      problem: s.current.problem,
      rows: rowsOf(s.name),
    }));
    for (const agent of extra)
      if (!sessions.some((s) => s.name === agent)) groups.push({ agent, state: undefined, rows: rowsOf(agent) });
    return groupByAgent(groups, data);
  }

  /** The line above the rows (undefined: none). */
  protected setMessage(message: string | undefined): void {
    if (this.view !== undefined) this.view.message = message;
  }

  /**
   * Loading the rows failed: log it and show why instead of the rows. A lost
   * session or an unreachable agent is already known to the session, which saw the call fail.
   */
  protected failed(what: string, err: unknown): Row[] {
    logFailure(this.services.log, what, err);
    this.setMessage(`${what} failed: ${describeError(err).message}`);
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The interval between loads of live lab data while things change, from the setting. */
export function refreshIntervalMs(): number {
  return intervalMsOf(vscode.workspace.getConfiguration().get(REFRESH_SETTING));
}

/**
 * A view of live lab data: it loads again on its own while visible, at the
 * pace refresh-pacer.ts decides from what each load showed; hidden, it waits,
 * and loads at once when shown again if a load came due meanwhile.
 */
export abstract class LiveTree<Row extends TreeRow<unknown>> extends AgentTree<Row> {
  private readonly paced = new PacedRefresh({
    intervalMs: refreshIntervalMs,
    visible: () => this.view?.visible !== false,
    load: () => this.refresh(),
  });
  /** Agents whose row the user collapsed: what is under them is off screen, so their agents are not asked. */
  protected readonly collapsedAgents = new Set<string>();

  override refresh(): void {
    this.paced.cancel();
    super.refresh();
  }

  /** An action changed the lab: load now, then follow its nodes until they settle. */
  followAction(): void {
    this.paced.followAction();
    this.refresh();
  }

  override register(
    id: string,
    options: Omit<vscode.TreeViewOptions<Row>, 'treeDataProvider'> = {},
  ): vscode.Disposable[] {
    const disposables = super.register(id, options);
    const view = this.view;
    if (view !== undefined) {
      disposables.push(
        view.onDidChangeVisibility((e) => {
          if (e.visible) this.paced.shown();
        }),
        view.onDidCollapseElement(({ element }) => {
          if (element.contextValue === AGENT_ROW) this.collapsedAgents.add(element.label);
        }),
        view.onDidExpandElement(({ element }) => {
          if (element.contextValue === AGENT_ROW && this.collapsedAgents.delete(element.label)) this.refresh();
        }),
      );
    }
    disposables.push({ dispose: () => this.paced.cancel() });
    return disposables;
  }

  /** Each load ends here: `fingerprint` is what it showed, `settling` whether nodes are in transition. */
  protected loaded(fingerprint: string, settling: boolean): void {
    this.paced.loaded(fingerprint, settling);
  }
}
