/**
 * Interface numbering between the agent and EVE-NG. The agent counts a node's
 * interfaces in name order (index 0 is the first name of the template's
 * eth_format) and `ethernet` counts interfaces. EVE-NG's `Node::setEthernets`
 * (html/includes/__node.php) does that for every type but IOL: an IOL node's
 * `ethernet` is a number of port groups of four, and port y of group x has the
 * interface id x + 16·y (e0/0 = 0, e0/1 = 16, e1/0 = 1, …). This module turns
 * one numbering into the other; names always come from the template's format
 * so that they read back exactly as a lab document writes them (EVE-NG's own
 * labels such as vMX's "em2 / ge-0/0/0" are not names a document can use).
 */
import { compileEthFormat, type EthFormat } from '../../../common/lab/rules/eth-format';
import { EmuError, type EmuTemplate } from '../backend';

/** IOL port groups hold four interfaces; group x port y is EVE-NG interface x + 16·y. */
const IOL_GROUP = 4;
const IOL_STRIDE = 16;

/** The EVE-NG interface id of the agent's interface `index`. */
export function eveInterfaceId(type: string, index: number): number {
  if (type !== 'iol') return index;
  return Math.floor(index / IOL_GROUP) + IOL_STRIDE * (index % IOL_GROUP);
}

/** The agent's interface index of EVE-NG interface `id`. */
export function agentInterfaceIndex(type: string, id: number): number {
  if (type !== 'iol') return id;
  return (id % IOL_STRIDE) * IOL_GROUP + Math.floor(id / IOL_STRIDE);
}

/** EVE-NG's `ethernet` for the agent's interface count (IOL: port groups; refused when not whole groups). */
export function eveEthernet(type: string, ethernet: number, node: string): number {
  if (type !== 'iol') return ethernet;
  if (ethernet % IOL_GROUP !== 0 || ethernet / IOL_GROUP > IOL_STRIDE)
    throw new EmuError(
      'refused',
      `${node}: EVE-NG gives IOL nodes interfaces in port groups of ${IOL_GROUP} (e0/0 … e0/3, e1/0 …), so "ethernet" must be a multiple of ${IOL_GROUP} up to ${IOL_GROUP * IOL_STRIDE}, not ${ethernet}.`,
    );
  return ethernet / IOL_GROUP;
}

/** The agent's interface count for EVE-NG's `ethernet` of a node of `type`. */
export function agentEthernet(type: string, ethernet: number): number {
  return type === 'iol' ? ethernet * IOL_GROUP : ethernet;
}

/** How a template's interfaces are named, or undefined for a template the catalogue does not know. */
export function namingOf(template: EmuTemplate | undefined): EthFormat | undefined {
  return template ? compileEthFormat(template.ethFormat, template.ethName) : undefined;
}
