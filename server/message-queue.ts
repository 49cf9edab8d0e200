/**
 * Knows when the server has caught up with its client. vscode-jsonrpc queues
 * incoming messages and handles one per turn of the event loop; this strategy
 * counts the messages handled, so that work deferred with `whenDrained` runs
 * only once a turn passes without one, i.e. after every edit that was already
 * waiting. Deferred work that keeps being put off (a client that never stops
 * sending) runs after MAX_DEFER_MS anyway.
 */
import type { Message, MessageStrategy } from 'vscode-languageserver/node';

type Handled = ReturnType<MessageStrategy['handleMessage']>;

const MAX_DEFER_MS = 50;

export class MessageQueue implements MessageStrategy {
  private handled = 0;
  private waiting: { since: number; tasks: Set<() => void> } | undefined;

  handleMessage(message: Message, next: (message: Message) => Handled): Handled {
    this.handled++;
    return next(message);
  }

  /** Runs `task` once the messages that arrived before it have been handled (the same task at most once). */
  whenDrained(task: () => void): void {
    if (this.waiting) {
      this.waiting.tasks.add(task);
      return;
    }
    const waiting = { since: performance.now(), tasks: new Set([task]) };
    this.waiting = waiting;
    // The first look is always deferred: the message after this one is queued behind it.
    let seen = -1;
    const check = (): void => {
      if (this.handled !== seen && performance.now() - waiting.since < MAX_DEFER_MS) {
        seen = this.handled;
        setImmediate(check);
        return;
      }
      this.waiting = undefined;
      for (const run of waiting.tasks) run();
    };
    setImmediate(check);
  }
}
