/**
 * Names of everything the Linux emulator creates. Each carries this agent's
 * id (random, kept in its data directory) and a tag of the lab, so two agents
 * on one machine never collide and clean-up finds exactly what it made.
 *
 *   lab-<agent>-<lab>-n<node>   a node's network namespace and FRR path space
 *   lab-<agent>-<lab>-fab       the lab's fabric namespace (its bridges)
 *   n<node>e<index>             a node interface's peer, inside the fabric
 *   br<network>                 a network's bridge, inside the fabric
 */
import { createHash, randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../storage/atomic-file';

const ID_FILE = 'linux-agent-id';
const ID_PATTERN = /^[a-z0-9]{5}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** This agent's id: made once, then read from the data directory. */
export function loadAgentId(dataDir: string): string {
  const file = join(dataDir, ID_FILE);
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (ID_PATTERN.test(id)) return id;
  }
  const id = Array.from({ length: 5 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  writeFileAtomic(file, `${id}\n`);
  return id;
}

export class LinuxNames {
  /** Every namespace of this agent starts with this. */
  readonly prefix: string;

  constructor(readonly agentId: string) {
    this.prefix = `lab-${agentId}-`;
  }

  /** A short, stable tag of a lab path. */
  labTag(path: string): string {
    return createHash('sha256').update(path).digest('hex').slice(0, 6);
  }

  nodeNamespace(lab: string, nodeId: number): string {
    return `${this.prefix}${this.labTag(lab)}-n${nodeId}`;
  }

  fabricNamespace(lab: string): string {
    return `${this.prefix}${this.labTag(lab)}-fab`;
  }

  /** The fabric end of a node's interface (<= 15 characters for node ids below 10^7). */
  fabricPort(nodeId: number, index: number): string {
    return `n${nodeId}e${index}`;
  }

  bridge(networkId: number): string {
    return `br${networkId}`;
  }

  /** The network a fabric bridge name stands for. */
  parseBridge(name: string): number | undefined {
    const m = /^br(\d+)$/.exec(name);
    return m ? Number(m[1]) : undefined;
  }
}
