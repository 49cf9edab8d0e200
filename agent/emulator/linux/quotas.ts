import { totalmem } from 'node:os';

/** Memory counted for a start under way: a router's daemons (about 25 MiB) and the vtysh that probes them, with room to spare. */
const START_MEMORY = 64 * 1024 * 1024;

/** Quotas that keep one user from exhausting the machine (agent/README.md lists them); defaults where a flag can change one. */
export const QUOTAS = {
  /**
   * Nodes in one lab, unless `--max-nodes-per-lab` says otherwise (decisions §11): a router
   * holds about 25 MiB, so 256 fit beside others on a small machine; an operator who means
   * a bigger lab, and has the memory, raises it.
   */
  nodesPerLab: 256,
  /** Labs on this agent. */
  labs: 64,
  /** Node starts under way at once on this agent at least and at most, whatever the machine. */
  concurrentStarts: { min: 8, max: 1024 },
};

/**
 * Node starts under way at once on this agent, unless `--concurrent-starts` says otherwise: one per
 * 64 MiB of the machine's memory (384 on 24 GiB, 64 on 4 GiB), within QUOTAS.concurrentStarts.
 * A start is mostly CPU work (FRR's daemons and vtysh load their command trees): on an idle
 * machine 8 at once keep the CPUs busy, but on a shared one each start under way gets its share
 * of the CPU as any other process does: 200 routers started 8 at a time took 571 s where the bench's
 * baseline built the whole ring, every router at once, in 366 s (load about 20). What bounds them
 * is then memory: starts under way, even all at once, hold well under the machine's.
 */
export function defaultConcurrentStarts(memory = totalmem()): number {
  const { min, max } = QUOTAS.concurrentStarts;
  return Math.min(max, Math.max(min, Math.floor(memory / START_MEMORY)));
}
