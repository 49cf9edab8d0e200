/**
 * After a crash (kill -9, power loss) the kernel still holds what the agent
 * made. On start, the agent removes exactly that: the namespaces its object
 * journal lists, and any namespace, cgroup or FRR run directory carrying its
 * own prefix (which has its agent id in it), with the processes inside them
 * (by cgroup too, so a process that left its namespace is found). The
 * namespaces of the labs it saved are kept: the agent takes those back.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { NodeCgroups } from './cgroup';
import { deleteNamespace, listNamespaces } from './kernel';
import { removeRouter } from './frr';
import type { LinuxNames } from './names';
import type { ObjectJournal } from './object-journal';
import { FRR_RUN_DIR } from './system';

/** Removes every leftover of this agent; returns the namespaces removed. */
export async function cleanLeftovers(
  names: LinuxNames,
  journal: ObjectJournal,
  cgroups: NodeCgroups,
  keep: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const live = new Set(await listNamespaces());
  const runDirs = existsSync(FRR_RUN_DIR) ? readdirSync(FRR_RUN_DIR) : [];
  const ours = new Set([
    ...journal.recorded.filter((ns) => ns.startsWith(names.prefix)),
    ...[...live].filter((ns) => ns.startsWith(names.prefix)),
    ...runDirs.filter((dir) => dir.startsWith(names.prefix)),
    ...cgroups.list(names.prefix),
  ]);
  const removed: string[] = [];
  for (const ns of ours) {
    // The namespaces of saved labs are taken back, not removed (adoption.ts).
    if (keep.has(ns)) continue;
    // FRR daemons first (verified by their path space), then everything else in the namespace.
    await removeRouter(ns);
    await cgroups.kill(ns);
    if (live.has(ns)) {
      await deleteNamespace(ns);
      removed.push(ns);
    }
    await cgroups.remove(ns);
    journal.forget(ns);
  }
  return removed;
}
