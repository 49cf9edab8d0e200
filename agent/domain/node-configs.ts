/**
 * One model of a node's config (decisions §4 "Node configs"), in three parts:
 * the document's config file (desired), the startup config the emulator holds
 * for the node (an observed node's `config`), and the router's own config
 * (`runningConfig`, reported when it differs from what the startup config gave).
 *
 * to_emu compares the document with the startup config, and each config change
 * says what applying it does to the node ("applied live", "takes effect when
 * r3 restarts", "… after r3 is wiped"). from_emu writes what changed on the
 * node into the document's own text, statement by statement, and says where it
 * had to write the whole config instead.
 */
import type { Direction } from '../../common/api/contract';
import { EmuError, EmuNodeStatus, type EmuNode } from '../emulator/backend';
import { applyConfigDelta, configDelta, deltaSize, sameConfig, type ConfigDelta } from '../emulator/config-contexts';
import { normaliseConfig } from './desired';
import type { ObservedTopology } from './observed';
import type { TopoNode, Topology } from './topology';

/** The observed lab as a plan in `direction` compares it: configs and their notes filled in per node. */
export function configsForDirection(
  direction: Direction,
  desired: Topology,
  observed: ObservedTopology,
): ObservedTopology {
  const nodes = new Map<string, TopoNode>();
  for (const [name, node] of observed.nodes) {
    const live = observed.liveNodes.get(name);
    const made = live && (direction === 'to_emu' ? pushed(node, live) : pulled(desired.nodes.get(name), node, live));
    nodes.set(name, made ?? node);
  }
  return { ...observed, nodes };
}

/** to_emu: the startup config is compared as it is; the note says what a change does to the node. */
function pushed(node: TopoNode, live: EmuNode): TopoNode | undefined {
  const name = live.name;
  const running = live.status !== EmuNodeStatus.stopped;
  let note: string | undefined;
  switch (live.configEffect) {
    case 'live':
      note = running
        ? `applied live to ${name}${live.runningConfig ? '; the changes made on its console stay' : ''}`
        : `${name} starts with it`;
      break;
    case 'restart':
      note = running ? `takes effect when ${name} restarts` : `${name} starts with it`;
      break;
    case 'wipe':
      note = `takes effect after ${name} is wiped`;
      break;
    default:
      return undefined;
  }
  return { ...node, configNote: note };
}

/**
 * from_emu: what the document's config becomes. Changes made on the node (its
 * own config against the one it booted into) and a startup config that differs
 * from the file are written into the file's text in place; where the file
 * cannot be mapped, the whole config replaces it and the note says so.
 */
function pulled(wanted: TopoNode | undefined, node: TopoNode, live: EmuNode): TopoNode | undefined {
  const file = wanted?.config;
  // Unread is not unchanged: a pull that went on would say the file already matches a router it could not see.
  if (live.runningConfigUnread)
    throw new EmuError(
      'unreachable',
      `the running config of ${live.name} could not be read: ${live.runningConfigUnread}`,
    );
  const own = live.runningConfig;
  if (own) {
    const delta = configDelta(own.base, own.text);
    if (!deltaSize(delta)) return undefined;
    const start = file ?? node.config;
    return withConfig(node, start, delta, own.text, 'changed on the node');
  }
  if (file === undefined || node.config === undefined) return undefined;
  // The startup config and the file say the same, written differently: nothing to pull.
  if (sameConfig(file, node.config)) return { ...node, config: file };
  return withConfig(node, file, configDelta(file, node.config), node.config, 'of the startup config');
}

function withConfig(node: TopoNode, start: string | undefined, delta: ConfigDelta, whole: string, what: string) {
  const merged = start === undefined ? undefined : applyConfigDelta(start, delta);
  const count = deltaSize(delta);
  if (merged && !merged.unmapped.length)
    return {
      ...node,
      config: normaliseConfig(merged.text),
      configNote: `${count} statement${count === 1 ? '' : 's'} ${what} written into the file in place`,
    };
  const why =
    start === undefined
      ? 'the document names no config file'
      : merged
        ? `"${merged.unmapped[0].join(' / ')}" is not in the file as the router writes it`
        : 'the file mixes tabs and spaces in its indentation';
  return { ...node, config: normaliseConfig(whole), configNote: `the whole config replaces the file: ${why}` };
}
