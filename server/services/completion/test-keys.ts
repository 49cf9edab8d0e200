/**
 * Completion items inside `tests:`: the checks and `timeout` of a test, each
 * check's settings (both from the one table in common/lab/rules/test-checks.ts),
 * the lab's node names for a check's node, and for a ping's `to` also the
 * addresses the tests already name and, after `node:`, the node's interfaces:
 * the linked ones first (from the document), then the rest of its template's
 * (from the agent's catalogue).
 */
import { CompletionItemKind, InsertTextFormat, type CompletionItem, type TextEdit } from 'vscode-languageserver/node';
import type { Iface } from '../../../common/api/contract';
import { findNode, mapAsRead } from '../../../common/lab/model/lookup';
import type { LabDocument } from '../../../common/lab/model/types';
import {
  CHECK_KINDS,
  CHECKS,
  DEFAULT_TEST_TIMEOUT_S,
  TEST_KEYS,
  isAddress,
  type CheckKind,
} from '../../../common/lab/rules/test-checks';
import type { TestsCompletionContext } from './test-context';

const TRIGGER_SUGGEST = { title: 'Suggest', command: 'editor.action.triggerSuggest' };

/** The interfaces the agent's catalogue lists for a template and interface count (undefined: not known). */
export type CatalogueInterfaces = (template: string, ethernet: number | undefined) => Promise<unknown>;

export async function testCompletionItems(
  doc: LabDocument,
  context: TestsCompletionContext,
  edit: (newText: string) => TextEdit,
  catalogueInterfaces: CatalogueInterfaces,
): Promise<CompletionItem[]> {
  switch (context.kind) {
    case 'test-key':
      return [
        ...CHECK_KINDS.filter((kind) => !context.present.has(kind)).map((kind) =>
          checkItem(kind, context.colonFollows, edit),
        ),
        ...TEST_KEYS.filter((key) => !context.present.has(key)).map((key): CompletionItem => ({
          label: key,
          kind: CompletionItemKind.Property,
          detail: `Seconds the check retries until it passes (default ${DEFAULT_TEST_TIMEOUT_S})`,
          sortText: `~${key}`,
          textEdit: edit(context.colonFollows ? key : `${key}: `),
        })),
      ];
    case 'check-key':
      return Object.entries(CHECKS[context.check].params)
        .filter(([name]) => !context.present.has(name))
        .map(([name, spec]) => {
          const item: CompletionItem = {
            label: name,
            kind: CompletionItemKind.Property,
            detail: spec.required ? `${spec.doc} (required)` : spec.doc,
            // The required settings first, in the table's order.
            sortText: `${spec.required ? 0 : 1}${String(Object.keys(CHECKS[context.check].params).indexOf(name)).padStart(2, '0')}`,
            textEdit: edit(context.colonFollows ? name : `${name}: `),
          };
          if (!context.colonFollows && (spec.type === 'node' || spec.type === 'target')) item.command = TRIGGER_SUGGEST;
          return item;
        });
    case 'check-node': {
      const space = context.needsSpace ? ' ' : '';
      const nodes = mapAsRead(doc, 'nodes', (node): CompletionItem => ({
        label: node.name,
        kind: CompletionItemKind.Module,
        detail: node.resolved.template ? `node (${node.resolved.template})` : 'node',
        textEdit: edit(space + node.name),
      }));
      if (context.type === 'node') return nodes;
      const addresses = [...addressesInTests(doc)].map((address): CompletionItem => ({
        label: address,
        kind: CompletionItemKind.Value,
        detail: 'address named in the tests',
        sortText: `~${address}`,
        textEdit: edit(space + address),
      }));
      return [...nodes, ...addresses];
    }
    case 'check-interface':
      return interfaceItems(doc, context.node, edit, catalogueInterfaces);
  }
}

/**
 * A check with its required settings to fill in, e.g. `ping: {from: |, to: }`; the suggestions
 * open again on the first one (a node).
 */
function checkItem(kind: CheckKind, colonFollows: boolean, edit: (newText: string) => TextEdit): CompletionItem {
  const spec = CHECKS[kind];
  const item: CompletionItem = {
    label: kind,
    kind: CompletionItemKind.Function,
    detail: spec.summary,
    documentation: { kind: 'markdown', value: `\`\`\`yaml\n${spec.example}\n\`\`\`` },
    textEdit: edit(kind),
  };
  if (colonFollows) return item;
  const required = Object.entries(spec.params).filter(([, param]) => param.required);
  const slots = required.map(([name], index) => `${name}: \${${index + 1}}`).join(', ');
  item.textEdit = edit(`${kind}: {${slots}}`);
  item.insertTextFormat = InsertTextFormat.Snippet;
  item.command = TRIGGER_SUGGEST;
  return item;
}

/** Addresses the tests already name (a ping's `to`, a next hop, a BGP peer): pinging them is likely. */
function addressesInTests(doc: LabDocument): Set<string> {
  const addresses = new Set<string>();
  for (const test of doc.tests) {
    for (const param of Object.values(test.check?.params ?? {})) {
      if (typeof param.value === 'string' && isAddress(param.value)) addresses.add(param.value);
    }
  }
  return addresses;
}

async function interfaceItems(
  doc: LabDocument,
  nodeName: string,
  edit: (newText: string) => TextEdit,
  catalogueInterfaces: CatalogueInterfaces,
): Promise<CompletionItem[]> {
  const items = new Map<string, CompletionItem>();
  mapAsRead(doc, 'links', (link) => {
    const own = link.endpoints.find((endpoint) => endpoint.node === nodeName && endpoint.interface);
    if (!own?.interface || items.has(own.interface)) return;
    const other = link.endpoints.find((endpoint) => endpoint !== own)?.text;
    items.set(own.interface, {
      label: own.interface,
      kind: CompletionItemKind.Interface,
      detail: other ? `${nodeName} interface, linked to ${other}` : `${nodeName} interface`,
      sortText: `0${String(items.size).padStart(6, '0')}`,
      textEdit: edit(own.interface),
    });
  });
  const node = findNode(doc, nodeName);
  const template = node?.resolved.template;
  if (!template) return [...items.values()];
  const all = await catalogueInterfaces(template, node.resolved.ethernet);
  for (const iface of Array.isArray(all) ? (all as Iface[]) : []) {
    if (typeof iface?.name !== 'string' || iface.name === '' || items.has(iface.name)) continue;
    items.set(iface.name, {
      label: iface.name,
      kind: CompletionItemKind.Interface,
      detail: `${nodeName} interface (not linked)`,
      sortText: `1${typeof iface.index === 'number' ? String(iface.index).padStart(6, '0') : iface.name}`,
      textEdit: edit(iface.name),
    });
  }
  return [...items.values()];
}
