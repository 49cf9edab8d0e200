/**
 * The tests' one source of reproducible randomness: a seed gives the same
 * sequence on every machine, so a failing random case can be replayed.
 */

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic pseudo-random whole numbers: each call `pick(n)` answers one in [0, n). */
export function seededPick(seed: number): (n: number) => number {
  const random = seededRandom(seed);
  return (n) => Math.floor(random() * n);
}
