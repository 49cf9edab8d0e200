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
 * (the element list still names every interface): curved, labelled edges cost
 * Cytoscape seconds to lay out at thousands of links.
 */
const LABELLED_LINKS_MAX = 1000;
const MIN_COLUMNS = 6;

export interface GraphEvents {
  /** An element was clicked (or tapped). */
  activate(id: string): void;
  /** The context menu was asked for on an element, at a point of the page. */
  menu(id: string, x: number, y: number): void;
  /** A node was dropped at a new place (model coordinates). */
  moved(id: string, x: number, y: number): void;
}

interface Grid {
  x: number;
  y: number;
  columns: number;
  /** Element id → cell number, for elements placed on the grid. */
  cells: Map<string, number>;
}

export class TopologyGraph {
  readonly cy: Core;
  /** The data last applied per element, as JSON, to find what an update changes. */
  private readonly applied = new Map<string, string>();
  private grid: Grid | undefined;
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
      const p = node.position();
      events.moved(node.id(), Math.round(p.x), Math.round(p.y));
    });
  }

  restyle(palette: Palette): void {
    this.palette = palette;
    this.cy.style(stylesheet(palette, this.detailed));
  }

  apply(graph: GraphData): void {
    const first = this.applied.size === 0;
    const detailed = graph.links.length <= LABELLED_LINKS_MAX;
    if (detailed !== this.detailed) {
      this.detailed = detailed;
      this.cy.style(stylesheet(this.palette, detailed));
    }
    const wanted = new Map<string, ElementDefinition>();
    for (const node of graph.nodes) wanted.set(node.id, nodeElement(node));
    for (const link of graph.links) wanted.set(link.id, linkElement(link));
    if (this.grid === undefined || first) this.grid = gridBelow(graph.nodes);
    const grid = this.grid;

    this.cy.batch(() => {
      // Links first: a link whose end goes away must go before its node.
      const gone = this.cy.elements().filter((e) => !wanted.has(e.id()));
      gone.remove();
      for (const element of gone) {
        this.applied.delete(element.id());
        grid.cells.delete(element.id());
      }
      const added: ElementDefinition[] = [];
      for (const node of graph.nodes) {
        const definition = wanted.get(node.id) as ElementDefinition;
        const json = JSON.stringify(definition.data);
        const existing = this.cy.getElementById(node.id);
        if (existing.length === 0) {
          definition.position = node.position ?? this.freeCell(grid, node.id);
          added.push(definition);
        } else {
          if (this.applied.get(node.id) !== json) existing.data(definition.data);
          if (node.position) {
            grid.cells.delete(node.id);
            const p = existing.position();
            if (p.x !== node.position.x || p.y !== node.position.y) existing.position(node.position);
          } else if (!grid.cells.has(node.id)) {
            existing.position(this.freeCell(grid, node.id));
          }
        }
        existing.grabify();
        this.applied.set(node.id, json);
      }
      if (added.length > 0) this.cy.add(added);
      const links: ElementDefinition[] = [];
      for (const link of graph.links) {
        const definition = wanted.get(link.id) as ElementDefinition;
        const json = JSON.stringify(definition.data);
        const existing = this.cy.getElementById(link.id);
        if (existing.length > 0 && this.applied.get(link.id) === json) continue;
        // An edge's ends cannot change in place: a changed link is replaced.
        existing.remove();
        links.push(definition);
        this.applied.set(link.id, json);
      }
      if (links.length > 0) this.cy.add(links);
      // Only nodes of the document can be moved: networks and live-only nodes have no position to write.
      this.cy.nodes('[movable = 0]').ungrabify();
    });
    if (first) this.fit();
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

  private freeCell(grid: Grid, id: string): { x: number; y: number } {
    const taken = new Set(grid.cells.values());
    let cell = 0;
    while (taken.has(cell)) cell++;
    grid.cells.set(id, cell);
    return { x: grid.x + (cell % grid.columns) * CELL, y: grid.y + Math.floor(cell / grid.columns) * CELL };
  }
}

/** The grid for elements without a position: below the placed nodes, as wide as they are (or a square). */
function gridBelow(nodes: readonly GraphNode[]): Grid {
  const placed = nodes.filter((n) => n.position);
  const unplaced = nodes.length - placed.length;
  const columns = Math.max(MIN_COLUMNS, Math.ceil(Math.sqrt(unplaced)));
  if (placed.length === 0) return { x: 0, y: 0, columns, cells: new Map() };
  const xs = placed.map((n) => n.position?.x ?? 0);
  const ys = placed.map((n) => n.position?.y ?? 0);
  return { x: Math.min(...xs), y: Math.max(...ys) + CELL, columns, cells: new Map() };
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
  return {
    group: 'nodes',
    data: {
      id: node.id,
      label: text === '' ? node.name : `${node.name}\n${text}`,
      kind: node.kind,
      symbol: node.symbol,
      state: node.state ?? 'unknown',
      drift: node.drift ?? 'none',
      movable: node.kind === 'node' && !node.liveOnly ? 1 : 0,
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
    ...symbols.map((symbol) => ({
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
