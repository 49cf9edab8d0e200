/**
 * What the four sidebar views share: the change emitter, the tree view with
 * its message line, reloading when the session changes, and, for views of
 * live lab data, loading again at the pace of refreshPacer.ts while visible.
 */
import * as vscode from 'vscode';
import { logFailure } from '../log';
import { describeError } from '../model/errors';
import { actionTaken, afterLoad, initialPace, intervalMsOf, type PaceState } from '../model/refresh-pacer';
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
    return [this, view, this.services.session.onDidChange(() => this.refresh())];
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

/**
 * A view of live lab data: it loads again on its own while visible, at the
 * pace refreshPacer.ts decides from what each load showed; hidden, it waits,
 * and loads at once when shown again if a load came due meanwhile.
 */
export abstract class LiveTree<Row extends TreeRow<unknown>> extends AgentTree<Row> {
  private pace: PaceState = initialPace;
  private timer: NodeJS.Timeout | undefined;
  private dueWhileHidden = false;

  override refresh(): void {
    this.clearTimer();
    super.refresh();
  }

  /** An action changed the lab: load now, then follow its nodes until they settle. */
  followAction(): void {
    this.pace = actionTaken(this.pace, Date.now());
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
          if (e.visible && this.dueWhileHidden) this.refresh();
        }),
      );
    }
    disposables.push({ dispose: () => this.clearTimer() });
    return disposables;
  }

  /** Each load ends here: `fingerprint` is what it showed, `settling` whether nodes are in transition. */
  protected loaded(fingerprint: string, settling: boolean): void {
    const intervalMs = intervalMsOf(vscode.workspace.getConfiguration().get(REFRESH_SETTING));
    const next = afterLoad(this.pace, { fingerprint, settling }, Date.now(), { intervalMs });
    this.pace = next.state;
    this.clearTimer();
    this.dueWhileHidden = false;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.view?.visible === false) this.dueWhileHidden = true;
      else super.refresh();
    }, next.delayMs);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
