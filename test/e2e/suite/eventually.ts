/** Waiting in the end-to-end suite for what the extension does asynchronously. */

/** Polls `probe` until it returns something other than undefined. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`, {
        cause: lastError,
      });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
