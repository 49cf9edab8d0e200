/**
 * Completion: keys by position in the structure, and values from the agent's
 * catalogue (templates, images, icons, network types), node and network names
 * in link endpoints, and a node's free interfaces after `node:` (none free:
 * an item that raises its `ethernet`); inside
 * `tests:`, completion/test-keys.ts.
 */
import {
  CompletionItemKind,
  type CancellationToken,
  type CompletionItem,
  type CompletionList,
  type Position,
  type TextEdit,
} from 'vscode-languageserver/node';
import type { Iface } from '../../common/api/contract';
import { CONSOLE_TYPES, LINK_KEYS, NETWORK_KEYS, NUMBER_FIELDS, TOP_LEVEL_KEYS } from '../../common/lab/rules/format';
import { findNode, interfacesInUse, mapAsRead } from '../../common/lab/model/lookup';
import { NODE_FIELD_NAMES, type LabNode } from '../../common/lab/model/types';
import type { CatalogueOf } from '../catalogue';
import { untilCancelled } from '../cancellation';
import type { LabFile } from '../documents';
import { completionContext, type CompletionContext, type KeyOwner } from './completion-context';
import { testCompletionItems } from './completion/test-keys';
import { setEthernetEdit } from '../ethernet-edit';

/** Keys whose value is a map or list: no space after the colon. */
const SECTION_KEYS: ReadonlySet<string> = new Set(['defaults', 'nodes', 'networks', 'links', 'position']);
/** Keys whose values we complete: reopen the suggestions once the key is in. */
const KEYS_WITH_VALUES: ReadonlySet<string> = new Set(['template', 'image', 'icon', 'console', 'type']);
const TRIGGER_SUGGEST = { title: 'Suggest', command: 'editor.action.triggerSuggest' };

export class CompletionService {
  constructor(
    private readonly catalogueOf: CatalogueOf,
    /** Whether the client takes a shared edit range in CompletionList.itemDefaults (LSP 3.17). */
    private readonly clientTakesEditRangeDefault: () => boolean,
  ) {}

  async provide(file: LabFile, position: Position, token: CancellationToken): Promise<CompletionList | null> {
    const context = completionContext(file.model, file.offsetAt(position));
    if (!context) return null;
    // Positions are taken now: the text may change while the agent answers.
    const range = file.toLspRange(context.replace);
    const items = await this.items(file, context, (newText) => ({ range, newText }), token);
    if (!this.clientTakesEditRangeDefault()) return { isIncomplete: false, items };
    // Every item replaces the same range: say it once. A lab's 2,000 node names then cost a third of the bytes.
    for (const item of items) {
      const newText = item.textEdit?.newText;
      delete item.textEdit;
      if (newText !== undefined && newText !== item.label) item.textEditText = newText;
    }
    return { isIncomplete: false, itemDefaults: { editRange: range }, items };
  }

  private async items(
    file: LabFile,
    context: CompletionContext,
    edit: (newText: string) => TextEdit,
    token: CancellationToken,
  ): Promise<CompletionItem[]> {
    switch (context.kind) {
      case 'key':
        return keysOf(context.owner)
          .filter((name) => !context.present.has(name))
          .map((name) => {
            const withColon = context.colonFollows ? name : SECTION_KEYS.has(name) ? `${name}:` : `${name}: `;
            const item: CompletionItem = { label: name, kind: CompletionItemKind.Property, textEdit: edit(withColon) };
            if (!context.colonFollows && KEYS_WITH_VALUES.has(name)) item.command = TRIGGER_SUGGEST;
            return item;
          });
      case 'field-value':
        return this.fieldValues(file, context, edit);
      case 'network-type': {
        const types = await this.catalogueOf(file.uri).networkTypes();
        const space = context.needsSpace ? ' ' : '';
        return (types ?? [])
          .filter((t) => typeof t.id === 'string')
          .map((t) => {
            const unsupported = t.supported === false;
            return {
              label: t.id as string,
              kind: CompletionItemKind.EnumMember,
              detail: unsupported ? `${t.label ?? t.id} (not supported by this emulator)` : t.label,
              sortText: `${unsupported ? 1 : 0}${t.id}`,
              textEdit: edit(space + t.id),
            };
          });
      }
      case 'endpoint-target':
        return endpointTargets(file, context.nodePart, edit);
      case 'endpoint-interface':
        return this.interfaces(file, context, edit, token);
      case 'test-key':
      case 'check-key':
      case 'check-node':
      case 'check-interface':
        return testCompletionItems(file.model, context, edit, (template, ethernet) =>
          untilCancelled(this.catalogueOf(file.uri).interfaces(template, ethernet), token),
        );
    }
  }

