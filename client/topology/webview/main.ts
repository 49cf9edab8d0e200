/**
 * The topology webview (bundled to dist/topology.js): draws what the host
 * sends, and turns what the user does into requests to the host, which makes
 * every change as an edit of the lab file. Nothing here edits or saves.
 * This module wires the parts: the renderer, the element list, the menu,
 * link drawing, and the messages from the host.
 */
import { GraphReplica } from '../graph-delta';
import type { GraphData, HostMessage, WebviewMessage } from '../messages';
import { ElementList } from './list';
import { LinkMode } from './link-mode';
import { ContextMenu } from './menu';
import { menuItems } from './menu-items';
import { RendererHost } from './renderer-host';
import { onThemeChange, readPalette } from './theme';
import { element, messagesToHost } from '../../webview-page/dom';

/** The notes above the drawing: what could not be drawn or known. */
function showNotes(notes: HTMLElement, graph: GraphData): void {
  notes.replaceChildren(
    ...graph.notes.map((text) => {
      const p = document.createElement('p');
      p.textContent = text;
      return p;
    }),
  );
  notes.hidden = graph.notes.length === 0;
}

function main(): void {
  const post = messagesToHost<WebviewMessage>();
  const menu = new ContextMenu(element('menu'));
  /** The drawing as the host's messages make it. */
  const replica = new GraphReplica();
  const linkMode = new LinkMode(element('hint'), replica);

  /** A click or Enter on an element: the other end of a link being drawn, else shown in the lab file. */
  const activate = (id: string): void => {
    const from = linkMode.from;
    if (from !== undefined && replica.node(id)) {
      if (from === id) return;
      linkMode.adding();
      post({ type: 'addLink', from, to: id });
      return;
    }
    post({ type: 'reveal', id });
  };
  const itemsFor = (id: string): ReturnType<typeof menuItems> =>
    menuItems(id, replica, post, (from) => linkMode.set(from));

  const renderer = new RendererHost(element('graph'), {
    activate,
    menu: (id, x, y) => menu.open(itemsFor(id), x, y, list.button(id)),
    moved: (id, x, y) => {
      const node = replica.node(id);
      if (node?.kind === 'node' && !node.liveOnly) post({ type: 'move', node: node.name, x, y });
    },
  });
  const list = new ElementList(element('elements'), replica, {
    activate,
    menu: (id, anchor) => {
      const box = anchor.getBoundingClientRect();
      menu.open(itemsFor(id), box.left + 16, box.bottom, anchor);
    },
    remove: (id) => {
      const link = replica.link(id);
      if (link?.index !== undefined) post({ type: 'deleteLink', index: link.index });
    },
    focused: (id) => renderer.drawing?.focus(id),
  });
  onThemeChange(() => renderer.drawing?.restyle(readPalette()));
  element('fit').addEventListener('click', () => renderer.drawing?.fit());
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && linkMode.from !== undefined) linkMode.set(undefined);
  });

  const status = element('status');
  const notes = element('notes');
  let applied = 0;
  /** A drawing (whole or a delta) from the host: the renderer, the list, the status line and the notes follow it. */
  const drawingReceived = (message: Extract<HostMessage, { type: 'graph' | 'graphDelta' }>): void => {
    const change = replica.receive(message);
    if (change === 'resync') {
      post({ type: 'resync' });
      return;
    }
    const current = replica.graph;
    const count = ++applied;
    // For tests and the benchmark: how many drawings have been applied, and painted.
    const painted = (): void => {
      document.body.dataset.painted = String(count);
    };
    const { drawing, isNew } = renderer.for(current);
    // A new renderer has drawn nothing yet: it takes the whole drawing.
    if (drawing.apply(current, isNew ? undefined : change)) drawing.whenPainted(painted);
    else painted();
    if (isNew) renderer.highlightAgain();
    list.apply(current, change);
    status.textContent = `${current.title}: ${current.liveSummary}`;
    if (message.type === 'graph' || message.delta.notes !== undefined) showNotes(notes, current);
    linkMode.drawingChanged();
    renderer.viewChanged();
    document.body.dataset.applied = String(count);
  };

  window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    const message = event.data;
    if (message.type === 'graph' || message.type === 'graphDelta') drawingReceived(message);
    else if (message.type === 'highlight') {
      renderer.highlight(message.ids);
      list.highlight(message.ids);
    } else if (message.type === 'linkDone') linkMode.set(undefined);
  });
  post({ type: 'ready' });
}

main();
