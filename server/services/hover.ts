/**
 * Hover: on a template, what the agent knows of it (description, images with
 * their availability and the default, attributes); on a link endpoint, the
 * interface it names (index, and what it is linked to): the template's
 * interfaces from the catalogue, as completion has them, and their use from
 * the links of the model.
 */
import { MarkupKind, type CancellationToken, type Hover, type Position } from 'vscode-languageserver/node';
import type { Iface, TemplateDetail } from '../../common/api/contract';
import { findNetwork, findNode, interfacesInUse, linkAt, type EndpointUse } from '../../common/lab/model/lookup';
import type { LabNode, Located, LinkEndpoint } from '../../common/lab/model/types';
import type { CatalogueOf } from '../catalogue';
import { labTestHover } from '../lab-tests-hover';
import { untilCancelled } from '../cancellation';
import type { LabFile } from '../documents';

/** Enough interfaces to recognise the naming scheme without flooding the hover. */
const LISTED_INTERFACES = 8;

export class HoverService {
  constructor(private readonly catalogueOf: CatalogueOf) {}

  async provide(file: LabFile, position: Position, token: CancellationToken): Promise<Hover | null> {
    const offset = file.offsetAt(position);
    const endpoint = linkAt(file.model, offset)?.endpoint;
    if (endpoint && endpoint.text !== '') return this.endpointHover(file, endpoint, token);
    const test = labTestHover(file.model, offset);
    if (test)
      return { range: file.toLspRange(test.range), contents: { kind: MarkupKind.Markdown, value: test.markdown } };
    const template = templateAt(file, offset);
    if (template) return this.templateHover(file, template);
    return null;
  }

  private async templateHover(file: LabFile, template: Located<string>): Promise<Hover | null> {
    const range = file.toLspRange(template.range);
    const detail = await this.catalogueOf(file.uri).template(template.value);
    if (!detail) return null;
    return { range, contents: { kind: MarkupKind.Markdown, value: describeTemplate(template.value, detail) } };
  }

  private async endpointHover(file: LabFile, endpoint: LinkEndpoint, token: CancellationToken): Promise<Hover | null> {
    const range = file.toLspRange(endpoint.range);
    const hover = (value: string): Hover => ({ range, contents: { kind: MarkupKind.Markdown, value } });
    if (endpoint.network !== undefined) {
      const network = findNetwork(file.model, endpoint.network);
      return hover(
        network
          ? `network **${network.name}** (type ${network.type?.value ?? 'bridge'})`
          : `**${endpoint.network}** is not a network of this lab`,
      );
    }
    const node = endpoint.node === undefined ? undefined : findNode(file.model, endpoint.node);
    if (!node) return hover(`**${endpoint.node ?? endpoint.text}** is not a node of this lab`);
    const template = node.resolved.template;
    if (!template) return hover(nodeLine(node));
    // Read before waiting: an edit may replace this model meanwhile.
    const used = interfacesInUse(file.model, node.name);
    // The catalogue's list, per template and count (the document is never sent); what links use, from the model.
    const all = await untilCancelled(this.catalogueOf(file.uri).interfaces(template, node.resolved.ethernet), token);
    if (!Array.isArray(all)) return hover(nodeLine(node));
    const items = all
      .filter((i): i is Iface & { name: string } => typeof i?.name === 'string' && i.name !== '')
      .map((i) => ({ ...i, used: used.has(i.name), peer: peerOf(used.get(i.name)) }));
    return hover(describeInterface(node, endpoint.interface ?? '', items));
  }
}

/** The template value under the cursor, on a node or under defaults. */
function templateAt(file: LabFile, offset: number): Located<string> | undefined {
  const at = file.model.pathAt(offset);
  if (at?.on !== 'value' || at.path[at.path.length - 1] !== 'template') return undefined;
  const located =
    at.path.length === 2 && at.path[0] === 'defaults'
      ? file.model.defaults.template
      : at.path.length === 3 && at.path[0] === 'nodes'
        ? findNode(file.model, String(at.path[1]))?.fields.template
        : undefined;
  return located && located.range.start <= offset && offset <= located.range.end ? located : undefined;
}

function describeTemplate(id: string, detail: TemplateDetail): string {
  const lines = [`**${id}**${detail.description ? ` — ${detail.description}` : ''}`, ''];
  const facts = [detail.type ? `type ${detail.type}` : undefined];
  if (detail.provisioned === false) facts.push('**not provisioned**: nodes of this template cannot be deployed');
  else if (detail.provisioned === true) facts.push('provisioned');
  lines.push(facts.filter(Boolean).join(' · '));
  const images = Array.isArray(detail.images) ? detail.images.filter((i) => typeof i?.id === 'string') : [];
  if (images.length > 0) {
    lines.push('', 'Images:');
    for (const image of images) {
      const notes = [
        image.id === detail.default ? 'default' : undefined,
        image.available === false ? 'not available' : undefined,
      ];
      const note = notes.filter(Boolean).join(', ');
      lines.push(`- \`${image.id}\`${note ? ` (${note})` : ''}`);
    }
  } else {
    lines.push('', 'No images are installed for this template.');
  }
  const attributes = Array.isArray(detail.attributes)
    ? detail.attributes.filter((a) => typeof a?.name === 'string')
    : [];
  if (attributes.length > 0) {
    lines.push('', 'Attributes:');
    for (const attribute of attributes) {
      const values =
        Array.isArray(attribute.values) && attribute.values.length > 0 ? `: ${attribute.values.join(', ')}` : '';
      lines.push(`- \`${attribute.name}\`${attribute.label ? ` — ${attribute.label}` : ''}${values}`);
    }
  }
  return lines.join('\n');
}

/** What the link of an interface's first use connects it to: the other endpoint, when the link has two. */
function peerOf(use: EndpointUse | undefined): string | undefined {
  if (use?.link.endpoints.length !== 2) return undefined;
  return use.link.endpoints[1 - use.endpointIndex].text;
}

function nodeLine(node: LabNode): string {
  return `node **${node.name}**${node.resolved.template ? ` (${node.resolved.template})` : ''}`;
}

function describeInterface(node: LabNode, name: string, items: readonly (Iface & { name: string })[]): string {
  const iface = items.find((i) => i.name === name);
  if (!iface) {
    const known = items
      .slice(0, LISTED_INTERFACES)
      .map((i) => `\`${i.name}\``)
      .join(', ');
    const more = items.length > LISTED_INTERFACES ? ', …' : '';
    const what = name === '' ? 'No interface given' : `${nodeLine(node)} has no interface \`${name}\``;
    return items.length > 0 ? `${what}; its interfaces are ${known}${more}` : `${what}.`;
  }
  const index = typeof iface.index === 'number' ? `interface ${iface.index} of ` : 'interface of ';
  const use = iface.used ? `linked to \`${iface.peer ?? 'another endpoint'}\`` : 'not linked';
  return `**${node.name}:${iface.name}** — ${index}${nodeLine(node)}\n\n${use}`;
}
