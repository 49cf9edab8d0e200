/** The node kinds of this machine, and which one a node is (by its template; catalogue.ts). */
import type { StoredNode } from '../lab-store';
import { TEMPLATE_KIND, type KindName } from './catalogue';
import { HostNode } from './host-node';
import type { NodeKind } from './node-kind';
import { RouterNode } from './router-node';
import type { SandboxSetup } from './sandbox';
import { SwitchNode } from './switch-node';
import type { LinuxHost } from './system';

export class NodeKinds {
  private readonly kinds: Readonly<Record<KindName, NodeKind>>;

  constructor(host: LinuxHost, setup: SandboxSetup) {
    this.kinds = { router: new RouterNode(host, setup), host: new HostNode(setup), switch: new SwitchNode(setup) };
  }

  /** A template this emulator does not know makes a host (the catalogue refuses such nodes before they start). */
  of(node: StoredNode): NodeKind {
    return this.kinds[TEMPLATE_KIND[node.template] ?? 'host'];
  }
}
