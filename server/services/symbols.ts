/**
 * The outline: name and description, then the nodes, networks and links,
 * each group under its section key. Nodes show their template and links their
 * endpoints in the name; fields and endpoints get no symbols of their own,
 * since a lab of 2,000 nodes would otherwise send the editor megabytes on
 * every change.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import type { Located, Range } from '../../common/lab/types';
import type { LabFile } from '../documents';

/** The outline of the current version, computed once per version. */
export function documentSymbols(file: LabFile): DocumentSymbol[] {
  return file.cached('documentSymbols', outline);
}

function outline(file: LabFile): DocumentSymbol[] {
  const { model } = file;
  const symbol = (
    name: string,
    kind: SymbolKind,
    range: Range,
    selection: Range,
    detail?: string,
    children?: DocumentSymbol[],
  ): DocumentSymbol => ({
    name: name === '' ? '(empty)' : name,
    kind,
    range: file.toLspRange(cover(range, selection)),
    selectionRange: file.toLspRange(selection),
    ...(detail !== undefined ? { detail } : {}),
    ...(children !== undefined ? { children } : {}),
  });
  const scalar = (key: string, located: Located<string> | undefined): DocumentSymbol[] =>
    located
      ? [symbol(key, SymbolKind.Property, cover(located.keyRange, located.range), located.keyRange, located.value)]
      : [];

  const result: DocumentSymbol[] = [...scalar('name', model.name), ...scalar('description', model.description)];

  const group = (section: string, children: DocumentSymbol[], childRanges: Range[]): void => {
    const range = model.rangeOfPath([section]);
    if (range === undefined || childRanges.length === 0) return;
    const span = childRanges.reduce(cover, range);
    result.push(symbol(section, SymbolKind.Namespace, span, range, `${childRanges.length}`, children));
  };

  group(
    'nodes',
    model.nodes.map((node) => symbol(node.name, SymbolKind.Object, node.range, node.nameRange, node.resolved.template)),
    model.nodes.map((node) => node.range),
  );
  group(
    'networks',
    model.networks.map((network) =>
      symbol(network.name, SymbolKind.Struct, network.range, network.nameRange, network.type?.value),
    ),
    model.networks.map((network) => network.range),
  );
  group(
    'links',
    model.links.map((link) =>
      symbol(
        link.endpoints.map((e) => e.text).join(' — ') || `link ${link.index + 1}`,
        SymbolKind.Event,
        link.range,
        link.endpoints[0]?.range ?? link.range,
      ),
    ),
    model.links.map((link) => link.range),
  );
  return result;
}

/** The smallest range holding both: a symbol's range must contain its selection range. */
function cover(a: Range, b: Range): Range {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
