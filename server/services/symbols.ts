/**
 * The outline: name and description, then the nodes, networks and links,
 * each group under its section key. Nodes show their template and links their
 * endpoints in the name; fields and endpoints get no symbols of their own,
 * since a lab of 2,000 nodes would otherwise send the editor megabytes on
 * every change.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import { shiftRange } from '../../common/lab/parse/outline';
import type { ElementKind, ElementOf, Located, Range } from '../../common/lab/model/types';
import type { LabFile } from '../documents';

/**
 * Characters of a symbol's name or detail at most: the outline and the breadcrumbs show one
 * line, and a value of megabytes (a long description) would otherwise cross the wire whole.
 */
const MAX_SYMBOL_TEXT = 200;

/**
 * Elements listed per section at most (the first ones), as yaml-language-server
 * (`yaml.maxItemsComputed`) and VS Code's own JSON support (`json.maxItemsComputed`,
 * 5,000 symbols) bound their outlines: the editor asks for the whole outline after
 * every edit and the reply crosses the wire whole, about 220 bytes a symbol, while
 * the outline shows a screenful and the breadcrumbs one path. At 10,000 nodes the
 * full outline was 30,505 symbols (6.8 MB, over half a second a request); capped,
 * it is about 2,500. Past the cap the section's symbol still spans the section
 * (its detail says how many are listed), so the breadcrumbs show `nodes` there,
 * and Go to Definition and search still find every element.
 */
const MAX_SYMBOLS_PER_SECTION = 1000;

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
    name: name === '' ? '(empty)' : cut(name),
    kind,
    range: file.toLspRange(cover(range, selection)),
    selectionRange: file.toLspRange(selection),
    ...(detail !== undefined ? { detail: cut(detail) } : {}),
    ...(children !== undefined ? { children } : {}),
  });
  const scalar = (key: string, located: Located<string> | undefined): DocumentSymbol[] =>
    located
      ? [symbol(key, SymbolKind.Property, cover(located.keyRange, located.range), located.keyRange, located.value)]
      : [];

  const result: DocumentSymbol[] = [...scalar('name', model.name), ...scalar('description', model.description)];

  // Each element as read, moved by its delta: the model's lists would copy every element an edit moved.
  const group = <K extends ElementKind>(
    section: K,
    child: (element: ElementOf[K], range: Range, delta: number, indexShift: number) => DocumentSymbol,
  ): void => {
    const children: DocumentSymbol[] = [];
    let span: Range | undefined;
    let count = 0;
    model.forEachAsRead(section, (element, delta, indexShift) => {
      const range = shiftRange(element.range, delta);
      if (++count <= MAX_SYMBOLS_PER_SECTION) children.push(child(element, range, delta, indexShift));
      span = span ? cover(span, range) : range;
    });
    const own = model.rangeOfPath([section]);
    if (own === undefined || span === undefined) return;
    const detail = count > children.length ? `${count} (the first ${children.length} listed)` : `${count}`;
    result.push(symbol(section, SymbolKind.Namespace, cover(span, own), own, detail, children));
  };
  group('nodes', (node, range, delta) =>
    symbol(node.name, SymbolKind.Object, range, shiftRange(node.nameRange, delta), node.resolved.template),
  );
  group('networks', (network, range, delta) =>
    symbol(network.name, SymbolKind.Struct, range, shiftRange(network.nameRange, delta), network.type?.value),
  );
  group('links', (link, range, delta, indexShift) =>
    symbol(
      link.endpoints.map((e) => e.text).join(' — ') || `link ${link.index + indexShift + 1}`,
      SymbolKind.Event,
      range,
      shiftRange(link.endpoints[0]?.range ?? link.range, delta),
    ),
  );
  return result;
}

function cut(text: string): string {
  return text.length <= MAX_SYMBOL_TEXT ? text : `${text.slice(0, MAX_SYMBOL_TEXT - 1)}…`;
}

/** The smallest range holding both: a symbol's range must contain its selection range. */
function cover(a: Range, b: Range): Range {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
