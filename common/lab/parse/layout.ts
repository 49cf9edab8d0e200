/**
 * Splitting a parsed document into pieces (see document.ts): one per
 * top-level entry, or one per node, network or link when the section is a
 * block collection. A piece's slice runs from the start of its first line to
 * the next piece's first line, so pieces can be cut out of the text and
 * re-read alone.
 */
import { PieceList, type Layout, type Piece, type Section } from '../model/pieces';
import type { OutlineEntry, OutlineHead, OutlineItem, OutlineMap, OutlineValue } from './outline';
import { headOf } from './piece-outline';
import type { ReadAsItGoes } from './plain-outline';
import { emptyFragment, readLinkItem, readNetworkEntry, readNodeEntry, readTopLevelEntry, type Fragment } from './read';
import { withDefaults } from '../model/resolve';
import type { NodeFields } from '../model/types';
import { lineStartOf, type TextLike } from '../../text-lines';

/** Sections and pieces being laid out, in document order. */
export interface LayoutDraft {
  sections: Section[];
  /** The pieces laid out, after `kept` pieces kept from a previous layout (which piece indexes count). */
  pieces: Piece[];
  kept?: number;
}

/** The index the next piece laid out in `draft` takes. */
export function nextPieceIndex(draft: LayoutDraft): number {
  return (draft.kept ?? 0) + draft.pieces.length;
}

/** `read`: the items read as the outline was (ItemsAsRead), which kept only their heads. */
export function layoutOf(
  text: TextLike,
  root: OutlineMap,
  sliceable: boolean,
  syntaxErrors: Layout['syntaxErrors'],
  read?: ItemsAsRead,
): Layout {
  const draft: LayoutDraft = { sections: [], pieces: [] };
  addSections(
    text,
    draft,
    root.entries,
    sliceable,
    syntaxErrors.length === 0,
    defaultsIn(root.entries),
    text.length,
    read,
  );
  return { sliceable, sections: draft.sections, pieces: PieceList.of(draft.pieces), rootIssues: [], syntaxErrors };
}

/**
 * The items of a lab's sections read as the plain reader meets them: the
 * fragment of each, and only its head left in the outline (see ReadAsItGoes).
 * Only for a text that reads without errors and whose pieces can all be cut
 * out and read alone (a whole plain reading): such items keep no values anyway.
 */
export class ItemsAsRead implements ReadAsItGoes {
  private readonly fragments = new Map<OutlineHead, Fragment>();
  /** The defaults of the first `defaults` entry, once read: those of the whole text (defaultsIn). */
  private defaults?: NodeFields;
  /** Items read before that entry, with no defaults: their nodes are resolved again. */
  private early?: Set<OutlineHead>;

  entry(entry: OutlineEntry): void {
    if (this.defaults !== undefined || !isDefaultsEntry(entry)) return;
    this.defaults = defaultsIn([entry]);
    if (this.fragments.size > 0) this.early = new Set(this.fragments.keys());
  }

  item<T extends OutlineEntry | OutlineItem>(sectionKey: string, kind: 'map' | 'seq', item: T, index: number): T {
    if (!itemizes(sectionKey, kind)) return item;
    // A head is the item without its value (which is optional in its type).
    const head = headOf(item) as T;
    this.fragments.set(head, readItem(sectionKey, item, index, this.defaults ?? {}));
    return head;
  }

  /** The fragment read for `head`, its nodes resolved against the defaults of the whole text. */
  fragmentOf(head: OutlineHead): Fragment | undefined {
    const fragment = this.fragments.get(head);
    const { defaults } = this;
    if (!fragment || !defaults || fragment.nodes.length === 0 || !this.early?.has(head)) return fragment;
    return {
      ...fragment,
      nodes: fragment.nodes.map((node) => ({ ...node, resolved: withDefaults(node.fields, defaults) })),
    };
  }
}

/** The node defaults written in the first `defaults` among these top-level entries. */
function defaultsIn(entries: readonly OutlineEntry[]): NodeFields {
  const entry = entries.find(isDefaultsEntry);
  return (entry && readTopLevelEntry(entry, {}).defaults) ?? {};
}

function isDefaultsEntry(entry: OutlineEntry): boolean {
  return entry.key === 'defaults' && !entry.oddKey;
}

/**
 * Adds top-level entries (offsets into `text`) as sections; each runs to the next one's line, the last one to `end`.
 * `clean`: they were read where no syntax error was, so sliceable pieces need not keep their values (piece-outline.ts).
 */
