/**
 * Writes from_emu changes into the lab document, starting from the client's own
 * text: only the lines that differ change, so comments, order and formatting
 * survive (clients apply the result as an edit). Import uses the same path,
 * from a document that has only a name.
 */
import { isMap, isSeq, parseDocument, Document, YAMLMap, type Node as YamlNode } from 'yaml';
import type { LabDocument, LabNode } from '../../common/lab/model/types';
import type { Catalogue } from './catalogue';
import type { Change } from './diff';
import { LineEditor } from './text-edits';
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

/**
 * How a change is written into the document. Two writers follow the same walk:
 * line edits of the client's text first; when one of them cannot be made
 * line-exact, the document is rendered with the `yaml` Document API instead.
 */
interface DocumentWriter {
  set(path: readonly string[], value: unknown): boolean;
  delete(path: readonly string[]): boolean;
  /** A new entry `name` under the top-level map `section` (nodes, networks). */
  addEntry(section: string, name: string, entry: Record<string, unknown>): boolean;
  addLink(ends: string[]): boolean;
  deleteLink(index: number): boolean;
}

class RenderingWriter implements DocumentWriter {
  constructor(readonly doc: Document) {}

  set(path: readonly string[], value: unknown): boolean {
    const [section, name] = path;
    ensureMap(this.doc, section);
    if (path.length > 2 && !isMap(this.doc.getIn([section, name], true)))
      this.doc.setIn([section, name], this.doc.createNode({}));
    this.doc.setIn(path, isPosition(value) ? flow(this.doc, value) : value);
    return true;
  }

  delete(path: readonly string[]): boolean {
    this.doc.deleteIn(path);
    return true;
  }

  addEntry(section: string, name: string, entry: Record<string, unknown>): boolean {
    ensureMap(this.doc, section);
    const mapNode = this.doc.createNode(entry) as YAMLMap;
    if (isPosition(entry.position)) mapNode.set('position', flow(this.doc, entry.position));
    this.doc.setIn([section, name], mapNode);
    return true;
  }

  addLink(ends: string[]): boolean {
    if (!isSeq(this.doc.get('links', true))) this.doc.set('links', this.doc.createNode([]));
    const entry = new YAMLMap();
    entry.set('endpoints', flow(this.doc, ends));
    this.doc.addIn(['links'], entry);
    return true;
  }

  deleteLink(index: number): boolean {
    this.doc.deleteIn(['links', index]);
    return true;
  }
}

class LineWriter implements DocumentWriter {
  constructor(readonly editor: LineEditor) {}

  set(path: readonly string[], value: unknown): boolean {
    return this.editor.setScalar(path, value);
  }

  delete(path: readonly string[]): boolean {
    return this.editor.deletePair(path);
  }

  addEntry(section: string, name: string, entry: Record<string, unknown>): boolean {
    return this.editor.appendEntryToMap([section], name, entry);
  }

  addLink(ends: string[]): boolean {
    return this.editor.appendItem(['links'], `endpoints: [${ends.join(', ')}]`);
  }

  deleteLink(index: number): boolean {
    return this.editor.deleteItem(['links'], index);
  }
}

function isPosition(value: unknown): value is { x: number; y: number } {
  return typeof value === 'object' && value !== null && 'x' in value && 'y' in value;
}

export function editDocument(input: {
  yaml: string;
  files: Record<string, string>;
  model: LabDocument;
  changes: Change[];
  catalogue: Catalogue;
}): EditedDocument {
  const source = parseDocument(input.yaml, { keepSourceTokens: true });
  const editor = new LineEditor(input.yaml, source);
  const exact = writeChanges(new LineWriter(editor), input);
  const text = exact.written ? editor.result() : undefined;
  if (text !== undefined) return { yaml: text, files: exact.files };
  const doc = parseDocument(input.yaml);
  const rendered = writeChanges(new RenderingWriter(doc), input);
  return { yaml: doc.toString(TO_STRING), files: rendered.files };
}

/** Walks the changes with one writer; `written` is false as soon as the writer cannot make one. */
function writeChanges(
  writer: DocumentWriter,
  input: { files: Record<string, string>; model: LabDocument; changes: Change[]; catalogue: Catalogue },
): { written: boolean; files: Record<string, string> } {
  const walk = new ChangeWalk(writer, input.model, input.catalogue, { ...input.files });
  const written = input.changes.every((change) => walk.write(change));
  return { written: written && walk.removeLinks(), files: walk.files };
}

