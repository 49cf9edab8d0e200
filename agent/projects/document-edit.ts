/**
 * Writes from_emu changes into the lab document with the `yaml` Document API,
 * starting from the client's own text: only what differs is touched, so
 * comments, order and formatting survive (clients apply the result as an edit).
 * Import uses the same path, from a document that has only a name.
 */
import { isMap, isSeq, parseDocument, Document, YAMLMap, type Node as YamlNode } from 'yaml';
import type { LabDocument } from '../../common/lab/types';
import type { Catalogue } from './catalogue';
import type { Change } from './diff';
import { makeLink, type Endpoint, type TopoNode } from './topology';

export interface EditedDocument {
  yaml: string;
  files: Record<string, string>;
}

/** Written the way people write lab files: `[a, b]` and `{x: 1, y: 2}`, long strings unfolded. */
const TO_STRING = { flowCollectionPadding: false, lineWidth: 0 } as const;

const configPathFor = (node: string) => `configs/${node}.cfg`;

function flow<T extends YamlNode>(doc: Document, value: unknown): T {
  const node = doc.createNode(value) as T & { flow?: boolean };
  node.flow = true;
  return node;
}

function ensureMap(doc: Document, key: string): void {
  if (!isMap(doc.get(key, true))) doc.set(key, doc.createNode({}));
}

/** The link name of each link in the document, for finding the one to remove. */
function documentLinkIndexes(model: LabDocument): Map<string, number> {
  const indexes = new Map<string, number>();
  model.links.forEach((link) => {
    if (link.endpoints.length !== 2) return;
    const ends = link.endpoints.map((e): Endpoint | undefined =>
      e.network !== undefined
        ? { network: e.network }
        : e.node && e.interface
          ? { node: e.node, index: 0, iface: e.interface }
          : undefined,
    );
    if (ends[0] && ends[1]) indexes.set(makeLink(ends[0], ends[1]).name, link.index);
  });
  return indexes;
}

export function editDocument(input: {
  yaml: string;
  files: Record<string, string>;
  model: LabDocument;
  changes: Change[];
  catalogue: Catalogue;
}): EditedDocument {
  const { model, catalogue } = input;
  const doc = parseDocument(input.yaml);
  const files = { ...input.files };
  const modelNodes = new Map(model.nodes.map((n) => [n.name, n]));

  /** What the document resolves a field to when the node does not write it. */
  const inherited = (field: 'icon' | 'cpu' | 'ram' | 'ethernet' | 'console', node: TopoNode): unknown => {
    const fromDefaults = model.defaults[field]?.value;
    if (fromDefaults !== undefined) return fromDefaults;
    return catalogue.templates.get(node.template)?.defaults[field];
  };

  const setConfig = (name: string, text: string | undefined): void => {
    const current = modelNodes.get(name)?.resolved.config;
    if (text === undefined) {
      if (modelNodes.get(name)?.fields.config) doc.deleteIn(['nodes', name, 'config']);
      return;
    }
    const path = current || configPathFor(name);
    files[path] = `${text}\n`;
    if (current !== path) doc.setIn(['nodes', name, 'config'], path);
  };

  const linkIndexes = documentLinkIndexes(model);
  const linkRemovals: number[] = [];

  for (const change of input.changes) {
    switch (change.kind) {
      case 'node': {
        const live = change.observed;
        if (change.op === 'delete') {
          doc.deleteIn(['nodes', change.name]);
        } else if (change.op === 'create' && live) {
          ensureMap(doc, 'nodes');
          const entry: Record<string, unknown> = { template: live.template };
          if (live.image) entry.image = live.image;
          for (const field of ['icon', 'cpu', 'ram', 'ethernet', 'console'] as const) {
            if (live[field] !== inherited(field, live)) entry[field] = live[field];
          }
          const mapNode = doc.createNode(entry) as YAMLMap;
          if (live.position) mapNode.set('position', flow(doc, live.position));
          doc.setIn(['nodes', change.name], mapNode);
          if (live.config !== undefined) setConfig(change.name, live.config);
        } else if (change.op === 'update' && live) {
          if (!isMap(doc.getIn(['nodes', change.name], true))) doc.setIn(['nodes', change.name], doc.createNode({}));
          for (const field of change.fields) {
            if (field === 'config') setConfig(change.name, live.config);
            else if (field === 'position') doc.setIn(['nodes', change.name, 'position'], flow(doc, live.position));
            else doc.setIn(['nodes', change.name, field], live[field as keyof TopoNode]);
          }
        }
        break;
      }
      case 'network':
        if (change.op === 'delete') doc.deleteIn(['networks', change.name]);
        else if (change.observed) {
          ensureMap(doc, 'networks');
          if (!isMap(doc.getIn(['networks', change.name], true)))
            doc.setIn(['networks', change.name], doc.createNode({}));
          doc.setIn(['networks', change.name, 'type'], change.observed.type);
        }
        break;
      case 'link':
        if (change.op === 'delete') {
          const index = linkIndexes.get(change.name);
          if (index !== undefined) linkRemovals.push(index);
        } else {
          if (!isSeq(doc.get('links', true))) doc.set('links', doc.createNode([]));
          const ends = [change.link.a, change.link.b].map((e) => ('network' in e ? e.network : `${e.node}:${e.iface}`));
          const entry = new YAMLMap();
          entry.set('endpoints', flow(doc, ends));
          doc.addIn(['links'], entry);
        }
        break;
      case 'lab':
        break;
    }
  }
  // Remove from the end so earlier indexes stay valid.
  for (const index of linkRemovals.sort((a, b) => b - a)) doc.deleteIn(['links', index]);

  return { yaml: doc.toString(TO_STRING), files };
}

/** A new document for an imported lab: its name and description, nothing else yet. */
export function newDocumentText(name: string, description: string): string {
  const doc = new Document(description ? { name, description } : { name });
  return doc.toString(TO_STRING);
}
