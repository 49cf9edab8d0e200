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
const MAX_SYMBOL_TEXT = 80;

/**
 * Elements listed one by one per section (the first ones). VS Code asks for the whole outline
 * after every edit and the reply crosses the wire whole, about 220 bytes a symbol, while the
 * outline view shows a screenful (about 40 rows) and the breadcrumbs one path: at 10,000 nodes
 * the full outline was 30,505 symbols (6.8 MB, over half a second a request), and a cap of
 * 1,000 a section still 2,500 symbols (548 KB, over 100 ms). 200 are the outline's first
 * screenfuls of each section.
 */
const LISTED_PER_SECTION = 200;
/**
 * Past the listed ones, elements are grouped: one symbol per this many in document order,
 * named by its first and last element and spanning them. The breadcrumbs follow the cursor
 * through the smallest symbol around it, so anywhere in a lab of any size they still say where
 * the cursor is (`nodes › r4200 … r4299`), and the outline stays a few hundred symbols; Go to
 * Definition and search still find every element.
 */
const GROUP_SIZE = 100;

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
    label: (element: ElementOf[K], indexShift: number) => string,
  ): void => {
    const children: DocumentSymbol[] = [];
    let span: Range | undefined;
    let count = 0;
    let pending: { first: string; last: string; range: Range; selection: Range; size: number } | undefined;
    const flush = () => {
      if (!pending) return;
      const name = pending.size === 1 ? pending.first : `${pending.first} … ${pending.last}`;
      children.push(symbol(name, SymbolKind.Namespace, pending.range, pending.selection, `${pending.size}`));
      pending = undefined;
    };
    model.forEachAsRead(section, (element, delta, indexShift) => {
      const range = shiftRange(element.range, delta);
      if (++count <= LISTED_PER_SECTION) children.push(child(element, range, delta, indexShift));
      else {
        const name = label(element, indexShift);
        if (pending) {
          pending.last = name;
          pending.range = cover(pending.range, range);
          pending.size++;
        } else pending = { first: name, last: name, range, selection: range, size: 1 };
        if (pending.size === GROUP_SIZE) flush();
      }
      span = span ? cover(span, range) : range;
    });
    flush();
    const own = model.rangeOfPath([section]);
    if (own === undefined || span === undefined) return;
    result.push(symbol(section, SymbolKind.Namespace, cover(span, own), own, `${count}`, children));
  };
  group(
    'nodes',
    (node, range, delta) =>
      symbol(node.name, SymbolKind.Object, range, shiftRange(node.nameRange, delta), node.resolved.template),
    (node) => node.name,
  );
  group(
    'networks',
    (network, range, delta) =>
      symbol(network.name, SymbolKind.Struct, range, shiftRange(network.nameRange, delta), network.type?.value),
    (network) => network.name,
  );
  group(
    'links',
    (link, range, delta, indexShift) =>
      symbol(
        link.endpoints.map((e) => e.text).join(' — ') || `link ${link.index + indexShift + 1}`,
        SymbolKind.Event,
        range,
        shiftRange(link.endpoints[0]?.range ?? link.range, delta),
      ),
    (link, indexShift) => `link ${link.index + indexShift + 1}`,
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
