/**
 * The loop of a visible view of live lab data (the Labs and Consoles views,
 * the topology view): after each load it waits as refresh-pacer.ts decides,
 * then loads again; a load that comes due while the view is hidden waits
 * until the view is shown. One loop per view, so every view follows the lab
 * at the same cadence and backs off the same way.
 */
import { actionTaken, afterLoad, initialPace, type PaceState } from './refresh-pacer';

export interface PacedView {
  /** The interval while things change (from labAgent.refresh.intervalSeconds), read at each load. */
  intervalMs(): number;
  visible(): boolean;
  /** Loads again; the load ends with `loaded` (or not at all, when there is nothing live to follow). */
  load(): void;
}

export class PacedRefresh {
  private pace: PaceState = initialPace;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dueWhileHidden = false;

  constructor(private readonly view: PacedView) {}

  /** A load finished: `fingerprint` is what it showed, `settling` whether nodes are in transition. */
  loaded(fingerprint: string, settling: boolean): void {
    const next = afterLoad(this.pace, { fingerprint, settling }, Date.now(), { intervalMs: this.view.intervalMs() });
    this.pace = next.state;
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.view.visible()) this.view.load();
      else this.dueWhileHidden = true;
    }, next.delayMs);
  }

  /** An action changed the lab: the loads that follow come at the settling pace for a while. */
  followAction(): void {
    this.pace = actionTaken(this.pace, Date.now());
  }

  /** The view was shown again: it loads at once if a load came due meanwhile. */
  shown(): void {
    if (!this.dueWhileHidden) return;
    this.dueWhileHidden = false;
    this.view.load();
  }

  /** No next load until the next `loaded` (a load is starting anyway, or the view is going away). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.dueWhileHidden = false;
  }
}
