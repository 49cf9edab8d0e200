/**
 * The element list beside the drawing: every node, network and link as a
 * button, so the whole lab is reachable from the keyboard and readable by a
 * screen reader (the canvas is not). Arrow keys move, Enter shows the
 * element in the YAML, Delete deletes a link, the context-menu key (or
 * Shift+F10) opens the element's menu. Its data attributes are what the
 * end-to-end suite reads.
 *
 * A long list is virtual: each section's list is as high as all its rows,
 * but only the rows in view (row-window.ts), the one with the keyboard focus
 * and the one Tab enters at are in the page, each placed at its row; they
 * carry aria-setsize and aria-posinset so a screen reader still tells where
 * in the list a row is. An update redoes only the rows of elements that
 * changed, and only those in the page.
 */
import type { GraphChange } from '../graph-delta';
import type { GraphData, GraphLink, GraphNode } from '../messages';
import { ALL_ROWS_MAX, rowWindow, scrollToShow, type RowRange } from '../row-window';

/** The elements by id, as the drawing has them now (the webview's GraphReplica). */
export interface ElementLookup {
  node(id: string): GraphNode | undefined;
  link(id: string): GraphLink | undefined;
}

export interface ListEvents {
  activate(id: string): void;
  menu(id: string, anchor: HTMLElement): void;
  remove(id: string): void;
  focused(id: string | undefined): void;
}

/** The row height until a row is measured (the stylesheet's rows, at VS Code's 13 px font). */
const ROW_HEIGHT_GUESS = 22;

interface Section {
  ids: string[];
  list: HTMLUListElement;
}

/** Where an element's row is: its section, its place in it, its place in the whole list. */
interface RowPlace {
  section: number;
  index: number;
  at: number;
}

export class ElementList {
  private sections: Section[] = [];
  /** Every element's id, in the list's order. */
  private order: string[] = [];
  private readonly places = new Map<string, RowPlace>();
  /** The rows in the page, by element id. */
  private readonly rows = new Map<string, HTMLButtonElement>();
  private rowHeight = ROW_HEIGHT_GUESS;
  /** The row Tab enters the list at (the one with tabindex 0). */
  private active: string | undefined;
  private highlighted: readonly string[] = [];

  constructor(
    private readonly root: HTMLElement,
    private readonly elements: ElementLookup,
    private readonly events: ListEvents,
  ) {
    root.addEventListener('keydown', (event) => this.onKey(event));
    root.addEventListener('focusin', (event) => {
      const id = idOf(event.target);
      if (id !== undefined) this.setActive(id);
      this.events.focused(id);
    });
    root.addEventListener('focusout', () => this.events.focused(undefined));
    root.addEventListener('click', (event) => {
      const id = idOf(event.target);
      if (id !== undefined) this.events.activate(id);
    });
    root.addEventListener('contextmenu', (event) => {
      const id = idOf(event.target);
      const button = id === undefined ? undefined : this.rows.get(id);
      if (id === undefined || button === undefined) return;
      event.preventDefault();
      this.events.menu(id, button);
    });
    root.addEventListener('scroll', () => this.render());
    new ResizeObserver(() => this.render()).observe(root);
  }

  /** Shows `graph`; `change` says what differs from the graph shown before (rows of other elements are kept as they are). */
  apply(graph: GraphData, change: GraphChange): void {
    if (change.reordered) {
      this.rebuild(graph);
      return;
    }
    for (const element of [...change.nodes, ...change.links]) {
      const button = this.rows.get(element.id);
      if (button) this.fill(button, element.id);
    }
  }

  /** Marks the elements the editor's cursor is in, and scrolls the first into view. */
  highlight(ids: readonly string[]): void {
    for (const id of this.highlighted) this.rows.get(id)?.removeAttribute('aria-current');
    this.highlighted = ids.filter((id) => this.places.has(id));
    for (const id of this.highlighted) this.rows.get(id)?.setAttribute('aria-current', 'true');
    if (this.highlighted.length > 0) this.scrollTo(this.highlighted[0]);
  }

  /** The element's row, if it is in the page. */
  button(id: string): HTMLButtonElement | undefined {
    return this.rows.get(id);
  }

