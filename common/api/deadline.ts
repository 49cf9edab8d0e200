import { AgentError } from './errors';

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The per-call time limit and the caller's AbortSignal, merged into one
 * cancellation callback that receives the AgentError to reject with.
 */
export class Deadline {
  private readonly timer: NodeJS.Timeout;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort: () => void;

  constructor(
    operationId: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    cancel: (reason: AgentError) => void,
  ) {
    this.signal = signal;
    this.onAbort = () => cancel(new AgentError('aborted', `${operationId} was cancelled.`, operationId));
    this.timer = setTimeout(
      () =>
        cancel(
          new AgentError('timeout', `${operationId} got no answer from the agent within ${timeoutMs} ms.`, operationId),
        ),
      // setTimeout fires at once for anything above 2^31-1 ms (Infinity included); cap it instead.
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
    // Deferred so that the caller's own setup has finished before it is cancelled.
    if (signal?.aborted) queueMicrotask(this.onAbort);
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
