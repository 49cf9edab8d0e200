/**
 * Keeps the topology view's live state (node states, the plan's drift)
 * current while the view is visible: at the pace of the Labs view
 * (refresh-pacer.ts), after actions, and one fetch at a time.
 */
import type * as vscode from 'vscode';
import type { LabPlan } from '../../common/protocol';
import { describeError } from '../model/errors';
import { isSettling } from '../model/lab-rows';
import { PacedRefresh } from '../model/paced-refresh';
import type { Services } from '../services';
import { refreshIntervalMs } from '../views/agent-tree';
import type { LiveInfo } from './graph-model';
import type { LabDrawing } from './lab-drawing';
import { fetchLiveInfo } from './live-state';

/** What a fetch asks for: the node states, the plan, or both. */
interface LiveParts {
  status: boolean;
  plan: boolean;
}

export class LivePoller {
  private readonly paced = new PacedRefresh({
    intervalMs: refreshIntervalMs,
    visible: () => this.panel.visible && !this.isDisposed(),
    load: () => void this.fetch({ status: true, plan: false }),
  });
  /** The live fetch in flight, so that polls do not pile up on a slow agent. */
  private fetching: Promise<void> | undefined;
  /** What was asked for while a fetch ran, fetched after it. */
  private pending: LiveParts | undefined;

  constructor(
    private readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly drawing: LabDrawing,
    /** The lab's plan as the language server shares it with the plan lens. */
    private readonly sharedPlan: () => Promise<LabPlan | null | undefined>,
    private readonly isDisposed: () => boolean,
  ) {}

  /** An action changed the lab (here or in another view): follow it as the views do. */
  followAction(): void {
    this.paced.followAction();
  }

  /** Shown for the first time: the live lab is fetched; shown again: at once if a load came due while hidden. */
  visibilityChanged(): void {
    if (!this.panel.visible || !this.drawing.pageReady) return;
    if (this.drawing.live === undefined) void this.fetch({ status: true, plan: true });
    else this.paced.shown();
  }

  fetch(what: LiveParts): Promise<void> {
    if (!this.panel.visible || this.isDisposed()) return Promise.resolve();
    if (this.fetching) {
      // Its answer may predate what made this ask (a push): fetch once more when it ends.
      this.pending = {
        status: what.status || this.pending?.status === true,
        plan: what.plan || this.pending?.plan === true,
      };
      return this.fetching;
    }
    this.paced.cancel();
    this.fetching = fetchLiveInfo(this.services, this.uri, what, this.drawing.live, this.sharedPlan)
      .then((live) => {
        this.drawing.showLive(live);
        if (live.connected && !this.isDisposed()) this.paced.loaded(liveFingerprint(live), isSettling(live));
      })
      .catch((err: unknown) => {
        const message = describeError(err).message;
        this.services.log.warn(`Topology live state: ${message}`);
        // Tried again later, more slowly while it keeps failing the same way.
        if (!this.isDisposed()) this.paced.loaded(`failed: ${message}`, false);
      })
      .finally(() => {
        this.fetching = undefined;
        const next = this.pending;
        this.pending = undefined;
        if (next) void this.fetch(next);
      });
    return this.fetching;
  }

  stop(): void {
    this.paced.cancel();
  }
}

/** What a status load showed, to tell change from idleness: the lab's state and each node's. */
function liveFingerprint(live: LiveInfo): string {
  const status = live.status;
  const nodes = (status?.nodes ?? []).map((n) => `${String(n.name)}=${String(n.state)}`);
  return JSON.stringify([live.statusError, status?.state, status?.locked, nodes]);
}