  private rebuild(graph: GraphData): void {
    const focused = idOf(document.activeElement);
    const sections = [
      { title: 'Nodes', ids: graph.nodes.filter((n) => n.kind === 'node').map((n) => n.id) },
      { title: 'Networks', ids: graph.nodes.filter((n) => n.kind === 'network').map((n) => n.id) },
      { title: 'Links', ids: graph.links.map((l) => l.id) },
    ].filter((s) => s.ids.length > 0);
    this.rows.clear();
    this.places.clear();
    this.order = [];
    const fragment = document.createDocumentFragment();
    this.sections = sections.map(({ title, ids }, section) => {
      const heading = document.createElement('h2');
      heading.textContent = `${title} (${ids.length})`;
      const list = document.createElement('ul');
      list.style.height = `${ids.length * this.rowHeight}px`;
      fragment.append(heading, list);
      ids.forEach((id, index) => {
        this.places.set(id, { section, index, at: this.order.length });
        this.order.push(id);
      });
      return { ids, list };
    });
    this.root.replaceChildren(fragment);
    if (this.active === undefined || !this.places.has(this.active)) this.active = this.order[0];
    this.highlighted = this.highlighted.filter((id) => this.places.has(id));
    this.render(focused);
    if (this.measure()) this.render(focused);
    if (focused !== undefined) this.rows.get(focused)?.focus({ preventScroll: true });
  }

  /** Puts the rows in view in the page, and takes out those that left it; `keep` stays in any case. */
  private render(keep = idOf(document.activeElement)): void {
    const whole = this.order.length <= ALL_ROWS_MAX;
    const view = { scrollTop: this.root.scrollTop, height: this.root.clientHeight };
    const windows: RowRange[] = this.sections.map((s) =>
      whole
        ? { start: 0, end: s.ids.length }
        : rowWindow(view, { top: s.list.offsetTop, count: s.ids.length, rowHeight: this.rowHeight }),
    );
    const wanted = new Set<string>();
    this.sections.forEach((s, i) => {
      for (let index = windows[i].start; index < windows[i].end; index++) wanted.add(s.ids[index]);
    });
    for (const id of [keep, this.active]) if (id !== undefined && this.places.has(id)) wanted.add(id);
    for (const [id, button] of this.rows) {
      if (wanted.has(id)) continue;
      button.parentElement?.remove();
      this.rows.delete(id);
    }
    // New rows go between those in the page, which stay in the list's order (moving the focused one would blur it).
    const bySection = this.sections.map(() => [] as number[]);
    for (const id of wanted) {
      const place = this.places.get(id);
      if (place) bySection[place.section].push(place.index);
    }
    bySection.forEach((indexes, section) => {
      const { ids, list } = this.sections[section];
      let next = list.firstElementChild;
      for (const index of indexes.sort((a, b) => a - b)) {
        const id = ids[index];
        const shown = this.rows.get(id);
        if (shown) {
          next = shown.parentElement?.nextElementSibling ?? null;
          continue;
        }
        list.insertBefore(this.row(id, index, ids.length), next);
      }
    });
  }

  /** Measures a row: where the font makes rows higher or lower than thought, the lists are laid out again (true). */
  private measure(): boolean {
    const row = this.rows.values().next().value?.parentElement;
    const height = row?.offsetHeight;
    if (!height || height === this.rowHeight) return false;
    this.rowHeight = height;
    for (const { ids, list } of this.sections) list.style.height = `${ids.length * height}px`;
    for (const [id, button] of this.rows) {
      const place = this.places.get(id);
      if (place && button.parentElement) button.parentElement.style.top = `${place.index * height}px`;
    }
    return true;
  }

  private row(id: string, index: number, count: number): HTMLLIElement {
    const item = document.createElement('li');
    item.style.top = `${index * this.rowHeight}px`;
    item.setAttribute('aria-setsize', String(count));
    item.setAttribute('aria-posinset', String(index + 1));
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'element';
    button.tabIndex = id === this.active ? 0 : -1;
    if (this.highlighted.includes(id)) button.setAttribute('aria-current', 'true');
    this.fill(button, id);
    this.rows.set(id, button);
    item.append(button);
    return item;
  }

