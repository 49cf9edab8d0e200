/**
 * The drawing, with Cytoscape.js: nodes and networks with their symbols,
 * links labelled with the interface at each end, state and drift as colour
 * and a badge line under the name. Updates are applied as differences, so
 * an edit redraws what changed and everything else stays where it is.
 *
 * Placement: a node sits where its `position` says; anything without one
 * takes the first free cell of a grid below the placed nodes, and keeps it
 * from one update to the next.
 */
import cytoscape, {
  type Core,
  type ElementDefinition,
  type EventObject,
  type NodeSingular,
  type SingularElementArgument,
  type StylesheetJson,
} from 'cytoscape';
import type { GraphData, GraphLink, GraphNode } from '../messages';
import { symbolImage, type Palette } from './theme';

const CELL = 140;
/**
 * Above this many links, links are straight lines without interface labels
 * and nodes have no symbol (the element list still names every interface and
 * template): curved, labelled edges and per-node images cost Cytoscape seconds
 * to style and draw at thousands of elements, where the drawing is too small
 * to show them anyway.
 */
const LABELLED_LINKS_MAX = 300;
const MIN_COLUMNS = 6;

export interface GraphEvents {
  /** An element was clicked (or tapped). */
  activate(id: string): void;
  /** The context menu was asked for on an element, at a point of the page. */
  menu(id: string, x: number, y: number): void;
  /** A node was dropped at a new place (model coordinates). */
  moved(id: string, x: number, y: number): void;
}

interface Point {
  x: number;
  y: number;
}

export class TopologyGraph {
  readonly cy: Core;
  /** The data last applied per element, as JSON, to find what an update changes. */
  private readonly applied = new Map<string, string>();
  /** Where each node was last put ("x,y"), by a drawing or by the user's drag. */
  private readonly placedAt = new Map<string, string>();
  private grid = new Grid([]);
  private palette: Palette;
  private detailed = true;

  constructor(container: HTMLElement, palette: Palette, events: GraphEvents) {
    this.palette = palette;
    this.cy = cytoscape({
      container,
      style: stylesheet(palette, this.detailed),
      layout: { name: 'preset' },
      boxSelectionEnabled: false,
      selectionType: 'single',
      minZoom: 0.02,
      maxZoom: 4,
      // Large labs stay fluid while panning and zooming: a bitmap of the drawing moves instead.
      textureOnViewport: true,
      motionBlur: false,
    });
    const targetId = (event: EventObject): string => (event.target as SingularElementArgument).id();
    this.cy.on('tap', 'node, edge', (event) => events.activate(targetId(event)));
    this.cy.on('cxttap', 'node, edge', (event) => {
      const box = container.getBoundingClientRect();
      const at = event.renderedPosition ?? { x: 0, y: 0 };
      events.menu(targetId(event), box.left + at.x, box.top + at.y);
    });
    this.cy.on('dragfree', 'node', (event) => {
      const node = event.target as NodeSingular;
      const [x, y] = [Math.round(node.position().x), Math.round(node.position().y)];
      // Where the user put it: the edit that writes this position changes nothing here, a refused one puts the node back.
      this.placedAt.set(node.id(), `${x},${y}`);
      events.moved(node.id(), x, y);
    });
  }

  restyle(palette: Palette): void {
    this.palette = palette;
    this.cy.style(stylesheet(palette, this.detailed));
  }

  /**
   * Draws `graph`, touching only what differs from the drawing before: on a
   * one-line edit of a 2,000-node lab that is one element, not 6,000.
   * Returns whether anything changed (so a frame will be drawn).
   */
  apply(graph: GraphData): boolean {
    const first = this.applied.size === 0;
    const detailed = graph.links.length <= LABELLED_LINKS_MAX;
    if (detailed !== this.detailed) {
      this.detailed = detailed;
      this.cy.style(stylesheet(this.palette, detailed));
    }
    if (first) this.grid = new Grid(graph.nodes);
    const grid = this.grid;
    const wanted = new Set<string>();
    for (const node of graph.nodes) wanted.add(node.id);
    for (const link of graph.links) wanted.add(link.id);
    const gone = [...this.applied.keys()].filter((id) => !wanted.has(id));
    const added: ElementDefinition[] = [];
    /** Elements already drawn whose data or place changed. */
    const changed: { id: string; data?: ElementDefinition['data']; position?: Point }[] = [];
    for (const node of graph.nodes) {
      const definition = nodeElement(node);
      const json = JSON.stringify(definition.data);
      if (node.position) grid.release(node.id);
      const position = node.position ?? grid.place(node.id);
      const at = `${position.x},${position.y}`;
      if (!this.applied.has(node.id)) added.push({ ...definition, position: { ...position } });
      else {
        const data = this.applied.get(node.id) === json ? undefined : definition.data;
        const moved = this.placedAt.get(node.id) === at ? undefined : { ...position };
        if (data || moved) changed.push({ id: node.id, data, position: moved });
      }
      this.applied.set(node.id, json);
      this.placedAt.set(node.id, at);
    }
    const replaced: string[] = [];
    for (const link of graph.links) {
      const definition = linkElement(link);
      const json = JSON.stringify(definition.data);
      const before = this.applied.get(link.id);
      if (before === json) continue;
      // An edge's ends cannot change in place: a changed link is replaced.
      if (before !== undefined) replaced.push(link.id);
      added.push(definition);
      this.applied.set(link.id, json);
    }
    for (const id of gone) {
      this.applied.delete(id);
      this.placedAt.delete(id);
      grid.release(id);
    }
    if (gone.length + added.length + changed.length === 0) return false;
    this.cy.batch(() => {
      const removed = this.cy.collection();
      for (const id of [...gone, ...replaced]) removed.merge(this.cy.getElementById(id));
      removed.remove();
      for (const { id, data, position } of changed) {
        const element = this.cy.getElementById(id);
        if (data) {
          element.data(data);
          // Only nodes of the document can be moved: networks and live-only nodes have no position to write.
          if (data.movable === 1) element.grabify();
          else element.ungrabify();
        }
        if (position) element.position(position);
      }
      if (added.length > 0) this.cy.add(added);
    });
    if (first) this.fit();
    return true;
  }