/** One walk of the changes: the writer, what the document already says, and the config files written so far. */
class ChangeWalk {
  private readonly modelNodes: Map<string, LabNode>;
  private readonly linkIndexes: Map<string, number>;
  private readonly linkRemovals: number[] = [];

  constructor(
    private readonly writer: DocumentWriter,
    private readonly model: LabDocument,
    private readonly catalogue: Catalogue,
    readonly files: Record<string, string>,
  ) {
    this.modelNodes = new Map(model.nodes.map((n) => [n.name, n]));
    this.linkIndexes = documentLinkIndexes(model);
  }

  write(change: Change): boolean {
    switch (change.kind) {
      case 'node':
        return this.writeNode(change);
      case 'network':
        return this.writeNetwork(change);
      case 'link':
        return this.writeLink(change);
      case 'lab':
        return true;
    }
  }

  /** Links are removed last and from the end, so the indexes taken from the document stay valid. */
  removeLinks(): boolean {
    return this.linkRemovals.sort((a, b) => b - a).every((index) => this.writer.deleteLink(index));
  }

  private writeNode(change: Extract<Change, { kind: 'node' }>): boolean {
    if (change.op === 'delete') return this.writer.delete(['nodes', change.name]);
    const live = change.after;
    if (change.op === 'create') {
      return (
        this.writer.addEntry('nodes', change.name, this.newNodeEntry(live)) &&
        (live.config === undefined || this.setConfig(change.name, live.config))
      );
    }
    return change.fields.every((field) =>
      field === 'config'
        ? this.setConfig(change.name, live.config)
        : this.writer.set(['nodes', change.name, field], live[field as keyof TopoNode]),
    );
  }

  /** A new node writes only what it does not inherit from defaults or its template. */
  private newNodeEntry(live: TopoNode): Record<string, unknown> {
    const entry: Record<string, unknown> = { template: live.template };
    if (live.image) entry.image = live.image;
    for (const field of ['icon', 'cpu', 'ram', 'ethernet', 'console'] as const) {
      if (live[field] !== this.inherited(field, live)) entry[field] = live[field];
    }
    if (live.position) entry.position = live.position;
    return entry;
  }

  /** What the document resolves a field to when the node does not write it. */
  private inherited(field: 'icon' | 'cpu' | 'ram' | 'ethernet' | 'console', node: TopoNode): unknown {
    const fromDefaults = this.model.defaults[field]?.value;
    if (fromDefaults !== undefined) return fromDefaults;
    return this.catalogue.templates.get(node.template)?.defaults[field];
  }

  /** The config text goes to the node's config file (its own, or configs/<node>.cfg); no text removes the field. */
  private setConfig(name: string, text: string | undefined): boolean {
    const node = this.modelNodes.get(name);
    if (text === undefined) return node?.fields.config ? this.writer.delete(['nodes', name, 'config']) : true;
    const current = node?.resolved.config;
    const path = current || configPathFor(name);
    this.files[path] = `${text}\n`;
    return current === path || this.writer.set(['nodes', name, 'config'], path);
  }

  private writeNetwork(change: Extract<Change, { kind: 'network' }>): boolean {
    if (change.op === 'delete') return this.writer.delete(['networks', change.name]);
    return this.model.networks.some((n) => n.name === change.name)
      ? this.writer.set(['networks', change.name, 'type'], change.after.type)
      : this.writer.addEntry('networks', change.name, { type: change.after.type });
  }

  private writeLink(change: Extract<Change, { kind: 'link' }>): boolean {
    if (change.op !== 'delete') {
      return this.writer.addLink(
        [change.link.a, change.link.b].map((e) => ('network' in e ? e.network : `${e.node}:${e.iface}`)),
      );
    }
    const index = this.linkIndexes.get(change.name);
    if (index !== undefined) this.linkRemovals.push(index);
    return true;
  }
}

/** A new document for an imported lab: its name and description, nothing else yet. */
export function newDocumentText(name: string, description: string): string {
  const doc = new Document(description ? { name, description } : { name });
  return doc.toString(TO_STRING);
}
