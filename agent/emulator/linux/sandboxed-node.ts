/**
 * What hosts and switches share: the node is a bubblewrap sandbox in its own
 * user namespace (sandbox.ts) that holds the network namespace; commands and
 * consoles run inside it as the node's root; it lives while its sandbox does.
 */
import { EmuError } from '../backend';
import type { LinuxNode } from './linux-lab';
import type { NodeKind } from './node-kind';
import { safeHostname, sandboxExecArgv, sandboxInit, startSandbox, type SandboxSetup } from './sandbox';

export abstract class SandboxedNode implements NodeKind {
  abstract readonly configEffect: NodeKind['configEffect'];

  constructor(protected readonly setup: SandboxSetup) {}

  abstract start(ns: string, node: LinuxNode): Promise<void>;

  /** Its name when that is a plain host name. */
  hostname(node: LinuxNode): string {
    return safeHostname(node.name, `node${node.id}`);
  }

  async createNamespace(ns: string, node: LinuxNode): Promise<void> {
    await startSandbox(ns, this.hostname(node), this.setup);
  }

  async stop(ns: string, _node: LinuxNode, graceMs: number): Promise<void> {
    await this.setup.cgroups.terminate(ns, graceMs);
  }

  /** Without a list at hand (taking nodes back after a restart), it lives while its sandbox does. */
  alive(ns: string, namespaces?: ReadonlySet<string>): boolean {
    return namespaces ? namespaces.has(ns) : sandboxInit(ns, this.setup.cgroups) !== undefined;
  }

  execArgv(ns: string, _node: LinuxNode, command: string): string[] {
    return this.inNode(ns, ['sh', '-c', command]);
  }

  /** A login-less shell as the node's root. */
  consoleArgv(ns: string): string[] {
    return this.inNode(ns, ['bash', '--norc', '--noprofile', '-i'], { PS1: '\\u@\\h:\\w\\$ ' });
  }

  /** argv that runs `program` in the node's sandbox. */
  protected inNode(ns: string, program: readonly string[], env: Record<string, string> = {}): string[] {
    const init = sandboxInit(ns, this.setup.cgroups);
    if (init === undefined) throw new EmuError('refused', `the sandbox of ${ns} is not running.`);
    return sandboxExecArgv(ns, init, this.setup, program, env);
  }
}