  private async fieldValues(
    file: LabFile,
    context: Extract<CompletionContext, { kind: 'field-value' }>,
    edit: (text: string) => TextEdit,
  ): Promise<CompletionItem[]> {
    const space = context.needsSpace ? ' ' : '';
    switch (context.field) {
      case 'console':
        return CONSOLE_TYPES.map((type) => ({
          label: type,
          kind: CompletionItemKind.EnumMember,
          textEdit: edit(space + type),
        }));
      case 'icon': {
        const icons = await this.catalogueOf(file.uri).icons();
        return (icons ?? [])
          .filter((icon) => typeof icon.id === 'string')
          .map((icon) => ({
            label: icon.id,
            kind: CompletionItemKind.File,
            detail: icon.label,
            textEdit: edit(space + icon.id),
          }));
      }
      case 'template': {
        const templates = await this.catalogueOf(file.uri).templates();
        return (templates ?? [])
          .filter((t) => typeof t.id === 'string')
          .map((t) => {
            const unprovisioned = t.provisioned === false;
            const item: CompletionItem = {
              label: t.id as string,
              kind: CompletionItemKind.Class,
              detail: unprovisioned ? `${t.description ?? t.id} (not provisioned)` : t.description,
              // Unprovisioned templates cannot be deployed: offer them, but after the ones that can.
              sortText: `${unprovisioned ? 1 : 0}${t.id}`,
              textEdit: edit(space + t.id),
            };
            if (unprovisioned) item.labelDetails = { description: 'not provisioned' };
            return item;
          });
      }
      case 'image': {
        const template = context.node ? context.node.resolved.template : file.model.defaults.template?.value;
        if (!template) return [];
        const data = await this.catalogueOf(file.uri).templateImages(template);
        return (data?.images ?? [])
          .filter((image) => typeof image.id === 'string')
          .map((image) => {
            const isDefault = image.id === data?.default;
            const unavailable = image.available === false;
            const notes = [isDefault ? 'default' : undefined, unavailable ? 'not available' : undefined].filter(
              Boolean,
            );
            const item: CompletionItem = {
              label: image.id as string,
              kind: CompletionItemKind.Value,
              detail: `${template} image${notes.length ? ` (${notes.join(', ')})` : ''}`,
              sortText: `${isDefault ? 0 : unavailable ? 2 : 1}${image.id}`,
              preselect: isDefault,
              textEdit: edit(space + image.id),
            };
            if (notes.length) item.labelDetails = { description: notes.join(', ') };
            return item;
          });
      }
    }
  }

