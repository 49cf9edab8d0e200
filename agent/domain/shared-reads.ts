/**
 * Reads that arrive while an identical read is under way get its answer: plan,
 * status and the observation of one lab cost one computation however many
 * clients ask at once, instead of taking turns on the event loop. Only reads in
 * flight are shared, never kept; callers put the lab's write generation
 * (lab-activity.ts) in the key, so a read never joins one begun before a write.
 *
 * A read starts one event-loop turn late: its work is mostly synchronous, and
 * the requests that arrived with it are read in that turn and join it instead
 * of each doing the same work after it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export class SharedReads {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  share<T>(key: string, read: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const mine = nextTurn()
      .then(read)
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, mine);
    return mine;
  }
}