  /**
   * Fits the nodes in view. Cytoscape's own fit measures every label and edge
   * first (seconds at 2,000 nodes); node centres plus a margin are enough.
   */
  fit(): void {
    const nodes = this.cy.nodes();
    if (nodes.length === 0) return;
    let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const node of nodes) {
      const p = node.position();
      x1 = Math.min(x1, p.x);
      y1 = Math.min(y1, p.y);
      x2 = Math.max(x2, p.x);
      y2 = Math.max(y2, p.y);
    }
    const margin = 60;
    const width = this.cy.width();
    const height = this.cy.height();
    // Never larger than life: a small lab is shown at its own size.
    const zoom = Math.min(
      1.5,
      Math.max(this.cy.minZoom(), Math.min(width / (x2 - x1 + 2 * margin), height / (y2 - y1 + 2 * margin))),
    );
    this.cy.viewport({ zoom, pan: { x: width / 2 - (zoom * (x1 + x2)) / 2, y: height / 2 - (zoom * (y1 + y2)) / 2 } });
  }

  /** Marks the elements the editor's cursor is in, and brings them into view if they are off screen. */
  highlight(ids: readonly string[]): void {
    this.cy.batch(() => {
      this.cy.elements('.cursor').removeClass('cursor');
      for (const id of ids) this.cy.getElementById(id).addClass('cursor');
    });
    const marked = this.cy.elements('.cursor');
    if (marked.length === 0) return;
    const view = this.cy.extent();
    const box = marked.boundingBox();
    const inside = box.x1 >= view.x1 && box.x2 <= view.x2 && box.y1 >= view.y1 && box.y2 <= view.y2;
    if (!inside) this.cy.center(marked);
  }

  /** Marks the element focused in the element list. */
  focus(id: string | undefined): void {
    this.cy.elements('.focused').removeClass('focused');
    if (id !== undefined) this.cy.getElementById(id).addClass('focused');
  }

  /** Where an element is on the page (for menus opened from the keyboard). */
  pagePoint(id: string): { x: number; y: number } | undefined {
    const element = this.cy.getElementById(id);
    if (element.length === 0) return undefined;
    const box = element.renderedBoundingBox();
    const container = this.cy.container()?.getBoundingClientRect();
    return { x: (container?.left ?? 0) + (box.x1 + box.x2) / 2, y: (container?.top ?? 0) + (box.y1 + box.y2) / 2 };
  }
}

/** Cells for the nodes without a position: below the placed nodes, as wide as they are (or a square). */
class Grid {
  private readonly x: number;
  private readonly y: number;
  private readonly columns: number;
  /** Node id → its cell number; a node keeps its cell from one drawing to the next. */
  private readonly cells = new Map<string, number>();
  private readonly taken = new Set<number>();
  /** No cell below this one is free. */
  private lowestFree = 0;

  constructor(nodes: readonly GraphNode[]) {
    const placed = nodes.filter((n) => n.position);
    this.columns = Math.max(MIN_COLUMNS, Math.ceil(Math.sqrt(nodes.length - placed.length)));
    this.x = placed.length === 0 ? 0 : Math.min(...placed.map((n) => n.position?.x ?? 0));
    this.y = placed.length === 0 ? 0 : Math.max(...placed.map((n) => n.position?.y ?? 0)) + CELL;
  }

  /** The node's cell: the one it has, else the first free one. */
  place(id: string): Point {
    let cell = this.cells.get(id);
    if (cell === undefined) {
      cell = this.lowestFree;
      while (this.taken.has(cell)) cell++;
      this.cells.set(id, cell);
      this.taken.add(cell);
      this.lowestFree = cell + 1;
    }
    return { x: this.x + (cell % this.columns) * CELL, y: this.y + Math.floor(cell / this.columns) * CELL };
  }

