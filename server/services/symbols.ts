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

  // Each element as read, moved by its delta: the model's lists would copy every element an edit moved.
  // Past the listed ones only a group's first and last element make anything: nothing is made per element.
  const group = <K extends ElementKind>(
    section: K,
    child: (element: ElementOf[K], range: Range, delta: number, indexShift: number) => DocumentSymbol,
    label: (element: ElementOf[K], indexShift: number) => string,
  ): void => {
    const children: DocumentSymbol[] = [];
    let [spanStart, spanEnd] = [Infinity, -Infinity];
    let count = 0;
    // Runs of GROUP_SIZE past the listed ones; made into symbols, several runs a group when they are many.
    const runs: Run<ElementOf[K]>[] = [];
    model.forEachAsRead(section, (element, delta, indexShift) => {
      const start = element.range.start + delta;
      const end = element.range.end + delta;
      if (++count <= LISTED_PER_SECTION) children.push(child(element, { start, end }, delta, indexShift));
      else {
        const run = runs.at(-1);
        if (run && run.size < GROUP_SIZE) {
          run.last = element;
          run.lastShift = indexShift;
          run.end = Math.max(run.end, end);
          run.size++;
        } else {
          runs.push({ first: element, delta, indexShift, last: element, lastShift: indexShift, start, end, size: 1 });
        }
      }
      spanStart = Math.min(spanStart, start);
      spanEnd = Math.max(spanEnd, end);
    });
    const perGroup = Math.ceil(runs.length / MAX_GROUPS);
    for (let i = 0; i < runs.length; i += perGroup) {
      const [first, last] = [runs[i], runs[Math.min(i + perGroup, runs.length) - 1]];
      const size = runs.slice(i, i + perGroup).reduce((sum, run) => sum + run.size, 0);
      const lastLabel = label(last.last, last.lastShift);
      const name = size === 1 ? lastLabel : `${label(first.first, first.indexShift)} … ${lastLabel}`;
      const range = { start: first.start, end: Math.max(first.end, last.end) };
      children.push(symbol(name, SymbolKind.Namespace, range, shiftRange(first.first.range, first.delta), `${size}`));
    }
    const own = model.rangeOfPath([section]);
    if (own === undefined || count === 0) return;
    result.push(
      symbol(section, SymbolKind.Namespace, cover({ start: spanStart, end: spanEnd }, own), own, `${count}`, children),
    );
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

/** GROUP_SIZE elements in a row, or fewer at the end: their first and last element, and their span. */
interface Run<T> {
  first: T;
  delta: number;
  indexShift: number;
  last: T;
  lastShift: number;
  start: number;
  end: number;
  size: number;
}

function cut(text: string): string {
  return text.length <= MAX_SYMBOL_TEXT ? text : `${text.slice(0, MAX_SYMBOL_TEXT - 1)}…`;
}

/** The smallest range holding both: a symbol's range must contain its selection range. */
function cover(a: Range, b: Range): Range {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
