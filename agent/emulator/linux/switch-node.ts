/** A layer-2 switch: a bridge br0 in a sandbox, with every interface on it; it has no config. */
import { mustRun } from './command';
import { addBridge } from './kernel';
import { INTERFACE_NAMES, type LinuxNode } from './linux-lab';
import { SandboxedNode } from './sandboxed-node';

export class SwitchNode extends SandboxedNode {
  readonly configEffect = undefined;

  async start(ns: string, node: LinuxNode): Promise<void> {
    await addBridge(ns, 'br0');
    for (let index = 0; index < node.links.length; index++)
      await mustRun('ip', ['-n', ns, 'link', 'set', INTERFACE_NAMES.nameAt(index), 'master', 'br0']);
  }
}
