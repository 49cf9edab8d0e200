/**
 * The element list beside the drawing: every node, network and link as a
 * button, so the whole lab is reachable from the keyboard and readable by a
 * screen reader (the canvas is not). Arrow keys move, Enter shows the
 * element in the YAML, Delete deletes a link, the context-menu key (or
 * Shift+F10) opens the element's menu. Its data attributes are what the
 * end-to-end suite reads.
 */
import type { GraphData, GraphLink, GraphNode } from '../messages';

export interface ListEvents {
  activate(id: string): void;
  menu(id: string, anchor: HTMLElement): void;
  remove(id: string): void;
  focused(id: string | undefined): void;
}

export class ElementList {
  private readonly buttons = new Map<string, HTMLButtonElement>();
  private order: string[] = [];
  /** The data last shown per element, as JSON. */
  private readonly shown = new Map<string, string>();

  constructor(
    private readonly root: HTMLElement,
    private readonly events: ListEvents,
  ) {
    root.addEventListener('keydown', (event) => this.onKey(event));
    root.addEventListener('focusin', (event) => this.events.focused(idOf(event.target)));
    root.addEventListener('focusout', () => this.events.focused(undefined));
    root.addEventListener('click', (event) => {
      const id = idOf(event.target);
      if (id !== undefined) this.events.activate(id);
    });
    root.addEventListener('contextmenu', (event) => {
      const id = idOf(event.target);
      const button = id === undefined ? undefined : this.buttons.get(id);
      if (id === undefined || button === undefined) return;
      event.preventDefault();
      this.events.menu(id, button);
    });
  }

  apply(graph: GraphData): void {
    const order = [...graph.nodes.map((n) => n.id), ...graph.links.map((l) => l.id)];
    const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
    const sameOrder = order.length === this.order.length && order.every((id, i) => id === this.order[i]);
    if (!sameOrder) this.rebuild(graph, order, names);
    else {
      for (const node of graph.nodes) this.update(node.id, nodeView(node));
      for (const link of graph.links) this.update(link.id, linkView(link, names));
    }
  }

  /** Marks the elements the editor's cursor is in. */
  highlight(ids: readonly string[]): void {
    for (const button of this.root.querySelectorAll('[aria-current="true"]')) button.removeAttribute('aria-current');
    for (const id of ids) this.buttons.get(id)?.setAttribute('aria-current', 'true');
    const first = ids.length > 0 ? this.buttons.get(ids[0]) : undefined;
    first?.scrollIntoView({ block: 'nearest' });
  }

  button(id: string): HTMLButtonElement | undefined {
    return this.buttons.get(id);
  }

  private rebuild(graph: GraphData, order: string[], names: ReadonlyMap<string, string>): void {
    const focused = idOf(document.activeElement);
    this.buttons.clear();
    this.shown.clear();
    this.order = order;
    const sections = [
      { title: 'Nodes', items: graph.nodes.filter((n) => n.kind === 'node').map((n) => nodeView(n)) },
      { title: 'Networks', items: graph.nodes.filter((n) => n.kind === 'network').map((n) => nodeView(n)) },
      { title: 'Links', items: graph.links.map((l) => linkView(l, names)) },
    ];
    const fragment = document.createDocumentFragment();
    for (const section of sections) {
      if (section.items.length === 0) continue;
      const heading = document.createElement('h2');
      heading.textContent = `${section.title} (${section.items.length})`;
      const list = document.createElement('ul');
      for (const view of section.items) {
        const item = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'element';
        button.tabIndex = -1;
        this.fill(button, view);
        this.buttons.set(view.id, button);
        item.append(button);
        list.append(item);
      }
      fragment.append(heading, list);
    }
    this.root.replaceChildren(fragment);
    const keep = (focused !== undefined && this.buttons.get(focused)) || this.buttons.values().next().value;
    if (keep) keep.tabIndex = 0;
    if (focused !== undefined && keep && idOf(keep) === focused) keep.focus();
  }

  private update(id: string, view: ItemView): void {
    const button = this.buttons.get(id);
    if (button && this.shown.get(id) !== JSON.stringify(view)) this.fill(button, view);
  }

  private fill(button: HTMLButtonElement, view: ItemView): void {
    this.shown.set(view.id, JSON.stringify(view));
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

  private onKey(event: KeyboardEvent): void {
    const id = idOf(event.target);
    if (id === undefined) return;
    const all = [...this.buttons.values()];
    const at = all.findIndex((b) => b.dataset.id === id);
    const move = (to: number): void => {
      const target = all[Math.max(0, Math.min(all.length - 1, to))];
      for (const b of all) if (b.tabIndex === 0) b.tabIndex = -1;
      target.tabIndex = 0;
      target.focus();
      event.preventDefault();
    };
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(all.length - 1);
    else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      this.events.remove(id);
    } else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) {
      event.preventDefault();
      this.events.menu(id, all[at]);
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

function linkView(link: GraphLink, names: ReadonlyMap<string, string>): ItemView {
  const end = (id: string, label: string): string => {
    const name = names.get(id) ?? id;
    return label === '' ? name : `${name}:${label}`;
  };
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
