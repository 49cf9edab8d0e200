/**
 * Quick fixes for the diagnostics that have an obvious one, each an edit of
 * just the text that is wrong: a node, network, template, image or interface
 * name replaced by the closest names (edit distance) that exist, from the
 * document or the agent's catalogue; `ethernet` raised for an interface past
 * the node's count; a startup config that does not exist created with a
 * minimal config (the catalogue offers none: `hostname <node>`, which FRR and
 * IOS alike read); a link that repeats an earlier one removed; a line's tabs
 * in indentation replaced by spaces; an unclosed quote closed. The closest comes first and is the preferred fix.
 */
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Diagnostic,
  type Range as LspRange,
} from 'vscode-languageserver/node';
import { closestNames } from '../../common/closest-names';
import { findNode, interfacesInUse, linkAt, mapAsRead } from '../../common/lab/model/lookup';
import type { Range } from '../../common/lab/model/types';
import { closingQuote, keyColonAt, strayText } from '../../common/lab/parse/yaml-text';
import type { CatalogueOf } from '../catalogue';
import type { LabFile } from '../documents';
import { setEthernetEdit } from '../ethernet-edit';

/** Fixes offered per diagnostic at most. */
const MAX_FIXES = 3;

/** A replacement of the text in `range` by one of the names, as a fix of `diagnostic`. */
interface Replacement {
  range: Range;
  names: string[];
  /** "node", "template", …: said in the title. */
  what: string;
}

export class CodeActionService {
  constructor(
    private readonly catalogueOf: CatalogueOf,
    /** Whether the client applies an edit that creates a file; the create-config fix needs it. */
    private readonly canCreateFiles: () => boolean,
  ) {}

  async provide(file: LabFile, params: CodeActionParams): Promise<CodeAction[]> {
    const only = params.context.only;
    if (only && !only.some((kind) => CodeActionKind.QuickFix.startsWith(kind))) return [];
    const actions: CodeAction[] = [];
    for (const diagnostic of params.context.diagnostics) {
      const fixes = await this.fixesOf(file, diagnostic);
      actions.push(...fixes);
    }
    return actions;
  }

  private async fixesOf(file: LabFile, diagnostic: Diagnostic): Promise<CodeAction[]> {
    const model = file.model;
    const start = file.offsetAt(diagnostic.range.start);
    switch (diagnostic.code) {
      case 'unknown-node': {
        const endpoint = linkAt(model, start)?.endpoint;
        if (!endpoint?.node || !endpoint.nodeRange) return [];
        const names = closestNames(
          endpoint.node,
          mapAsRead(model, 'nodes', (n) => n.name),
          MAX_FIXES,
        );
        return replacements(file, diagnostic, { range: endpoint.nodeRange, names, what: 'node' });
      }
      case 'unknown-network': {
        const endpoint = linkAt(model, start)?.endpoint;
        if (endpoint?.network === undefined) return [];
        const names = closestNames(
          endpoint.network,
          mapAsRead(model, 'networks', (n) => n.name),
          MAX_FIXES,
        );
        return replacements(file, diagnostic, { range: endpoint.range, names, what: 'network' });
      }
      case 'unknown-template': {
        const written = valueAt(file, diagnostic);
        const templates = await this.catalogueOf(file.uri).templates();
        if (!written || !templates) return [];
        const names = closestNames(written.text, idsOf(templates), MAX_FIXES);
        return replacements(file, diagnostic, { range: written.range, names, what: 'template' });
      }
      case 'unknown-image': {
        const written = valueAt(file, diagnostic);
        const template = nodeAt(file, diagnostic)?.resolved.template;
        const images = template === undefined ? undefined : await this.catalogueOf(file.uri).templateImages(template);
        if (!written || !images?.images) return [];
        const names = closestNames(written.text, idsOf(images.images), MAX_FIXES);
        return replacements(file, diagnostic, { range: written.range, names, what: 'image' });
      }
      case 'unknown-interface':
        return this.interfaceFixes(file, diagnostic, start);
      case 'interface-out-of-range':
        return raiseEthernet(file, diagnostic);
      case 'config-not-found':
        return this.canCreateFiles() ? createConfig(file, diagnostic) : [];
      case 'interface-in-use':
        return removeDuplicateLink(file, diagnostic, start);
      case 'tab-indentation':
        return indentWithSpaces(file, diagnostic, start);
      case 'unclosed-quote':
        return closeQuote(file, diagnostic, start);
      case 'stray-bracket':
      case 'text-after-value':
        return removeStrayText(file, diagnostic, start);
      case 'key-without-colon':
        return addKeyColon(file, diagnostic, start);
      default:
        return [];
    }
  }

