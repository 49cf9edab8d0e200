/**
 * Work that must not overlap per key (a lab, a node's console) runs in turns:
 * each call starts after every earlier call on the same key has settled,
 * whether it succeeded or failed. Keys with nothing queued are forgotten.
 */
export class Turns {
  private readonly last = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => T | Promise<T>): Promise<T> {
    const previous = this.last.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(work);
    this.last.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.last.get(key) === mine) this.last.delete(key);
    }
  }

  /** Settles once every call queued so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.last.values()]);
  }
}