  /**
   * The node's interfaces that no other endpoint uses. The list comes from the
   * catalogue, per template and interface count; the used ones are read from the
   * model, so the document is never sent and the answer is reused while typing.
   */
  private async interfaces(
    file: LabFile,
    context: Extract<CompletionContext, { kind: 'endpoint-interface' }>,
    edit: (text: string) => TextEdit,
    token: CancellationToken,
  ): Promise<CompletionItem[]> {
    const nodeName = context.node;
    const node = findNode(file.model, nodeName);
    const template = node?.resolved.template;
    if (!template) return [];
    const ethernet = node.resolved.ethernet;
    // Out of range is a local error already: no list for a count the lab cannot have.
    if (ethernet !== undefined && (ethernet < NUMBER_FIELDS.ethernet.min || ethernet > NUMBER_FIELDS.ethernet.max))
      return [];
    // Read before waiting: an edit may replace this model meanwhile. Re-completing `r1:Gi0/1` still offers
    // Gi0/1, unless another link has it too.
    const used = interfacesInUse(file.model, nodeName, context.endpoint.range.start);
    const all = await untilCancelled(this.catalogueOf(file.uri).interfaces(template, ethernet), token);
    const free = (Array.isArray(all) ? all : [])
      .filter(
        (iface): iface is Iface & { name: string } =>
          typeof iface?.name === 'string' && iface.name !== '' && !used.has(iface.name),
      )
      .map((iface) => ({
        label: iface.name,
        kind: CompletionItemKind.Interface,
        detail: typeof iface.index === 'number' ? `${nodeName} interface ${iface.index}` : `${nodeName} interface`,
        sortText: typeof iface.index === 'number' ? String(iface.index).padStart(6, '0') : iface.name,
        textEdit: edit(iface.name),
      }));
    if (free.length > 0 || !Array.isArray(all) || all.length === 0) return free;
    return this.raiseEthernetItem(file, node, all.length, edit, token);
  }

  /**
   * Every interface of the node is linked: one item that says so, and raises
   * its `ethernet` by one while inserting the interface that adds.
   */
  private async raiseEthernetItem(
    file: LabFile,
    node: LabNode,
    count: number,
    edit: (text: string) => TextEdit,
    token: CancellationToken,
  ): Promise<CompletionItem[]> {
    const template = node.resolved.template;
    if (!template || count + 1 > NUMBER_FIELDS.ethernet.max) return [];
    // Read before waiting, as above: the edit's positions are this model's.
    const raise = setEthernetEdit(file, node, count + 1);
    const more = await untilCancelled(this.catalogueOf(file.uri).interfaces(template, count + 1), token);
    const added = Array.isArray(more) ? more[count]?.name : undefined;
    if (!raise || typeof added !== 'string' || added === '') return [];
    const linked = count === 1 ? 'linked' : count === 2 ? 'both linked' : 'all linked';
    return [
      {
        label: `${node.name} has no free interface (ethernet: ${count}, ${linked}): raise ethernet`,
        kind: CompletionItemKind.Interface,
        detail: `ethernet: ${count + 1} and ${node.name}:${added}`,
        filterText: added,
        textEdit: edit(added),
        additionalTextEdits: [raise],
      },
    ];
  }
}

function keysOf(owner: KeyOwner): readonly string[] {
  switch (owner) {
    case 'top-level':
      return TOP_LEVEL_KEYS;
    case 'node':
    case 'defaults':
      return NODE_FIELD_NAMES;
    case 'network':
      return NETWORK_KEYS;
    case 'link':
      return LINK_KEYS;
  }
}

/**
 * Node and, for a whole endpoint, network names. A node name is inserted bare:
 * typing the colon after it (a trigger character) then offers its interfaces.
 * The items are kept lean, since a big lab has thousands of them.
 */
function endpointTargets(file: LabFile, nodePart: boolean, edit: (text: string) => TextEdit): CompletionItem[] {
  const nodes = mapAsRead(file.model, 'nodes', (node): CompletionItem => ({
    label: node.name,
    kind: CompletionItemKind.Module,
    detail: node.resolved.template ? `node (${node.resolved.template})` : 'node',
    textEdit: edit(node.name),
  }));
  if (nodePart) return nodes;
  const networks = mapAsRead(file.model, 'networks', (network): CompletionItem => ({
    label: network.name,
    kind: CompletionItemKind.Struct,
    detail: network.type ? `network (${network.type.value})` : 'network',
    // After the nodes: "~" sorts after every character a name can have.
    sortText: `~${network.name}`,
    textEdit: edit(network.name),
  }));
  return [...nodes, ...networks];
}