  /** The free interfaces of the endpoint's node closest to the one written. */
  private async interfaceFixes(file: LabFile, diagnostic: Diagnostic, start: number): Promise<CodeAction[]> {
    const model = file.model;
    const endpoint = linkAt(model, start)?.endpoint;
    if (!endpoint?.node || !endpoint.interface || !endpoint.interfaceRange) return [];
    const node = findNode(model, endpoint.node);
    if (!node?.resolved.template) return [];
    const all = await this.catalogueOf(file.uri).interfaces(node.resolved.template, node.resolved.ethernet);
    if (!all) return [];
    const used = interfacesInUse(model, endpoint.node, endpoint.range.start);
    const free = all.flatMap((i) => (typeof i.name === 'string' && !used.has(i.name) ? [i.name] : []));
    const names = closestNames(endpoint.interface, free, MAX_FIXES);
    return replacements(file, diagnostic, { range: endpoint.interfaceRange, names, what: 'interface' });
  }
}

function idsOf(entries: readonly { id?: string }[]): string[] {
  return entries.flatMap((e) => (typeof e.id === 'string' ? [e.id] : []));
}

function replacements(file: LabFile, diagnostic: Diagnostic, replacement: Replacement): CodeAction[] {
  const range = file.toLspRange(replacement.range);
  return replacement.names.map((name, i) =>
    fix(file, diagnostic, `Change ${replacement.what} to ${name}`, range, name, i === 0),
  );
}

function fix(
  file: LabFile,
  diagnostic: Diagnostic,
  title: string,
  range: LspRange,
  newText: string,
  preferred: boolean,
): CodeAction {
  return {
    title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: preferred,
    edit: { changes: { [file.uri]: [{ range, newText }] } },
  };
}

/** The scalar value a diagnostic is on (an agent finding located at `template: …` or `image: …`), as written. */
function valueAt(file: LabFile, diagnostic: Diagnostic): { text: string; range: Range } | undefined {
  const start = file.offsetAt(diagnostic.range.start);
  const end = file.offsetAt(diagnostic.range.end);
  const text = file.model.text.slice(start, end);
  // Located on the value: one word, no line break (a finding on a whole node has no single value to change).
  if (text === '' || /[\s:]/.test(text)) return undefined;
  return { text, range: { start, end } };
}

/** The node whose lines hold the diagnostic. */
function nodeAt(file: LabFile, diagnostic: Diagnostic) {
  const path = file.model.pathAt(file.offsetAt(diagnostic.range.start))?.path;
  return path?.[0] === 'nodes' && typeof path[1] === 'string' ? findNode(file.model, path[1]) : undefined;
}

/** "Raise ethernet to N" for an interface past the node's count: the agent's message says N. */
function raiseEthernet(file: LabFile, diagnostic: Diagnostic): CodeAction[] {
  const message = typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
  const wanted = /Raise ethernet to at least (\d+)/.exec(message)?.[1];
  const endpoint = linkAt(file.model, file.offsetAt(diagnostic.range.start))?.endpoint;
  const node = endpoint?.node ? findNode(file.model, endpoint.node) : undefined;
  const edit = wanted && node ? setEthernetEdit(file, node, Number(wanted)) : undefined;
  if (!edit || !node) return [];
  return [fix(file, diagnostic, `Raise ethernet of ${node.name} to ${wanted}`, edit.range, edit.newText, true)];
}

