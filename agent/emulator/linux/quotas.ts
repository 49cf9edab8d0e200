/** Quotas that keep one user from exhausting the machine (agent/README.md lists them). */
export const QUOTAS = {
  /** Nodes in one lab. */
  nodesPerLab: 256,
  /** Labs on this agent. */
  labs: 64,
  /** Node starts under way at once on this agent (each boots processes). */
  concurrentStarts: 8,
};