  private fill(button: HTMLButtonElement, id: string): void {
    const node = this.elements.node(id);
    const link = this.elements.link(id);
    const view = node
      ? nodeView(node)
      : link
        ? linkView(link, (end) => this.elements.node(end)?.name ?? end)
        : undefined;
    if (!view) return;
    button.dataset.id = view.id;
    button.dataset.kind = view.kind;
    for (const [key, value] of Object.entries(view.data)) {
      if (value === undefined) delete button.dataset[key];
      else button.dataset[key] = value;
    }
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = view.label;
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.textContent = view.badge;
    button.replaceChildren(name, badge);
    button.title = view.description;
    button.setAttribute('aria-label', `${view.label}${view.badge ? `, ${view.badge}` : ''}`);
  }

  private setActive(id: string): void {
    if (id === this.active) return;
    const before = this.active === undefined ? undefined : this.rows.get(this.active);
    if (before) before.tabIndex = -1;
    this.active = id;
    const button = this.rows.get(id);
    if (button) button.tabIndex = 0;
  }

  /** Scrolls the list so that the element's row is in view, and puts it in the page. */
  private scrollTo(id: string): HTMLButtonElement | undefined {
    const place = this.places.get(id);
    if (!place) return undefined;
    const top = this.sections[place.section].list.offsetTop + place.index * this.rowHeight;
    const view = { scrollTop: this.root.scrollTop, height: this.root.clientHeight };
    const scrollTop = scrollToShow(view, top, this.rowHeight);
    if (scrollTop !== view.scrollTop) this.root.scrollTop = scrollTop;
    this.render();
    return this.rows.get(id);
  }

  private onKey(event: KeyboardEvent): void {
    const id = idOf(event.target);
    const place = id === undefined ? undefined : this.places.get(id);
    if (id === undefined || place === undefined) return;
    const move = (to: number): void => {
      const target = this.order[Math.max(0, Math.min(this.order.length - 1, to))];
      this.setActive(target);
      this.scrollTo(target)?.focus();
      event.preventDefault();
    };
    if (event.key === 'ArrowDown') move(place.at + 1);
    else if (event.key === 'ArrowUp') move(place.at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(this.order.length - 1);
    else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      this.events.remove(id);
    } else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) {
      event.preventDefault();
      const button = this.rows.get(id);
      if (button) this.events.menu(id, button);
    }
  }
}

interface ItemView {
  id: string;
  kind: string;
  label: string;
  badge: string;
  description: string;
  data: Record<string, string | undefined>;
}

const DRIFT_TEXT = { create: 'to create', update: 'to change', delete: 'to delete' } as const;

function nodeView(node: GraphNode): ItemView {
  const state = node.state === 'missing' ? 'not deployed' : node.state;
  const badge = [state, node.liveOnly ? 'live only' : undefined, node.drift ? DRIFT_TEXT[node.drift] : undefined]
    .filter(Boolean)
    .join(' · ');
  return {
    id: node.id,
    kind: node.kind,
    label: node.name,
    badge,
    description: `${node.kind === 'network' ? 'Network' : 'Node'} ${node.name} (${node.detail})`,
    data: {
      name: node.name,
      state: node.state,
      drift: node.drift,
      position: node.position ? `${node.position.x},${node.position.y}` : undefined,
    },
  };
}

function linkView(link: GraphLink, nameOf: (id: string) => string): ItemView {
  const end = (id: string, label: string): string => (label === '' ? nameOf(id) : `${nameOf(id)}:${label}`);
  const label = `${end(link.source, link.sourceLabel)} — ${end(link.target, link.targetLabel)}`;
  return {
    id: link.id,
    kind: 'link',
    label,
    badge: link.drift ? DRIFT_TEXT[link.drift] : link.index === undefined ? 'live only' : '',
    description: `Link ${label}`,
    data: { drift: link.drift, index: link.index === undefined ? undefined : String(link.index) },
  };
}

function idOf(target: EventTarget | null): string | undefined {
  const element = target instanceof HTMLElement ? target.closest<HTMLElement>('button.element') : null;
  return element?.dataset.id;
}
