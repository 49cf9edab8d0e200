/**
 * Failed logins slow down the one who fails, not the user they aim at (decisions §12). Failures
 * are counted per user at an address, per user and per address; past a few free failures each
 * key is locked for a time that doubles with every further failure. A user's right password from
 * an address where that user logged in before is held only by the failures at that same address,
 * so guessing a user's password from elsewhere (or spraying passwords over many users) does not
 * lock the user out. Attempts count before their password is checked, so parallel guesses are
 * held too; a right password gives its attempt back.
 */

export interface ThrottleLimits {
  /** Failures allowed before a key is locked: per user at one address, per user, per address. */
  freePerPair: number;
  freePerUser: number;
  freePerAddress: number;
  /** The first lock, doubled with each further failure, up to `maxLockMs`. */
  firstLockMs: number;
  maxLockMs: number;
  /** Failures older than this are forgotten. */
  forgetAfterMs: number;
  /** Keys and known (user, address) pairs kept at most, each: the oldest go first. */
  maxEntries: number;
}

export const LOGIN_THROTTLE: Readonly<ThrottleLimits> = {
  freePerPair: 5,
  freePerUser: 20,
  freePerAddress: 100,
  firstLockMs: 1000,
  maxLockMs: 60_000,
  forgetAfterMs: 15 * 60_000,
  maxEntries: 10_000,
};

interface Failures {
  count: number;
  lastAt: number;
}

/** One kind of key (pairs, users or addresses) and its free failures. */
class FailureCounts {
  private readonly entries = new Map<string, Failures>();

  constructor(
    private readonly free: number,
    private readonly limits: ThrottleLimits,
  ) {}

  /** Milliseconds the key is still locked for (0: not locked): from its last failure, doubling with each past `free`. */
  lockedFor(key: string, now: number): number {
    const entry = this.current(key, now);
    if (!entry || entry.count < this.free) return 0;
    const lock = Math.min(this.limits.maxLockMs, this.limits.firstLockMs * 2 ** Math.min(entry.count - this.free, 30));
    return Math.max(0, entry.lastAt + lock - now);
  }

  /** Counts a failure; returns the count and when the one before was (for `undo`). */
  fail(key: string, now: number): { count: number; before: number } {
    const entry = this.current(key, now) ?? { count: 0, lastAt: 0 };
    const before = entry.lastAt;
    entry.count++;
    entry.lastAt = now;
    // Re-inserted so the map's order is the order of last failure: the oldest is dropped first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return { count: entry.count, before };
  }

  /** Takes back a failure counted by `fail` (an attempt that turned out right), with its time. */
  undo(key: string, before: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.count--;
    entry.lastAt = before;
    if (entry.count <= 0) this.entries.delete(key);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private current(key: string, now: number): Failures | undefined {
    const entry = this.entries.get(key);
    if (entry && now - entry.lastAt > this.limits.forgetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

/** An attempt that may check its password, with what `succeeded` needs to take it back. */
export interface AllowedAttempt {
  allowed: true;
  /** Failures in a row of this user at this address, this attempt included. */
  failures: number;
  username: string;
  address: string;
  userBefore: number;
  addressBefore: number;
}

export type Attempt = AllowedAttempt | { allowed: false; retryAfterMs: number };

export class LoginThrottle {
  private readonly pairs: FailureCounts;
  private readonly users: FailureCounts;
  private readonly addresses: FailureCounts;
  /** (user, address) pairs with a successful login: not held by the user's or the address's lock. */
  private readonly known = new Set<string>();

  constructor(
    private readonly clock: () => number,
    private readonly limits: ThrottleLimits = LOGIN_THROTTLE,
  ) {
    this.pairs = new FailureCounts(limits.freePerPair, limits);
    this.users = new FailureCounts(limits.freePerUser, limits);
    this.addresses = new FailureCounts(limits.freePerAddress, limits);
  }

  /** Before a password is checked: whether it may be, counting it as a failure until `succeeded`. */
  attempt(username: string, address: string): Attempt {
    const now = this.clock();
    const pair = pairKey(username, address);
    const wait = Math.max(
      this.pairs.lockedFor(pair, now),
      this.known.has(pair) ? 0 : Math.max(this.users.lockedFor(username, now), this.addresses.lockedFor(address, now)),
    );
    if (wait > 0) return { allowed: false, retryAfterMs: wait };
    return {
      allowed: true,
      failures: this.pairs.fail(pair, now).count,
      username,
      address,
      userBefore: this.users.fail(username, now).before,
      addressBefore: this.addresses.fail(address, now).before,
    };
  }

  /** The password was right: the attempt was no failure, and this user's failures at this address are forgiven. */
  succeeded(attempt: AllowedAttempt): void {
    const pair = pairKey(attempt.username, attempt.address);
    this.pairs.forget(pair);
    this.users.undo(attempt.username, attempt.userBefore);
    this.addresses.undo(attempt.address, attempt.addressBefore);
    this.known.delete(pair);
    this.known.add(pair);
    if (this.known.size > this.limits.maxEntries) this.known.delete(this.known.values().next().value as string);
  }
}

function pairKey(username: string, address: string): string {
  return `${address} ${username}`;
}
