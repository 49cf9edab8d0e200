/**
 * Which labs have a long operation in flight (import, deploy, reconcile,
 * destroy, exec), and a per-lab write counter that tells the inspect cache
 * when its entry is out of date.
 */
import type { EmulatorClient } from '../emulator/backend';
import type { ApplyJournal } from './apply-journal';
import { DomainError } from './domain-error';

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
      new DomainError(
        'stopping',
        'The agent is stopping, so this operation stopped between two emulator calls. The lab may be half-changed: once the agent is back, push the document again (reconcile to_emu) to finish the change.',
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
      throw new DomainError(
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
   * Runs an apply under the journal: `run` reports its steps as they finish. The apply is
   * acknowledged (the entry removed, the promise settled) only once the emulator says its state is
   * durable, so a crash right after the reply loses nothing the reply announced. The entry stays
   * behind only when the agent stops mid-apply, or when an apply meant to finish an interrupted one
   * fails: the lab stays marked mid-apply until a push gets through.
   */
  async journaled<T>(
    lab: string,
    operation: string,
    client: Pick<EmulatorClient, 'durable'>,
    run: (signal: AbortSignal, progress: (done: number, steps: number) => void) => Promise<T>,
  ): Promise<T> {
    const wasInterrupted = this.journal.isInterrupted(lab);
    this.journal.begin(lab, operation);
    try {
      const result = await run(this.signal, (done, steps) => this.journal.progress(lab, done, steps));
      await client.durable?.();
      this.journal.finish(lab);
      return result;
    } catch (e) {
      // A clean failure leaves the lab as the emulator reports it (apply.ts orders the steps so).
      const clean = !this.signal.aborted && !wasInterrupted;
      if (
        clean &&
        (await client.durable?.().then(
          () => true,
          () => false,
        )) !== false
      )
        this.journal.finish(lab);
      else this.journal.abandon(lab);
      throw e;
    }
  }
}
