/**
 * The outline: name and description, then the nodes, networks and links,
 * each group under its section key. Nodes show their template and links their
 * endpoints in the name; fields and endpoints get no symbols of their own,
 * since a lab of 2,000 nodes would otherwise send the editor megabytes on
 * every change.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import { shiftRange } from '../../common/lab/parse/outline';
import type { ElementKind, ElementOf, Located, Placed, Range } from '../../common/lab/model/types';
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
 * the full outline was 30,505 symbols (6.8 MB, over half a second a request), a cap of 1,000 a
 * section still 2,500 symbols (548 KB, over 100 ms), and 200 a section with groups of 100 904
 * symbols (200 KB, 15-20 ms a request to send and read, unchanged). 100 are the outline's
 * first screenfuls of each section.
 */
const LISTED_PER_SECTION = 100;
/**
 * Past the listed ones, elements are grouped in document order: at least this many a group,
 * more when a section would have over MAX_GROUPS groups. A group is named by its first and last
 * element and spans them. The breadcrumbs follow the cursor through the smallest symbol around
 * it, so anywhere in a lab of any size they still say where the cursor is (`nodes › r4200 …
 * r4399`), and the outline stays a few hundred symbols (409 for the bench's 10,000-node lab);
 * Go to Definition and search still find every element.
 */
const GROUP_SIZE = 100;
const MAX_GROUPS = 50;

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

  // The listed elements, and the first and last of each group, found by their place: nothing is made or visited per
  // element (a walk over the 30,000 elements of a 10,000-node lab was most of an outline's 10-20 ms after an edit).
  const group = <K extends ElementKind>(
    section: K,
    child: (element: ElementOf[K], range: Range, delta: number, indexShift: number) => DocumentSymbol,
    label: (element: ElementOf[K], indexShift: number) => string,
  ): void => {
    const count = model.countAsRead(section);
    const own = model.rangeOfPath([section]);
    if (own === undefined || count === 0) return;
    const at = (n: number) => model.elementAsRead(section, n) as Placed<K>;
    const children: DocumentSymbol[] = [];
    for (let n = 0; n < Math.min(count, LISTED_PER_SECTION); n++) {
      const { element, delta, indexShift } = at(n);
      children.push(child(element, shiftRange(element.range, delta), delta, indexShift));
    }
    // Runs of GROUP_SIZE past the listed ones (the last may be shorter), several runs a group when they are many.
    const runs = Math.ceil(Math.max(0, count - LISTED_PER_SECTION) / GROUP_SIZE);
    const runsPerGroup = Math.ceil(runs / MAX_GROUPS);
    for (let run = 0; run < runs; run += runsPerGroup) {
      const firstIndex = LISTED_PER_SECTION + run * GROUP_SIZE;
      const lastIndex = Math.min(firstIndex + runsPerGroup * GROUP_SIZE, count) - 1;
      const [first, last] = [at(firstIndex), at(lastIndex)];
      const lastLabel = label(last.element, last.indexShift);
      const name = firstIndex === lastIndex ? lastLabel : `${label(first.element, first.indexShift)} … ${lastLabel}`;
      // Elements are in document order and do not overlap: a group spans its first and last.
      const range = { start: first.element.range.start + first.delta, end: last.element.range.end + last.delta };
      const selection = shiftRange(first.element.range, first.delta);
      children.push(symbol(name, SymbolKind.Namespace, range, selection, `${lastIndex - firstIndex + 1}`));
    }
    const [first, last] = [at(0), at(count - 1)];
    const span = { start: first.element.range.start + first.delta, end: last.element.range.end + last.delta };
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
