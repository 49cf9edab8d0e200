/**
 * EVE-NG runs every lab of one user in one pod: node N of any of the user's
 * labs listens on console port 32768 + 128·tenant + N, and its status is
 * whether that port listens (`Node::getConsoleUrl`, `Node::getStatus` in
 * html/includes/__node.php). With one service account, node 1 of lab B reads
 * "running" while node 1 of lab A runs, its console answers from A, and
 * stopping it stops A's node. The agent therefore keeps, per service account,
 * which lab it started each node id in, and (docs/contract-decisions.md):
 * refuses to start a node whose id another lab's running node holds, never
 * stops a node id that another lab holds, and reports such a node stopped in
 * the lab that does not hold it. The record lives as long as the agent process.
 */
import { EmuError, EmuNodeStatus, type EmuNode } from '../backend';

export class NodePod {
  /** Node id → the lab whose node runs under it. */
  private readonly holders = new Map<number, string>();

  /**
   * Refuses (409) to `action` node `id` of `path` while another lab's node of that id runs: a
   * start would share its console port and process, and a delete stops that id in every lab.
   */
  claim(path: string, id: number, action: 'start' | 'delete' = 'start'): void {
    const holder = this.holders.get(id);
    if (holder !== undefined && holder !== path)
      throw new EmuError(
        'busy',
        `Node id ${id} of ${path} cannot ${action === 'start' ? 'start' : 'be deleted'}: EVE-NG runs all labs of the agent's service account in one pod, and node id ${id} of lab ${holder} is running there (${action === 'start' ? 'they would share its console port and process' : 'deleting a node stops that node id in the whole pod'}). Stop lab ${holder} first, or renumber the nodes.`,
      );
  }

  started(path: string, id: number): void {
    this.holders.set(id, path);
  }

  stopped(path: string, id: number): void {
    if (this.holders.get(id) === path) this.holders.delete(id);
  }

  /** Stopping (or wiping, which stops first) node `id` of `path` would not stop another lab's node. */
  mayStop(path: string, id: number): boolean {
    const holder = this.holders.get(id);
    return holder === undefined || holder === path;
  }

  forgetLab(path: string): void {
    for (const [id, holder] of this.holders) if (holder === path) this.holders.delete(id);
  }

  /** The node as this lab has it: a node id another lab runs is stopped here. */
  seen(path: string, node: EmuNode): EmuNode {
    const holder = this.holders.get(node.id);
    if (holder === path && node.status === EmuNodeStatus.stopped) this.holders.delete(node.id);
    if (holder === undefined || holder === path || node.status === EmuNodeStatus.stopped) return node;
    return { ...node, status: EmuNodeStatus.stopped };
  }
}
