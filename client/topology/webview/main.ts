/**
 * The topology webview (bundled to dist/topology.js): draws what the host
 * sends, and turns what the user does into requests to the host, which makes
 * every change as an edit of the lab file. Nothing here edits or saves.
 */
import { GraphReplica } from '../graph-delta';
import type { GraphData, HostMessage, NodeAction, WebviewMessage } from '../messages';
import { rendererFor, type RendererKind } from '../renderer-choice';
import { CanvasGraph } from './canvas-graph';
import type { Drawing, GraphEvents } from './drawing';
import { TopologyGraph } from './graph';
import { ElementList } from './list';
import { ContextMenu, type MenuItem } from './menu';
import { onThemeChange, readPalette } from './theme';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const NODE_ACTION_LABELS: Record<NodeAction, string> = {
  start: 'Start',
  stop: 'Stop…',
  wipe: 'Wipe',
  console: 'Open Console',
  consoleExec: 'Run a Command…',
};

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

function main(): void {
  const vscode = acquireVsCodeApi();
  const post = (message: WebviewMessage): void => vscode.postMessage(message);
  const status = element('status');
  const notes = element('notes');
  const hint = element('hint');
  const menu = new ContextMenu(element('menu'));
  /** The drawing as the host's messages make it. */
  const replica = new GraphReplica();
  /** Set while drawing a link: the element it starts at. */
  let linkFrom: string | undefined;
  let applied = 0;

  const setLinkFrom = (id: string | undefined): void => {
    linkFrom = id;
    const from = id === undefined ? undefined : replica.node(id);
    hint.hidden = from === undefined;
    hint.textContent = from
      ? `Drawing a link from ${from.name}: click the other end, or focus it in the list and press Enter. Escape cancels.`
      : '';
    document.body.classList.toggle('drawing', from !== undefined);
  };

  const activate = (id: string): void => {
    if (linkFrom !== undefined && replica.node(id)) {
      const from = linkFrom;
      if (from === id) return;
      hint.textContent = 'Adding the link: pick the interfaces in the editor…';
      post({ type: 'addLink', from, to: id });
      return;
    }
    post({ type: 'reveal', id });
  };

  const menuItems = (id: string): MenuItem[] => {
    const node = replica.node(id);
    if (node) {
      const items: MenuItem[] = [{ label: 'Show in the Lab File', run: () => post({ type: 'reveal', id }) }];
      if (node.kind === 'node') {
        const why = node.liveOnly
          ? 'Only the live lab has this node.'
          : 'Not available now: the lab must be deployed, the node in a suitable state, and you logged in.';
        for (const action of Object.keys(NODE_ACTION_LABELS) as NodeAction[]) {
          items.push({
            label: NODE_ACTION_LABELS[action],
            ...(node.actions.includes(action) ? {} : { disabled: why }),
            run: () => post({ type: 'nodeAction', action, node: node.name }),
          });
        }
      }
      items.push({
        label: 'Draw a Link from Here…',
        ...(node.liveOnly ? { disabled: 'Only the live lab has this node.' } : {}),
        run: () => setLinkFrom(id),
      });
      return items;
    }
    const link = replica.link(id);
    if (!link) return [];
    const index = link.index;
    const missing = index === undefined ? { disabled: 'Only the live lab has this link.' } : {};
    const items: MenuItem[] = [
      {
        label: 'Show Both Endpoints',
        ...missing,
        run: () => index !== undefined && post({ type: 'revealEndpoints', index }),
      },
      { label: 'Delete Link', ...missing, run: () => index !== undefined && post({ type: 'deleteLink', index }) },
    ];
    // Absent when the agent cannot capture: the items are not offered at all.
    const capture = link.capture;
    if (capture) {
      const why = capture.disabled === undefined ? {} : { disabled: capture.disabled };
      items.push(
        {
          label: `Capture Packets on ${capture.target}`,
          ...why,
          run: () => post({ type: 'capture', target: capture.target, others: false }),
        },
        {
          label: 'Capture with Other Links…',
          ...why,
          run: () => post({ type: 'capture', target: capture.target, others: true }),
        },
      );
    }
    return items;
  };

  // For tests: where the drawing is, so that a point of the model can be found on the page.
  const viewChanged = (): void => {
    if (!drawing) return;
    document.body.dataset.viewport = JSON.stringify(drawing.view());
    document.body.dataset.namePixels = drawing.namePixels().toFixed(1);
    const graph = element('graph');
    document.body.dataset.drawingSize = `${graph.clientWidth}x${graph.clientHeight}`;
  };
  const events: GraphEvents = {
    activate,
    menu: (id, x, y) => menu.open(menuItems(id), x, y, list.button(id)),
    moved: (id, x, y) => {
      const node = replica.node(id);
      if (node?.kind === 'node' && !node.liveOnly) post({ type: 'move', node: node.name, x, y });
    },
    viewChanged,
  };
  /** The renderer for the lab's size, replaced when the lab grows or shrinks across the threshold. */
  let drawing: Drawing | undefined;
  let drawingKind: RendererKind | undefined;
  let highlighted: readonly string[] = [];
  const drawingFor = (graph: GraphData): Drawing => {
    const kind = rendererFor(graph.links.length);
    if (drawing && drawingKind === kind) return drawing;
    drawing?.destroy();
    const [container, palette] = [element('graph'), readPalette()];
    drawing =
      kind === 'canvas' ? new CanvasGraph(container, palette, events) : new TopologyGraph(container, palette, events);
    drawingKind = kind;
    // For tests: which renderer draws the lab.
    document.body.dataset.renderer = kind;
    return drawing;
  };
  const list = new ElementList(element('elements'), replica, {
    activate,
    menu: (id, anchor) => {
      const box = anchor.getBoundingClientRect();
      menu.open(menuItems(id), box.left + 16, box.bottom, anchor);
    },
    remove: (id) => {
      const link = replica.link(id);
      if (link?.index !== undefined) post({ type: 'deleteLink', index: link.index });
    },
    focused: (id) => drawing?.focus(id),
  });
  onThemeChange(() => drawing?.restyle(readPalette()));
  element('fit').addEventListener('click', () => drawing?.fit());
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && linkFrom !== undefined) setLinkFrom(undefined);
  });

  const showNotes = (graph: GraphData): void => {
    notes.replaceChildren(
      ...graph.notes.map((text) => {
        const p = document.createElement('p');
        p.textContent = text;
        return p;
      }),
    );
    notes.hidden = graph.notes.length === 0;
  };

  window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
    const message = event.data;
    if (message.type === 'graph' || message.type === 'graphDelta') {
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
      const before = drawing;
      const graph = drawingFor(current);
      // A new renderer has drawn nothing yet: it takes the whole drawing.
      if (graph.apply(current, graph === before ? change : undefined)) graph.whenPainted(painted);
      else painted();
      if (graph !== before && highlighted.length > 0) graph.highlight(highlighted);
      list.apply(current, change);
      status.textContent = `${current.title}: ${current.liveSummary}`;
      if (message.type === 'graph' || message.delta.notes !== undefined) showNotes(current);
      if (linkFrom !== undefined && !replica.node(linkFrom)) setLinkFrom(undefined);
      viewChanged();
      document.body.dataset.applied = String(count);
    } else if (message.type === 'highlight') {
      highlighted = message.ids;
      drawing?.highlight(highlighted);
      list.highlight(message.ids);
    } else if (message.type === 'linkDone') {
      setLinkFrom(undefined);
    }
  });
  post({ type: 'ready' });
}

main();