export function addSections(
  text: TextLike,
  draft: LayoutDraft,
  entries: readonly OutlineEntry[],
  sliceable: boolean,
  clean: boolean,
  defaults: NodeFields,
  end = text.length,
  read?: ItemsAsRead,
): void {
  const starts = entries.map((entry) => lineStartOf(text, entry.range.start));
  entries.forEach((entry, i) => {
    const start = starts[i];
    const sectionEnd = i + 1 < starts.length ? starts[i + 1] : end;
    const sectionSliceable = sliceable && start === entry.range.start && hasPlainKey(entry);
    const section: Section = {
      key: entry.key,
      keyRange: entry.keyRange,
      start,
      firstPiece: nextPieceIndex(draft),
      pieceCount: 0,
      sliceable: sectionSliceable,
    };
    draft.sections.push(section);
    const items = itemsOf(entry);
    if (items) {
      section.itemized = items.kind;
      addItems(text, draft, draft.sections.length - 1, items.list, 0, sectionEnd, clean, defaults, read);
    } else {
      const valueKept = !(clean && sectionSliceable);
      draft.pieces.push({
        kind: 'section',
        section: draft.sections.length - 1,
        start,
        end: sectionEnd,
        indent: 0,
        sliceable: sectionSliceable,
        outline: valueKept ? entry : headOf(entry),
        valueKept,
        delta: 0,
        fragment: readTopLevelEntry(entry, defaults),
        linkShift: 0,
      });
      section.pieceCount = 1;
    }
  });
}

/**
 * Adds the items of an itemized section as pieces of `draft.sections[sectionIndex]`
 * (which must be the last section), numbering them from `firstIndex`; the last one runs to `end`.
 * Items are sliceable when their section is and each starts its own line; `clean` as for addSections.
 */
export function addItems(
  text: TextLike,
  draft: LayoutDraft,
  sectionIndex: number,
  items: readonly (OutlineEntry | OutlineItem)[],
  firstIndex: number,
  end: number,
  clean: boolean,
  defaults: NodeFields,
  read?: ItemsAsRead,
): void {
  const section = draft.sections[sectionIndex];
  const kind = section.key === 'links' ? 'link' : section.key === 'nodes' ? 'node' : 'network';
  const starts = items.map((item) => lineStartOf(text, item.range.start));
  items.forEach((item, i) => {
    const start = starts[i];
    const sliceable =
      section.sliceable && start > section.keyRange.end && isSpaces(text, start, item.range.start) && hasPlainKey(item);
    const readAlready = read?.fragmentOf(item);
    // An item read as it came is a head already (ItemsAsRead is for texts whose pieces keep no values).
    const valueKept = !readAlready && !(clean && sliceable);
    draft.pieces.push({
      kind,
      section: sectionIndex,
      start,
      end: i + 1 < starts.length ? starts[i + 1] : end,
      indent: item.range.start - start,
      sliceable,
      outline: valueKept || readAlready ? item : headOf(item),
      valueKept,
      delta: 0,
      fragment: readAlready ?? readItem(section.key, item, firstIndex + i, defaults),
      linkShift: 0,
    });
  });
  section.pieceCount = nextPieceIndex(draft) - section.firstPiece;
}

/** The items of a `nodes`, `networks` or `links` section written as a block collection, which become one piece each. */
export function itemsOf(
  entry: OutlineEntry,
): { kind: 'map'; list: OutlineEntry[] } | { kind: 'seq'; list: OutlineItem[] } | undefined {
  const value: OutlineValue | undefined = entry.value;
  if (entry.oddKey || !value || value.kind === 'scalar' || value.kind === 'opaque' || value.flow) return undefined;
  if (!itemizes(entry.key, value.kind)) return undefined;
  if (value.kind === 'map') return value.entries.length > 0 ? { kind: 'map', list: value.entries } : undefined;
  return value.items.length > 0 ? { kind: 'seq', list: value.items } : undefined;
}

/** Whether a top-level entry whose value is a block map or list of this kind has a piece per item. */
function itemizes(key: string, kind: 'map' | 'seq'): boolean {
  return kind === 'seq' ? key === 'links' : key === 'nodes' || key === 'networks';
}

/** A list item, or a map entry whose key is a plain scalar without `?`: something that can start a slice. */
export function hasPlainKey(item: OutlineEntry | OutlineItem): boolean {
  return !('key' in item) || (!item.explicit && !item.oddKey);
}

/** The fragment of one item of an itemized section. */
export function readItem(
  sectionKey: string,
  item: OutlineEntry | OutlineItem,
  index: number,
  defaults: NodeFields,
): Fragment {
  const fragment = emptyFragment();
  // Lists of one made as such: a list pushed to holds room for 17 (152 bytes), 2 MB at 10,000 nodes.
  if (sectionKey === 'links') {
    fragment.links = [readLinkItem(item, index, fragment.issues)];
  } else if (sectionKey === 'nodes') {
    const node = readNodeEntry(item as OutlineEntry, defaults, fragment.issues);
    if (node) fragment.nodes = [node];
  } else {
    const network = readNetworkEntry(item as OutlineEntry, fragment.issues);
    if (network) fragment.networks = [network];
  }
  // A lab has a piece per item, and three of each item fragment's four lists are empty.
  if (fragment.nodes.length === 0) fragment.nodes = NOTHING;
  if (fragment.networks.length === 0) fragment.networks = NOTHING;
  if (fragment.links.length === 0) fragment.links = NOTHING;
  if (fragment.issues.length === 0) fragment.issues = NOTHING;
  return fragment;
}

/** The empty list fragments share: a fragment is never changed once read (frozen, so a change would throw). */
const NOTHING: never[] = Object.freeze([]) as unknown as never[];

export function isSpaces(text: TextLike, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== 32) return false;
  return true;
}
