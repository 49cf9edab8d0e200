/**
 * The template and interface name that local messages give as examples, taken
 * from the connected agent's catalogue: `template: frr` and `r1:eth0` on a
 * Linux agent, `template: vios` and `r1:Gi0/0` on an EVE-NG one. A user copies
 * an example; one the agent does not have is a new mistake.
 */
import type { MessageExamples } from '../common/lab/rules/validate';
import type { Catalogue } from './catalogue';

/** The agent's first provisioned template (a node of it can run) and its first interface; undefined without an agent's answer. */
export async function examplesFromCatalogue(catalogue: Catalogue): Promise<MessageExamples | undefined> {
  const templates = (await catalogue.templates())?.filter((t) => typeof t.id === 'string' && t.id !== '');
  const chosen = templates?.find((t) => t.provisioned) ?? templates?.[0];
  if (!chosen?.id) return undefined;
  const interfaceName = (await catalogue.interfaces(chosen.id, undefined))?.find((i) => i.name)?.name;
  return interfaceName ? { template: chosen.id, interfaceName } : undefined;
}
