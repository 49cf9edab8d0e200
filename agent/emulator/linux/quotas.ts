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
  /** Node starts under way at once on this agent (each boots processes). */
  concurrentStarts: 8,
};
