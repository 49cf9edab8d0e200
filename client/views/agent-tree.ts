/**
 * What the four sidebar views share: the change emitter, the tree view with
 * its message line, reloading when the session changes, and, for views of
 * live lab data, loading again at the pace of refresh-pacer.ts while visible.
 */
import * as vscode from 'vscode';
import type { Session } from '../connection/session';
import { logFailure } from '../log';
import { agentOfRow, agentRow, groupByAgent, isFlat, underAgent, type AgentHead } from '../model/agent-rows';
import { describeError } from '../model/errors';
import { PacedRefresh } from '../model/paced-refresh';
import { intervalMsOf } from '../model/refresh-pacer';
import { rowsFingerprint, type TreeRow } from '../model/tree-row';
import { findLabFiles } from '../labs/workspace-labs';
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
    return groupByAgent(
      this.agentHeads(extra).map((head) => ({ ...head, rows: rowsOf(head.agent) })),
      data,
    );
  }

  /** Every configured agent as its row shows it, then those only `extra` names (not configured). */
  protected agentHeads(extra: readonly string[] = []): AgentHead[] {
    const sessions = this.services.agents.all();
    const heads: AgentHead[] = sessions.map((s: Session) => ({
      agent: s.name,
      state: s.current.state,
      baseUrl: s.current.baseUrl,
      username: s.current.username,
      problem: s.current.problem,
    }));
    for (const agent of new Set(extra))
      if (!sessions.some((s) => s.name === agent)) heads.push({ agent, state: undefined });
    return heads;
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

/** One agent's rows in a view of live lab data, and what the pace of the next load depends on. */
export interface AgentRows<Row> {
  rows: Row[];
  /** Whether a node is starting or stopping. */
  settling: boolean;
}

/**
 * A view of live lab data, one row per lab file of the workspace: it loads
 * again on its own while visible, at the pace refresh-pacer.ts decides from
 * what each load showed; hidden, it waits, and loads at once when shown again
 * if a load came due meanwhile. With several agents, each agent's labs are
 * read when VS Code asks for the children of its row, which it does only while
 * that row is expanded: a collapsed agent is not asked, and a slow agent delays
 * only its own row.
 */
export abstract class LiveTree<Row extends TreeRow<unknown>> extends AgentTree<Row> {
  private readonly paced = new PacedRefresh({
    intervalMs: refreshIntervalMs,
    visible: () => this.view?.visible !== false,
    load: () => this.refresh(),
  });
  /** What each agent's last load showed, since the last load of the agents' rows. */
  private readonly shown = new Map<string, { fingerprint: string; settling: boolean }>();

  /** What "Loading …" failed says. */
  protected abstract readonly what: string;

  /** The rows of the labs in `files`, all bound to `agent`, read from it. */
  protected abstract agentRows(agent: string, files: vscode.Uri[]): Promise<AgentRows<Row>>;

  /** What an agent's own row carries. */
  protected abstract agentData(agent: string): Row['data'];

  /** Whether the view shows agents named only by a lab binding (not configured), with their labs. */
  protected showsUnconfiguredAgents(): boolean {
    return false;
  }

  /** Whether there is anything to show (else the view's welcome text shows). */
  protected hasRows(): boolean {
    return true;
  }

  /** The line above the default agent's rows when they show alone (with several agents, each agent's row says its state). */
  protected flatMessage(): string | undefined {
    return undefined;
  }

  async getChildren(row?: Row): Promise<Row[]> {
    if (row === undefined) return this.topRows();
    const agent = agentOfRow(row);
    if (agent === undefined || row.children !== undefined) return (row.children ?? []) as Row[];
    try {
      const part = await this.agentRows(agent, await this.filesOf(agent));
      this.partLoaded(agent, part);
      return underAgent(part.rows, agent) as Row[];
    } catch (err) {
      return this.failed(this.what, err);
    }
  }

  /** The default agent's labs alone, or a row per agent whose labs load when it is expanded. */
  private async topRows(): Promise<Row[]> {
    if (!this.hasRows()) return [];
    try {
      const files = await findLabFiles();
      const bound = files.map((uri) => this.services.labAgents.bindingOf(uri).agent);
      const heads = this.agentHeads(this.showsUnconfiguredAgents() ? bound : []);
      this.shown.clear();
      if (!isFlat(heads)) {
        this.setMessage(undefined);
        return heads.map((head) => agentRow(head, this.agentData(head.agent)) as Row);
      }
      const part = await this.agentRows(
        'default',
        files.filter((_, i) => bound[i] === 'default'),
      );
      this.setMessage(this.flatMessage());
      this.partLoaded('default', part);
      return part.rows;
    } catch (err) {
      return this.failed(this.what, err);
    }
  }

  private async filesOf(agent: string): Promise<vscode.Uri[]> {
    return (await findLabFiles()).filter((uri) => this.services.labAgents.bindingOf(uri).agent === agent);
  }

  /** An agent's rows loaded: the next load comes at the pace of what every agent on screen showed. */
  private partLoaded(agent: string, part: AgentRows<Row>): void {
    if (!this.services.agents.all().some((s) => s.current.state === 'connected')) return;
    this.shown.set(agent, { fingerprint: rowsFingerprint(part.rows), settling: part.settling });
    const parts = [...this.shown].sort(([a], [b]) => a.localeCompare(b));
    this.paced.loaded(
      JSON.stringify(parts.map(([name, p]) => [name, p.fingerprint])),
      parts.some(([, p]) => p.settling),
    );
  }

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
    if (view !== undefined)
      disposables.push(
        view.onDidChangeVisibility((e) => {
          if (e.visible) this.paced.shown();
        }),
      );
    disposables.push({ dispose: () => this.paced.cancel() });
    return disposables;
  }
}
