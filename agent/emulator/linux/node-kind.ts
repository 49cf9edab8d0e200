/**
 * What a node does depends on its kind, and only here: each kind (router,
 * host, switch) is one type with its own namespace, start, stop, exec and
 * console, as FRR's topotests have TopoRouter, TopoHost and TopoSwitch. The
 * realizer and the emulator ask a node's kind and never test which it is.
 */
import type { EmuNode } from '../backend';
import type { LinuxNode } from './linux-lab';

export interface NodeKind {
  /** How a changed startup config reaches a running node; undefined when the node has no config. */
  readonly configEffect: EmuNode['configEffect'];
  /** The hostname the node runs with. */
  hostname(node: LinuxNode): string;
  /** Makes the node's network namespace `ns` (its cgroup exists already). */
  createNamespace(ns: string, node: LinuxNode): Promise<void>;
  /** Boots the node in `ns`, whose interfaces are wired and up; throws when it cannot. */
  start(ns: string, node: LinuxNode): Promise<void>;
  /**
   * Lets the node's processes end cleanly within `graceMs` (a router saves its
   * running config first); the realizer then kills whatever is left.
   */
  stop(ns: string, node: LinuxNode, graceMs: number): Promise<void>;
  /** Whether a node marked running still runs; `namespaces`, when at hand, lists the namespaces that exist. */
  alive(ns: string, namespaces?: ReadonlySet<string>): boolean;
  /** argv that runs one command on the running node and exits. */
  execArgv(ns: string, node: LinuxNode, command: string): string[];
  /** argv of an interactive console on the running node. */
  consoleArgv(ns: string, node: LinuxNode): string[];
  /** The running config of a node that has one (a router), read now. */
  runningConfig?(ns: string, node: LinuxNode): Promise<string | undefined>;
  /** Applies a changed startup config to the running node live; `from` is what it had, `hostname` the one it ran with. */
  pushConfig?(ns: string, node: LinuxNode, from: string | undefined, hostname: string): Promise<void>;
}
