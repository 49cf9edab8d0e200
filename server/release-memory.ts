/**
 * Gives back to the system the heap that a large document needed once it is
 * closed. V8 grows its heap while a 10,000-node lab is edited (about 200 MiB
 * resident) and keeps it while the server idles: an idle server allocates
 * nothing, so no collection comes to shrink it, and the next lab opened is
 * added on top. One full collection shortly after the close returns it
 * (measured: 204 -> 122 MiB). It needs --expose-gc (common/server-options.ts);
 * without it, nothing happens.
 */
const LARGE_DOCUMENT_CHARS = 1024 * 1024;
/** Long enough for the close's own work (Problems cleared, caches dropped) to have let go of the document. */
const DELAY_MS = 200;

export function releaseMemoryAfterClose(closedChars: number): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc && closedChars >= LARGE_DOCUMENT_CHARS) setTimeout(gc, DELAY_MS).unref();
}
