/**
 * Independent work side by side, at most `limit` at a time: the Linux backend's
 * kernel and FRR steps, the domain's emulator calls of an apply, the handlers'
 * bulk node operations. At the first failure, or once `signal` is aborted, no
 * further item starts; those under way finish (nothing is left half-done behind
 * the caller, and the apply journal sees a settled lab), then the first error
 * is thrown.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        signal?.throwIfAborted();
        results[index] = await work(items[index]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.error;
  return results;
}

/** Runs the tasks as mapBounded does, until `signal` is aborted. */
export async function runBounded(
  tasks: readonly (() => Promise<void>)[],
  limit: number,
  signal: AbortSignal,
): Promise<void> {
  await mapBounded(tasks, limit, (task) => task(), signal);
}
