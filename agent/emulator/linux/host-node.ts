/** A host: a shell in a sandbox; its config is a startup script (sh) that runs at each start. */
import { CommandError, runUntilExit } from './command';
import type { LinuxNode } from './linux-lab';
import { SandboxedNode } from './sandboxed-node';

const HOST_SCRIPT_TIMEOUT_MS = 30_000;

export class HostNode extends SandboxedNode {
  /** The script runs at start, so a changed one takes effect at the next. */
  readonly configEffect = 'restart';

  async start(ns: string, node: LinuxNode): Promise<void> {
    if (!node.config?.trim()) return;
    const [file, ...args] = this.inNode(ns, ['sh', '-e', '-c', node.config]);
    const result = await runUntilExit(file, args, { timeoutMs: HOST_SCRIPT_TIMEOUT_MS });
    if (result.code !== 0) throw new CommandError(`the startup script of ${node.name}`, result);
  }
}
