/**
 * The detailed drawing, with Cytoscape.js, of labs up to DETAILED_LINKS_MAX
 * links: nodes and networks with their symbols, links labelled with the
 * interface at each end, state and drift as colour and a badge line under
 * the name. Updates are applied as differences, so an edit redraws what
 * changed and everything else stays where it is (placement.ts says where).
 */
import cytoscape, {
  type Core,
  type EdgeCollection,
  type ElementDefinition,
  type EventObject,
  type NodeSingular,
  type SingularElementArgument,
  type StylesheetJson,
} from 'cytoscape';
import type { GraphData, GraphLink, GraphNode } from '../messages';
import { Placement, type Point } from '../placement';
import { fitView, readableSpread, type View } from '../fit-view';
import { LABEL_FONT_SIZE, LABEL_OFFSET, linkLabelsFit } from '../link-labels';
import { badge, type Drawing, type GraphEvents } from './drawing';

/** Cytoscape's size of a node's name, and the size below which it does not draw names. */
const NAME_FONT_SIZE = 11;
const MIN_ZOOMED_FONT_SIZE = 7;
import { symbolImage, type Palette } from './theme';

export class TopologyGraph implements Drawing {
  private readonly cy: Core;
  /** The data last applied per element, as JSON, to find what an update changes. */
  private readonly applied = new Map<string, string>();
  /** Where each node was last put ("x,y"), by a drawing or by the user's drag. */
  private readonly placedAt = new Map<string, string>();
  private placement = new Placement([]);
  /**
   * Model positions are drawn at `spread` × position (below 1 when Fit drew a small lab closer
   * together to keep its names readable); what the user drags is read back in model units.
   */
  private spread = 1;
  /**
   * The view is where Fit put it (the user has not panned or zoomed since), so a new size of the
   * drawing (the panel squeezed beside or above another, a narrow layout) fits it again rather
   * than leaving the lab outside the smaller area.
   */
  private fitted = false;
  private fitting = false;
  private readonly resizing: ResizeObserver;

  constructor(container: HTMLElement, palette: Palette, events: GraphEvents) {
    this.cy = cytoscape({
      container,
      style: stylesheet(palette),
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
      const [x, y] = [Math.round(node.position().x / this.spread), Math.round(node.position().y / this.spread)];
      // Where the user put it: the edit that writes this position changes nothing here, a refused one puts the node back.
      this.placedAt.set(node.id(), `${x},${y}`);
      events.moved(node.id(), x, y);
      this.markCrowdedLinks(node.connectedEdges());
    });
    this.cy.on('viewport', () => {
      if (!this.fitting) this.fitted = false;
      events.viewChanged();
    });
    this.resizing = new ResizeObserver(() => {
      // Cytoscape measures its container only on a window resize; a container that changes alone is measured here.
      this.cy.resize();
      if (this.fitted) this.fit();
    });
    this.resizing.observe(container);
  }

  restyle(palette: Palette): void {
    this.cy.style(stylesheet(palette));
  }

  apply(graph: GraphData): boolean {
    const first = this.applied.size === 0;
    if (first) this.placement = new Placement(graph.nodes);
    const placement = this.placement;
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
      const position = placement.at(node);
      const at = `${position.x},${position.y}`;
      if (!this.applied.has(node.id)) added.push({ ...definition, position: this.drawnAt(position) });
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
      placement.release(id);
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
        if (position) element.position(this.drawnAt(position));
      }
      if (added.length > 0) this.cy.add(added);
    });
    if (first) this.fit();
    else this.markCrowdedLinks(this.cy.edges());
    return true;
  }

  whenPainted(painted: () => void): void {
    this.cy.one('render', painted);
  }

  fit(): void {
    const [width, height] = [this.cy.width(), this.cy.height()];
    const nodes = this.cy.nodes();
    const model = nodes.map((node) => ({ x: node.position().x / this.spread, y: node.position().y / this.spread }));
    const spread = readableSpread(model, width, height);
    if (spread !== this.spread) {
      this.spread = spread;
      this.cy.batch(() => nodes.forEach((node, i) => void node.position(this.drawnAt(model[i]))));
    }
    const view = fitView(
      nodes.map((node) => node.position()),
      width,
      height,
      this.cy.minZoom(),
    );
    this.fitting = true;
    try {
      if (view) this.cy.viewport(view);
    } finally {
      this.fitting = false;
    }
    // An empty drawing area (a hidden panel) has no view to keep: the first real size fits.
    this.fitted = true;
    this.markCrowdedLinks(this.cy.edges());
  }

  /** Marks the links too short, as drawn, for the interface names at both ends. */
  private markCrowdedLinks(edges: EdgeCollection): void {
    this.cy.batch(() =>
      edges.forEach((edge) => {
        const [from, to] = [edge.source().position(), edge.target().position()];
        const fit = linkLabelsFit(
          to.x - from.x,
          to.y - from.y,
          String(edge.data('sourceLabel')),
          String(edge.data('targetLabel')),
        );
        edge.toggleClass('crowded', !fit);
      }),
    );
  }

  /** Model point p is on screen at p × zoom + pan: Cytoscape's zoom times the spread. */
  view(): View {
    return { zoom: this.cy.zoom() * this.spread, pan: this.cy.pan() };
  }

  namePixels(): number {
    const pixels = this.cy.zoom() * NAME_FONT_SIZE;
    return pixels >= MIN_ZOOMED_FONT_SIZE ? pixels : 0;
  }

  private drawnAt(p: Point): Point {
    return { x: p.x * this.spread, y: p.y * this.spread };
  }

  destroy(): void {
    this.resizing.disconnect();
    this.cy.destroy();
  }

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

  focus(id: string | undefined): void {
    this.cy.elements('.focused').removeClass('focused');
    if (id !== undefined) this.cy.getElementById(id).addClass('focused');
  }
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

function stylesheet(p: Palette): StylesheetJson {
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
        'font-size': NAME_FONT_SIZE,
        'font-family': p.fontFamily,
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-wrap': 'wrap',
        'text-background-color': p.background,
        'text-background-opacity': 0.8,
        'text-background-padding': '1px',
        // Labels are unreadable when zoomed far out; skipping them keeps large labs fast.
        'min-zoomed-font-size': MIN_ZOOMED_FONT_SIZE,
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
      style: {
        width: p.highContrast ? 2 : 1.5,
        'line-color': p.muted,
        // Bezier: parallel links between the same two nodes are drawn apart.
        'curve-style': 'bezier',
        'source-label': 'data(sourceLabel)',
        'target-label': 'data(targetLabel)',
        'source-text-offset': LABEL_OFFSET,
        'target-text-offset': LABEL_OFFSET,
        color: p.foreground,
        'font-size': LABEL_FONT_SIZE,
        'text-background-color': p.background,
        'text-background-opacity': 0.8,
        'min-zoomed-font-size': 7,
      },
    },
    // Too short for both interface names (link-labels.ts): they would overlap, so they show only when it is selected.
    { selector: 'edge.crowded', style: { 'source-label': '', 'target-label': '' } },
    {
      selector: 'edge.crowded.cursor, edge.crowded:selected',
      style: { 'source-label': 'data(sourceLabel)', 'target-label': 'data(targetLabel)' },
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