  release(id: string): void {
    const cell = this.cells.get(id);
    if (cell === undefined) return;
    this.cells.delete(id);
    this.taken.delete(cell);
    this.lowestFree = Math.min(this.lowestFree, cell);
  }
}

const DRIFT_MARK = { create: '+ create', update: '~ change', delete: '− delete' } as const;

function badge(node: GraphNode): string {
  const parts: string[] = [];
  if (node.kind === 'network') parts.push(node.detail);
  if (node.state !== undefined) parts.push(node.state === 'missing' ? 'not deployed' : node.state);
  if (node.liveOnly) parts.push('live only');
  if (node.drift) parts.push(DRIFT_MARK[node.drift]);
  return parts.join(' · ');
}

function nodeElement(node: GraphNode): ElementDefinition {
  const text = badge(node);
  const movable = node.kind === 'node' && !node.liveOnly;
  return {
    group: 'nodes',
    grabbable: movable,
    data: {
      id: node.id,
      label: text === '' ? node.name : `${node.name}\n${text}`,
      kind: node.kind,
      symbol: node.symbol,
      state: node.state ?? 'unknown',
      drift: node.drift ?? 'none',
      movable: movable ? 1 : 0,
    },
  };
}

function linkElement(link: GraphLink): ElementDefinition {
  return {
    group: 'edges',
    data: {
      id: link.id,
      source: link.source,
      target: link.target,
      sourceLabel: link.sourceLabel,
      targetLabel: link.targetLabel,
      drift: link.drift ?? 'none',
    },
  };
}

function stylesheet(p: Palette, detailed: boolean): StylesheetJson {
  const symbols = ['router', 'switch', 'server', 'host', 'firewall', 'generic', 'cloud'] as const;
  const width = p.highContrast ? 3 : 2;
  return [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle',
        width: 44,
        height: 44,
        'background-color': p.nodeFill,
        'background-width': '80%',
        'background-height': '80%',
        'border-width': width,
        'border-color': p.border,
        label: 'data(label)',
        color: p.foreground,
        'font-size': 11,
        'font-family': p.fontFamily,
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-wrap': 'wrap',
        'text-background-color': p.background,
        'text-background-opacity': 0.8,
        'text-background-padding': '1px',
        // Labels are unreadable when zoomed far out; skipping them keeps large labs fast.
        'min-zoomed-font-size': 7,
      },
    },
    ...(detailed ? symbols : []).map((symbol) => ({
      selector: `node[symbol = "${symbol}"]`,
      style: { 'background-image': symbolImage(symbol, p.foreground) },
    })),
    { selector: 'node[kind = "network"]', style: { shape: 'ellipse', width: 56, height: 40 } },
    { selector: 'node[state = "running"]', style: { 'border-color': p.running } },
    { selector: 'node[state = "stopped"]', style: { 'border-color': p.stopped } },
    { selector: 'node[state = "starting"], node[state = "stopping"]', style: { 'border-color': p.settling } },
    { selector: 'node[state = "missing"]', style: { 'border-color': p.problem, 'border-style': 'dashed' } },
    {
      selector: 'edge',
      style: detailed
        ? {
            width: p.highContrast ? 2 : 1.5,
            'line-color': p.muted,
            // Bezier: parallel links between the same two nodes are drawn apart.
            'curve-style': 'bezier',
            'source-label': 'data(sourceLabel)',
            'target-label': 'data(targetLabel)',
            'source-text-offset': 28,
            'target-text-offset': 28,
            color: p.foreground,
            'font-size': 9,
            'text-background-color': p.background,
            'text-background-opacity': 0.8,
            'min-zoomed-font-size': 7,
          }
        : { width: p.highContrast ? 2 : 1.5, 'line-color': p.muted, 'curve-style': 'haystack' },
    },
    { selector: '[drift = "create"]', style: { 'border-style': 'dashed', 'border-color': p.create } },
    { selector: 'edge[drift = "create"]', style: { 'line-color': p.create, 'line-style': 'dashed' } },
    {
      selector: '[drift = "update"]',
      style: { 'border-style': 'double', 'border-width': width + 2, 'border-color': p.update },
    },
    { selector: '[drift = "delete"]', style: { 'border-style': 'dotted', 'border-color': p.remove, opacity: 0.7 } },
    { selector: 'edge[drift = "delete"]', style: { 'line-color': p.remove, 'line-style': 'dotted' } },
    {
      selector: 'node.cursor, node:selected',
      style: { 'overlay-color': p.focus, 'overlay-opacity': 0.25, 'overlay-padding': 6 },
    },
    { selector: 'edge.cursor, edge:selected', style: { 'line-color': p.focus, width: 3 } },
    { selector: '.focused', style: { 'outline-width': 3, 'outline-color': p.focus, 'outline-offset': 4 } },
    { selector: 'edge.focused', style: { 'line-color': p.focus, width: 3 } },
  ] as StylesheetJson;
}
