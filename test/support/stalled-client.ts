/**
 * Checks shared by the tests of a client that stops reading a stream: the agent's memory stays
 * within a bound meanwhile, and when the client reads again it finds a bounded amount, then the end.
 */
import assert from 'node:assert/strict';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

const MiB = 1024 * 1024;

/** Samples `rss` (bytes) `samples` times, `intervalMs` apart, and fails if it grew `boundMiB` or more over `before`. */
export async function assertGrowthBounded(
  rss: () => number,
  before: number,
  boundMiB: number,
  samples: number,
  intervalMs: number,
): Promise<void> {
  let peak = before;
  for (let i = 0; i < samples && peak - before <= boundMiB * MiB; i++) {
    peak = Math.max(peak, rss());
    await sleep(intervalMs);
  }
  const grown = (peak - before) / MiB;
  assert.ok(
    grown < boundMiB,
    `the agent grew by ${grown.toFixed(0)} MiB (from ${(before / MiB).toFixed(0)} MiB) behind a client that reads nothing`,
  );
}

/** Reads the stream again and expects at most `boundMiB`, then the agent's close (within 30 s). */
export async function assertDroppedAfterBoundedRead(stream: Duplex, boundMiB: number): Promise<void> {
  const closed = new Promise<void>((resolve) => (stream.destroyed ? resolve() : stream.once('close', () => resolve())));
  let received = 0;
  stream.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > boundMiB * MiB) stream.destroy();
  });
  stream.on('error', () => undefined);
  stream.resume();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
  clearTimeout(timer);
  assert.ok(stream.destroyed, 'the agent closed the stream of the client that fell behind');
  assert.ok(received <= boundMiB * MiB, `the client received ${(received / MiB).toFixed(1)} MiB`);
}
