/**
 * Which labs have a long operation in flight (import, deploy, reconcile,
 * destroy, exec), and a per-lab write counter that tells the inspect cache
 * when its entry is out of date.
 */
import { ApiError } from '../http/api-error';
import type { ApplyJournal } from './apply-journal';

export class LabActivity {
  private readonly busy = new Map<string, string>();
  private readonly writes = new Map<string, number>();
  private readonly shutdown = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(readonly journal: ApplyJournal) {}

  /** Aborted when the agent stops: applies end between two emulator calls. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Aborts every long operation and waits until each has stopped (its journal entry is then final). */
  async stopAll(): Promise<void> {
    this.shutdown.abort(
      new ApiError(
        'agent_stopping',
        'The agent is stopping, so this operation stopped between two emulator calls. The lab may be half-changed: once the agent is back, it answers lab_locked_mid_apply until the lab is destroyed or deployed with replace.',
      ),
    );
    await Promise.allSettled([...this.inFlight]);
  }

  /** A counter that changes whenever something may have written to the lab. */
  generation(lab: string): number {
    return this.writes.get(lab) ?? 0;
  }

  private touched(lab: string): void {
    this.writes.set(lab, this.generation(lab) + 1);
  }

  /** Runs a long operation with the lab to itself; a second one on the same lab gets 409 lab_busy. */
  async exclusive<T>(lab: string, operation: string, run: () => Promise<T>): Promise<T> {
    const current = this.busy.get(lab);
    if (current)
      throw new ApiError(
        'lab_busy',
        `Lab ${lab} is busy: a ${current} is in progress. Try again when it has finished.`,
      );
    this.busy.set(lab, operation);
    this.touched(lab);
    const running = run();
    this.inFlight.add(running);
    try {
      return await running;
    } finally {
      this.inFlight.delete(running);
      this.busy.delete(lab);
      this.touched(lab);
    }
  }

  /**
   * Runs an apply under the journal. The journal entry stays behind only when
   * the agent stops mid-apply, which is exactly the case it exists for.
   */
  async journaled<T>(lab: string, operation: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const wasInterrupted = this.journal.isInterrupted(lab);
    this.journal.begin(lab, operation);
    try {
      const result = await run(this.signal);
      this.journal.finish(lab);
      return result;
    } catch (e) {
      // A clean failure leaves the lab as the emulator reports it; a lab that was already
      // interrupted stays locked until an apply that clears it succeeds.
      if (!this.signal.aborted && !wasInterrupted) this.journal.finish(lab);
      throw e;
    }
  }
}
