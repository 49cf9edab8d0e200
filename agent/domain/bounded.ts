/**
 * Runs independent emulator calls side by side, at most `limit` at a time.
 * At the first failure, or when the agent stops, no further call starts; the
 * calls under way finish (so the emulator is never left mid-call and the apply
 * journal sees a settled lab), then the first error is thrown.
 */
export async function runBounded(
  tasks: readonly (() => Promise<void>)[],
  limit: number,
  signal: AbortSignal,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < tasks.length) {
      const task = tasks[next++];
      try {
        signal.throwIfAborted();
        await task();
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, tasks.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.error;
}
