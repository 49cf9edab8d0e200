/**
 * Nodes outlive the agent (decisions §9 "Agent restarts"): a stopped or
 * restarted agent leaves its labs' namespaces and processes running, and the
 * next start takes them back from what it saved (its labs, the object
 * journal) and what the kernel holds. A node that still runs stays running
 * with its running config; one whose processes died while the agent was away
 * is reported stopped; a namespace that is gone is made again (its node
 * stopped). Nothing that runs is restarted.
 */
import { EmuNodeStatus } from '../backend';
import { listNamespaces } from './kernel';
import type { LinuxLab, LinuxNode } from './linux-lab';
import type { Realizer } from './realizer';

export interface Adoption {
  /** Nodes that run on, per lab path. */
  running: Map<string, string[]>;
  /** Nodes that ran when the agent stopped and do not any more, per lab path. */
  stoppedWhileAway: Map<string, string[]>;
}

/** The namespaces the saved labs name (fabric and nodes): what leftover clean-up must keep. */
export function labNamespaces(labs: Iterable<LinuxLab>, realizer: Realizer): Set<string> {
  const names = new Set<string>();
  for (const lab of labs) {
    names.add(realizer.fabricNs(lab));
    for (const node of lab.nodes) names.add(realizer.nodeNs(lab, node));
  }
  return names;
}

export async function adoptLabs(
  labs: Iterable<LinuxLab>,
  realizer: Realizer,
  alive: (lab: LinuxLab, node: LinuxNode) => boolean,
): Promise<Adoption> {
  const adoption: Adoption = { running: new Map(), stoppedWhileAway: new Map() };
  const live = new Set(await listNamespaces());
  for (const lab of labs) {
    const running: string[] = [];
    const stopped: string[] = [];
    const wasRunning = (node: LinuxNode) => node.status !== EmuNodeStatus.stopped;
    if (!live.has(realizer.fabricNs(lab))) {
      // Without its fabric nothing of the lab is wired: make it all again, every node stopped.
      for (const node of lab.nodes) {
        if (wasRunning(node)) stopped.push(node.name);
        node.status = EmuNodeStatus.stopped;
      }
      await realizer.unrealizeLab(lab);
      await realizer.realizeLab(lab);
    } else {
      // A crash mid-apply can leave the kernel behind what was saved (a node made half-way).
      const halfMade = new Set(await realizer.repairFabric(lab));
      for (const node of lab.nodes) {
        const ns = realizer.nodeNs(lab, node);
        if (node.status === EmuNodeStatus.running && live.has(ns) && alive(lab, node)) {
          running.push(node.name);
          continue;
        }
        if (wasRunning(node)) stopped.push(node.name);
        node.status = EmuNodeStatus.stopped;
        node.startedAt = undefined;
        // A node caught half-way (starting, stopping, or dead) gets a fresh namespace; a stopped one keeps its own.
        if (!live.has(ns)) await realizer.realizeNode(lab, node);
        else if (wasRunning(node) || halfMade.has(node)) await realizer.reset(lab, node);
      }
    }
    if (running.length) adoption.running.set(lab.path, running);
    if (stopped.length) adoption.stoppedWhileAway.set(lab.path, stopped);
  }
  return adoption;
}
