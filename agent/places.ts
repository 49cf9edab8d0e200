/**
 * A fixed number of places for work of one kind (commands on the agent, node
 * starts): work beyond them waits its turn, first come first served, rather
 * than being refused, so a lab's start-all and another user's start share the
 * machine instead of failing each other.
 */
export class Places {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** Work running now in a place. */
  get busy(): number {
    return this.taken;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.taken >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.taken++;
    try {
      return await work();
    } finally {
      // The place passes straight to the next in line, or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.taken--;
    }
  }
}
