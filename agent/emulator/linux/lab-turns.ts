/**
 * Calls on one lab take turns by what they touch. A change to the lab's
 * structure (the lab itself, its networks, a node's edit or removal) runs
 * alone: after every earlier call on the lab, before every later one. A call
 * on one node (start, stop, console, wiring one of its interfaces, …) runs after the structure changes and
 * the calls on that node queued before it, side by side with calls on other
 * nodes. A call on no node in particular (a read of the whole lab, adding a
 * node that no other call can name yet) waits only for the structure changes.
 * Labs with nothing queued are forgotten.
 */
interface LabQueue {
  /** The last structure change queued. */
  structure: Promise<unknown>;
  /** The other calls queued since that change: the next change waits for them. */
  since: Set<Promise<unknown>>;
  /** The last call queued on each node. */
  nodes: Map<number, Promise<unknown>>;
  /** Calls queued and not settled. */
  pending: number;
}

export class LabTurns {
  private readonly labs = new Map<string, LabQueue>();

  /** Runs `work` alone on the lab. */
  structure<T>(path: string, work: () => T | Promise<T>): Promise<T> {
    const queue = this.queue(path);
    const mine = settledAll([queue.structure, ...queue.since]).then(work);
    queue.structure = mine;
    queue.since = new Set();
    return this.track(path, queue, mine);
  }

  /** Runs `work` on one node of the lab (`node` undefined: on none in particular). */
  node<T>(path: string, node: number | undefined, work: () => T | Promise<T>): Promise<T> {
    const queue = this.queue(path);
    const mine = settledAll([queue.structure, node === undefined ? undefined : queue.nodes.get(node)]).then(work);
    queue.since.add(mine);
    if (node !== undefined) queue.nodes.set(node, mine);
    return this.track(path, queue, mine, () => {
      queue.since.delete(mine);
      if (node !== undefined && queue.nodes.get(node) === mine) queue.nodes.delete(node);
    });
  }

  /** Settles once every call queued so far has settled. */
  async settled(): Promise<void> {
    await settledAll([...this.labs.values()].flatMap((q) => [q.structure, ...q.since]));
  }

  private queue(path: string): LabQueue {
    let queue = this.labs.get(path);
    if (!queue) {
      queue = { structure: Promise.resolve(), since: new Set(), nodes: new Map(), pending: 0 };
      this.labs.set(path, queue);
    }
    return queue;
  }

  private async track<T>(path: string, queue: LabQueue, mine: Promise<T>, done?: () => void): Promise<T> {
    queue.pending++;
    try {
      return await mine;
    } finally {
      done?.();
      if (--queue.pending === 0 && this.labs.get(path) === queue) this.labs.delete(path);
    }
  }
}

async function settledAll(calls: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  await Promise.allSettled(calls.filter((call) => call !== undefined));
}
