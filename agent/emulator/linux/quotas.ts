import { availableParallelism, totalmem } from 'node:os';

/** Memory counted for a start under way: a router's daemons (about 25 MiB) and the vtysh that probes them, with room to spare. */
const START_MEMORY = 64 * 1024 * 1024;
/** Starts under way per CPU: enough to hold the CPU's share on a busy machine, few enough that each boots within its limit. */
const STARTS_PER_CPU = 16;

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
 * Node starts under way at once on this agent, unless `--concurrent-starts` says otherwise: 16 per
 * CPU and one per 64 MiB of memory, whichever is fewer, within QUOTAS.concurrentStarts (32 on this
 * project's 2-CPU, 24 GiB machine). A start is CPU work (FRR's daemons and vtysh load their command
 * trees): on an idle machine 8 at once keep 2 CPUs busy, but on a shared one each start under way
 * gets a process's share of the CPU, so 8 at a time took 571 s for 200 routers where the bench's
 * baseline, every router at once, took 366 s (load about 20). All at once is no answer either: 200
 * starts on 2 CPUs each took minutes, and some ran past their readiness limit and were refused. A
 * start under way holds a router's daemons (about 25 MiB) and a vtysh, hence the memory bound.
 */
export function defaultConcurrentStarts(memory = totalmem(), cpus = availableParallelism()): number {
  const { min, max } = QUOTAS.concurrentStarts;
  return Math.min(max, Math.max(min, Math.min(cpus * STARTS_PER_CPU, Math.floor(memory / START_MEMORY))));
}