/** The startup config of the node the diagnostic is on, created beside the lab with a minimal config naming the node. */
function createConfig(file: LabFile, diagnostic: Diagnostic): CodeAction[] {
  const node = nodeAt(file, diagnostic);
  const config = node?.resolved.config;
  if (!node || !config || !file.uri.startsWith('file:')) return [];
  const uri = new URL(config, file.uri).href;
  // The local checks refuse paths outside the lab's folder; this one is its own guard.
  if (!uri.startsWith(file.uri.slice(0, file.uri.lastIndexOf('/') + 1))) return [];
  const start = { line: 0, character: 0 };
  return [
    {
      title: `Create ${config} with a minimal config for ${node.name}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: {
        documentChanges: [
          { kind: 'create', uri, options: { ignoreIfExists: true } },
          {
            textDocument: { uri, version: null },
            edits: [{ range: { start, end: start }, newText: `hostname ${node.name}\n!\n` }],
          },
        ],
      },
    },
  ];
}

/**
 * A link whose endpoints are those of another: the later of the two removed
 * (whichever one the diagnostic is on, since both are reported), its whole lines.
 */
function removeDuplicateLink(file: LabFile, diagnostic: Diagnostic, start: number): CodeAction[] {
  const link = linkAt(file.model, start)?.link;
  if (!link) return [];
  const key = (endpoints: readonly { text: string }[]) =>
    endpoints
      .map((e) => e.text)
      .sort()
      .join(' ');
  const own = key(link.endpoints);
  const copies = mapAsRead(file.model, 'links', (l, delta) =>
    key(l.endpoints) === own ? { start: l.range.start + delta, end: l.range.end + delta } : undefined,
  ).filter((range) => range !== undefined);
  if (copies.length < 2) return [];
  const later = copies.find((range) => range.start > link.range.start) ?? link.range;
  const text = file.model.text;
  const from = text.lastIndexOf('\n', later.start - 1) + 1;
  const lineEnd = text.indexOf('\n', later.end);
  const to = lineEnd < 0 ? text.length : lineEnd + 1;
  const range = file.toLspRange({ start: from, end: to });
  return [fix(file, diagnostic, `Remove the duplicate link ${own.replace(' ', ' – ')}`, range, '', true)];
}

/**
 * A line set aside for a tab in its indentation, indented with spaces instead: as far as the line
 * above it with content, or two further when that line opens a block (ends with `:`). A tab's width
 * is the editor's to choose, so the line above says best where the line was meant to be.
 */
function indentWithSpaces(file: LabFile, diagnostic: Diagnostic, lineStart: number): CodeAction[] {
  const text = file.model.text;
  let first = lineStart;
  while (text[first] === ' ' || text[first] === '\t') first++;
  if (!text.slice(lineStart, first).includes('\t')) return [];
  const spaces = ' '.repeat(indentAfter(text, lineStart));
  const range = file.toLspRange({ start: lineStart, end: first });
  return [fix(file, diagnostic, `Indent with ${spaces.length} spaces instead of tabs`, range, spaces, true)];
}

/** The indentation of a line after the lines before `lineStart` (tabbed lines, blank lines and comments skipped). */
function indentAfter(text: string, lineStart: number): number {
  for (let end = lineStart - 1; end > 0;) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text
      .slice(start, end)
      .replace(/\s+#.*$/, '')
      .trimEnd();
    end = start - 1;
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    if (line.length === indent || line[indent] === '#' || line[indent] === '\t') continue;
    // `- key: …`: the item's keys line up with its first key, after the dash.
    const column = /^- +/.exec(line.slice(indent));
    const key = indent + (column ? column[0].length : 0);
    return line.endsWith(':') ? key + 2 : key;
  }
  return 0;
}

/** A line set aside for a key without its colon, with the colon after the key (keyColonAt). */
function addKeyColon(file: LabFile, diagnostic: Diagnostic, lineStart: number): CodeAction[] {
  const text = file.model.text;
  const at = keyColonAt(text, lineStart);
  if (at === undefined) return [];
  const key = text.slice(lineStart, at).trim();
  return [
    fix(file, diagnostic, `End the key with a colon (${key}:)`, file.toLspRange({ start: at, end: at }), ':', true),
  ];
}

/** A line set aside for a stray bracket or text after a value, without it and what follows it up to a comment (strayText). */
function removeStrayText(file: LabFile, diagnostic: Diagnostic, lineStart: number): CodeAction[] {
  const text = file.model.text;
  const stray = strayText(text, lineStart);
  if (!stray) return [];
  const removed = text.slice(stray.start, stray.end).trim();
  const shown = removed.length > 20 ? `${removed.slice(0, 20)}…` : removed;
  return [fix(file, diagnostic, `Remove the stray ${JSON.stringify(shown)}`, file.toLspRange(stray), '', true)];
}

/**
 * A line set aside for an unclosed quote, with the quote closed where the
 * string most likely ends: at the end of the line, or in a flow list or map
 * before the next `,`, `]` or `}` (closingQuote).
 */
function closeQuote(file: LabFile, diagnostic: Diagnostic, lineStart: number): CodeAction[] {
  const closing = closingQuote(file.model.text, lineStart);
  if (!closing) return [];
  const range = file.toLspRange({ start: closing.at, end: closing.at });
  return [fix(file, diagnostic, `Close the quote with ${closing.quote}`, range, closing.quote, true)];
}
