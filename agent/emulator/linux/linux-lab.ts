/** A lab and its nodes as the Linux emulator keeps them, and the names their interfaces get. */
import { compileEthFormat } from '../../../common/lab/rules/eth-format';
import type { StoredLab, StoredNode } from '../lab-store';
import { ETH_FORMAT } from './catalogue';

export interface LinuxNode extends StoredNode {
  /** The running config a graceful stop saved (EVE-NG: the runtime disk); the next start boots from it. */
  saved?: string;
  /** The startup config `saved` already includes; a later push is applied on top of it at the next start. */
  savedFrom?: string;
  /**
   * The running config as the startup config alone gives it (right after booting from it, then
   * carried along each live push): what "nothing changed on the node" looks like.
   */
  baseline?: string;
}

export interface LinuxLab extends StoredLab {
  nodes: LinuxNode[];
}

/** eth0, eth1, …: a node's interface names by index. */
export const INTERFACE_NAMES = compileEthFormat(ETH_FORMAT);
