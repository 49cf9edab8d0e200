/**
 * The lean drawing of large labs (above DETAILED_LINKS_MAX links) on one
 * plain 2D canvas: nodes as small shapes filled with their state's colour,
 * drift as a ring around them, links as straight lines batched into one path
 * per colour, names only when zoomed in far enough to read them. There is no
 * object per element beyond a plain record, so a 2,000-node lab is drawn in
 * milliseconds, and an update changes the records that differ and redraws
 * once, in the next animation frame.
 *
 * Pan by dragging empty space, zoom with the wheel, drag a node to move it;
 * coordinates are the model's, as in the Cytoscape drawing, so a move makes
 * the same `position` edit.
 */
import type { GraphChange } from '../graph-delta';
import type { Drift, GraphData, GraphNode } from '../messages';
import { NodeBuckets, segmentAt, type Segment } from '../hit-test';
import { CELL, Placement, type Point } from '../placement';
import { fitView, type View } from '../fit-view';
import { badge, type Drawing, type GraphEvents } from './drawing';
import type { Palette } from './theme';

const MIN_ZOOM = 0.02;
const MAX_ZOOM = 4;
/** Half the size of a node's shape, and of a network's, in model units (as Cytoscape draws them). */
const NODE_HALF = { x: 22, y: 22 };
const NETWORK_HALF = { x: 28, y: 20 };
const FONT_SIZE = 11;
/** Names are drawn from the zoom at which they are this many pixels high (Cytoscape's min-zoomed-font-size). */
const MIN_FONT_PIXELS = 7;
/** How far from a link's line a click still hits it, in pixels. */
const LINK_REACH = 4;
/** A press that moves less than this many pixels is a click. */
const CLICK_SLOP = 4;

interface NodeRecord extends Point {
  id: string;
  kind: GraphNode['kind'];
  name: string;
  badge: string;
  state?: string;
  drift?: Drift;
  movable: boolean;
}

interface LinkRecord extends Segment {
  drift?: Drift;
}

/** What the pointer is doing since it was pressed. */
type Press =
  | { kind: 'pan'; start: Point; pan: Point; moved: boolean }
  /** By id: an update during the drag replaces the node's record. */
  | { kind: 'node'; start: Point; id: string; moved: boolean };

export class CanvasGraph implements Drawing {
  private readonly canvas: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D;
  private readonly resizing: ResizeObserver;
  /** The view is where Fit put it: nothing moved it since. */
  private fitted = false;
  private readonly nodes = new Map<string, NodeRecord>();
  private links: LinkRecord[] = [];
  private readonly linkById = new Map<string, LinkRecord>();
  /** Links must be looked up again: elements came or went. */
  private linksMoved = false;
  /** The data last applied per element, as JSON, to find what an update changes. */
  private readonly applied = new Map<string, string>();
  private readonly buckets = new NodeBuckets(CELL);
  private placement = new Placement([]);
  private zoom = 1;
  private pan: Point = { x: 0, y: 0 };
  private highlighted = new Set<string>();
  private focused: string | undefined;
  private press: Press | undefined;
  private frame: number | undefined;
  private painted: (() => void)[] = [];

  constructor(
    private readonly container: HTMLElement,
    private palette: Palette,
    private readonly events: GraphEvents,
  ) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'lean-drawing';
    const context = this.canvas.getContext('2d', { alpha: false });
    if (!context) throw new Error('this page cannot draw on a canvas');
    this.context = context;
    container.append(this.canvas);
    // A new size keeps a fitted view fitted (a panel squeezed beside another), else the view as it is.
    this.resizing = new ResizeObserver(() => (this.fitted ? this.fit() : this.redraw()));
    this.resizing.observe(container);
    this.canvas.addEventListener('pointerdown', (event) => this.onPress(event));
    this.canvas.addEventListener('pointermove', (event) => this.onMove(event));
    this.canvas.addEventListener('pointerup', (event) => this.onRelease(event));
    this.canvas.addEventListener('pointercancel', () => (this.press = undefined));
    this.canvas.addEventListener('contextmenu', (event) => this.onContextMenu(event));
    this.canvas.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
  }

  apply(graph: GraphData, change?: GraphChange): boolean {
    const first = this.applied.size === 0;
    if (first) this.placement = new Placement(graph.nodes);
    const whole = first || change === undefined || change.full;
    let changes = 0;
    for (const node of whole ? graph.nodes : (change?.nodes ?? [])) if (this.setNode(node)) changes++;
    const links = whole ? graph.links : (change?.links ?? []);
    for (const link of links) {
      const json = JSON.stringify([link.source, link.target, link.drift]);
      if (this.applied.get(link.id) === json) continue;
      changes++;
      this.applied.set(link.id, json);
      const record = this.linkById.get(link.id);
      const [from, to] = [this.nodes.get(link.source), this.nodes.get(link.target)];
      // A link of the same id between the same records changes in place; any other is placed again below.
      if (record && record.from === from && record.to === to) record.drift = link.drift;
      else this.linksMoved = true;
    }
    let gone = change?.removed ?? [];
    if (whole) {
      const wanted = new Set([...graph.nodes.map((n) => n.id), ...graph.links.map((l) => l.id)]);
      gone = [...this.applied.keys()].filter((id) => !wanted.has(id));
    }
    for (const id of gone) {
      changes++;
      this.applied.delete(id);
      this.nodes.delete(id);
      this.buckets.delete(id);
      this.placement.release(id);
    }
    if (gone.length > 0 || change?.reordered !== false) this.linksMoved = true;
    if (changes === 0) return false;
    if (this.linksMoved) {
      this.linksMoved = false;
      this.links = [];
      this.linkById.clear();
      for (const link of graph.links) {
        const [from, to] = [this.nodes.get(link.source), this.nodes.get(link.target)];
        if (!from || !to) continue;
        const record: LinkRecord = { id: link.id, from, to, drift: link.drift };
        this.links.push(record);
        this.linkById.set(link.id, record);
      }
    }
    if (first) this.fit();
    this.redraw();
    return true;
  }

  /** Takes in a node's data; a node drawn already keeps its record (the links hold it), changed in place. */
  private setNode(node: GraphNode): boolean {
    const { x, y } = this.placement.at(node);
    const record: NodeRecord = {
      id: node.id,
      kind: node.kind,
      name: node.name,
      badge: badge(node),
      state: node.state,
      drift: node.drift,
      movable: node.kind === 'node' && !node.liveOnly,
      x,
      y,
    };
    const json = JSON.stringify(record);
    if (this.applied.get(node.id) === json) return false;
    this.applied.set(node.id, json);
    const drawn = this.nodes.get(node.id);
    if (drawn) Object.assign(drawn, record);
    else {
      this.nodes.set(node.id, record);
      this.linksMoved = true;
    }
    this.buckets.set(node.id, drawn ?? record);
    return true;
  }

  whenPainted(painted: () => void): void {
    this.painted.push(painted);
    this.redraw();
  }

  fit(): void {
    const { width, height } = this.size();
    const view = fitView(this.nodes.values(), width, height, MIN_ZOOM);
    if (view) this.setView(view);
    this.fitted = true;
  }

  restyle(palette: Palette): void {
    this.palette = palette;
    this.redraw();
  }

  highlight(ids: readonly string[]): void {
    this.highlighted = new Set(ids);
    this.redraw();
    const marked = ids.flatMap((id) => {
      const node = this.nodes.get(id);
      if (node) return [node];
      const link = this.links.find((l) => l.id === id);
      return link ? [link.from, link.to] : [];
    });
    if (marked.length === 0) return;
    const { width, height } = this.size();
    const onScreen = marked.map((p) => this.toScreen(p));
    if (onScreen.every((p) => p.x >= 0 && p.y >= 0 && p.x <= width && p.y <= height)) return;
    const centre = {
      x: marked.reduce((sum, p) => sum + p.x, 0) / marked.length,
      y: marked.reduce((sum, p) => sum + p.y, 0) / marked.length,
    };
    this.setView({
      zoom: this.zoom,
      pan: { x: width / 2 - centre.x * this.zoom, y: height / 2 - centre.y * this.zoom },
    });
  }

  focus(id: string | undefined): void {
    this.focused = id;
    this.redraw();
  }

  view(): View {
    return { zoom: this.zoom, pan: { ...this.pan } };
  }

  namePixels(): number {
    const pixels = this.zoom * FONT_SIZE;
    return pixels >= MIN_FONT_PIXELS ? pixels : 0;
  }

  destroy(): void {
    this.resizing.disconnect();
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.canvas.remove();
    for (const painted of this.painted.splice(0)) painted();
  }

  private setView(view: View): void {
    this.fitted = false;
    this.zoom = view.zoom;
    this.pan = view.pan;
    this.redraw();
    this.events.viewChanged();
  }

  /** Draws in the next animation frame, once however many changes come before it. */
  private redraw(): void {
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      this.draw();
      for (const painted of this.painted.splice(0)) painted();
    });
  }

  private size(): { width: number; height: number } {
    return { width: this.container.clientWidth, height: this.container.clientHeight };
  }

  private toScreen(p: Point): Point {
    return { x: p.x * this.zoom + this.pan.x, y: p.y * this.zoom + this.pan.y };
  }

  private toModel(event: MouseEvent): Point {
    const box = this.canvas.getBoundingClientRect();
    return {
      x: (event.clientX - box.left - this.pan.x) / this.zoom,
      y: (event.clientY - box.top - this.pan.y) / this.zoom,
    };
  }

  /** The node, else the link, under the pointer. */
  private hit(event: MouseEvent): string | undefined {
    const at = this.toModel(event);
    return (
      this.buckets.at(at, (id) => (this.nodes.get(id)?.kind === 'network' ? NETWORK_HALF : NODE_HALF)) ??
      segmentAt(at, this.links, LINK_REACH / this.zoom)
    );
  }

  private draw(): void {
    const { width, height } = this.size();
    const ratio = window.devicePixelRatio || 1;
    const [pixelWidth, pixelHeight] = [Math.round(width * ratio), Math.round(height * ratio)];
    if (this.canvas.width !== pixelWidth || this.canvas.height !== pixelHeight) {
      this.canvas.width = pixelWidth;
      this.canvas.height = pixelHeight;
    }
    const c = this.context;
    const p = this.palette;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.fillStyle = p.background;
    c.fillRect(0, 0, pixelWidth, pixelHeight);
    c.setTransform(ratio * this.zoom, 0, 0, ratio * this.zoom, ratio * this.pan.x, ratio * this.pan.y);
    /** A line `pixels` wide on screen, whatever the zoom. */
    const pixels = (n: number): number => n / this.zoom;
    const marked = (id: string): boolean => this.highlighted.has(id) || this.focused === id;
    // Only what is in view is drawn (zoomed in on a large lab, that is a small part of it): the model's
    // rectangle on screen, grown by the largest shape with its marks.
    const reach = NETWORK_HALF.x + 9 + pixels(4);
    const [left, top] = [-this.pan.x / this.zoom - reach, -this.pan.y / this.zoom - reach];
    const [right, bottom] = [left + width / this.zoom + 2 * reach, top + height / this.zoom + 2 * reach];
    const nodes = [...this.nodes.values()].filter((n) => n.x >= left && n.x <= right && n.y >= top && n.y <= bottom);
    const links = this.links.filter(
      ({ from, to }) =>
        Math.max(from.x, to.x) >= left &&
        Math.min(from.x, to.x) <= right &&
        Math.max(from.y, to.y) >= top &&
        Math.min(from.y, to.y) <= bottom,
    );
    const linkWidth = Math.max(pixels(1), p.highContrast ? 2 : 1.5);
    this.strokeLinks(links, (l) => !l.drift && !marked(l.id), p.muted, linkWidth, []);
    this.strokeLinks(links, (l) => l.drift === 'create' && !marked(l.id), p.create, linkWidth, [6, 4]);
    this.strokeLinks(links, (l) => l.drift === 'update' && !marked(l.id), p.update, linkWidth, []);
    this.strokeLinks(links, (l) => l.drift === 'delete' && !marked(l.id), p.remove, linkWidth, [2, 3]);
    this.strokeLinks(links, (l) => marked(l.id), p.focus, Math.max(pixels(2), 3), []);

    // One path per fill and outline colour (the theme gives colours such as `rgba(97, 97, 97, 0.5)`).
    const groups = new Map<string, { fill: string; outline: string; group: NodeRecord[] }>();
    for (const node of nodes) {
      const [fill, outline] = colours(node, p);
      const key = `${fill}\n${outline}`;
      const found = groups.get(key);
      if (found) found.group.push(node);
      else groups.set(key, { fill, outline, group: [node] });
    }
    // Nodes hide the links under them: theme colours can be translucent (a stopped node's is).
    c.beginPath();
    for (const node of nodes) this.shape(node, 0);
    c.fillStyle = p.background;
    c.fill();
    c.setLineDash([]);
    c.lineWidth = pixels(1);
    for (const { fill, outline, group } of groups.values()) {
      c.beginPath();
      for (const node of group) this.shape(node, 0);
      c.fillStyle = fill;
      c.fill();
      c.strokeStyle = outline;
      c.stroke();
    }
    const rings: [Drift, string, number[]][] = [
      ['create', p.create, [4, 3]],
      ['update', p.update, []],
      ['delete', p.remove, [1, 2]],
    ];
    c.lineWidth = Math.max(pixels(2), 3);
    for (const [drift, colour, dash] of rings) {
      c.beginPath();
      for (const node of nodes) if (node.drift === drift) this.shape(node, 5);
      c.setLineDash(dash.map(pixels));
      c.strokeStyle = colour;
      c.stroke();
    }
    c.setLineDash([]);
    // The mark of the elements the cursor or the list is on: a ring in the focus colour.
    c.beginPath();
    for (const node of nodes) if (marked(node.id)) this.shape(node, 9);
    c.lineWidth = Math.max(pixels(3), 4);
    c.strokeStyle = p.focus;
    c.stroke();
    // Names reach further out than shapes: names() looks at every node.
    if (this.zoom * FONT_SIZE >= MIN_FONT_PIXELS) this.names(this.nodes.values(), width, height);
  }

  private strokeLinks(
    links: readonly LinkRecord[],
    which: (l: LinkRecord) => boolean,
    colour: string,
    width: number,
    dash: number[],
  ): void {
    const c = this.context;
    c.beginPath();
    for (const link of links) {
      if (!which(link)) continue;
      c.moveTo(link.from.x, link.from.y);
      c.lineTo(link.to.x, link.to.y);
    }
    c.setLineDash(dash.map((n) => n / this.zoom));
    c.lineWidth = width;
    c.strokeStyle = colour;
    c.stroke();
  }

  /** Adds the node's shape, grown by `grow` model units, to the current path. */
  private shape(node: NodeRecord, grow: number): void {
    const c = this.context;
    if (node.kind === 'network') {
      c.moveTo(node.x + NETWORK_HALF.x + grow, node.y);
      c.ellipse(node.x, node.y, NETWORK_HALF.x + grow, NETWORK_HALF.y + grow, 0, 0, 2 * Math.PI);
    } else
      c.rect(
        node.x - NODE_HALF.x - grow,
        node.y - NODE_HALF.y - grow,
        2 * (NODE_HALF.x + grow),
        2 * (NODE_HALF.y + grow),
      );
  }

  /** Names and badges under the nodes in view. */
  private names(nodes: Iterable<NodeRecord>, width: number, height: number): void {
    const c = this.context;
    const p = this.palette;
    c.font = `${FONT_SIZE}px ${p.fontFamily}`;
    c.textAlign = 'center';
    c.textBaseline = 'top';
    const [left, top] = [-this.pan.x / this.zoom, -this.pan.y / this.zoom];
    const [right, bottom] = [left + width / this.zoom, top + height / this.zoom];
    for (const node of nodes) {
      if (node.x < left - 100 || node.x > right + 100 || node.y < top - 60 || node.y > bottom + 20) continue;
      const lines = node.badge === '' ? [node.name] : [node.name, node.badge];
      lines.forEach((line, i) => {
        const y = node.y + NODE_HALF.y + 4 + i * (FONT_SIZE + 2);
        const textWidth = c.measureText(line).width;
        c.globalAlpha = 0.8;
        c.fillStyle = p.background;
        c.fillRect(node.x - textWidth / 2 - 1, y - 1, textWidth + 2, FONT_SIZE + 2);
        c.globalAlpha = 1;
        c.fillStyle = p.foreground;
        c.fillText(line, node.x, y);
      });
    }
  }

  private onPress(event: PointerEvent): void {
    if (event.button !== 0) return;
    const start = { x: event.clientX, y: event.clientY };
    const hit = this.hit(event);
    const node = hit === undefined ? undefined : this.nodes.get(hit);
    this.press = node?.movable
      ? { kind: 'node', start, id: node.id, moved: false }
      : { kind: 'pan', start, pan: { ...this.pan }, moved: false };
    this.canvas.setPointerCapture(event.pointerId);
  }

  private onMove(event: PointerEvent): void {
    const press = this.press;
    if (!press) return;
    const [dx, dy] = [event.clientX - press.start.x, event.clientY - press.start.y];
    if (!press.moved && Math.hypot(dx, dy) < CLICK_SLOP) return;
    press.moved = true;
    if (press.kind === 'pan') this.setView({ zoom: this.zoom, pan: { x: press.pan.x + dx, y: press.pan.y + dy } });
    else {
      const node = this.nodes.get(press.id);
      if (!node) return;
      const at = this.toModel(event);
      [node.x, node.y] = [at.x, at.y];
      this.redraw();
    }
  }

  private onRelease(event: PointerEvent): void {
    const press = this.press;
    this.press = undefined;
    if (!press) return;
    if (!press.moved) {
      const id = this.hit(event);
      if (id !== undefined) this.events.activate(id);
    } else if (press.kind === 'node') {
      const node = this.nodes.get(press.id);
      if (!node) return;
      [node.x, node.y] = [Math.round(node.x), Math.round(node.y)];
      this.buckets.set(node.id, node);
      // Where the user put it: the edit that writes this position changes nothing here, a refused one puts the node back.
      this.applied.set(node.id, JSON.stringify(node));
      this.redraw();
      this.events.moved(node.id, node.x, node.y);
    }
  }

  private onContextMenu(event: MouseEvent): void {
    const id = this.hit(event);
    if (id === undefined) return;
    event.preventDefault();
    this.events.menu(id, event.clientX, event.clientY);
  }

  private onWheel(event: WheelEvent): void {
    event.preventDefault();
    const box = this.canvas.getBoundingClientRect();
    const at = { x: event.clientX - box.left, y: event.clientY - box.top };
    const zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.zoom * Math.exp(-event.deltaY * 0.002)));
    // The model point under the pointer stays under it.
    const scale = zoom / this.zoom;
    this.setView({ zoom, pan: { x: at.x - (at.x - this.pan.x) * scale, y: at.y - (at.y - this.pan.y) * scale } });
  }
}

const STATE_COLOURS: Partial<Record<string, 'running' | 'stopped' | 'settling' | 'problem'>> = {
  running: 'running',
  stopped: 'stopped',
  starting: 'settling',
  stopping: 'settling',
  missing: 'problem',
};

/** A node's fill and outline: its state's colour (the foreground when not known); a network is hollow. */
function colours(node: NodeRecord, p: Palette): [string, string] {
  if (node.kind === 'network') return [p.nodeFill, p.foreground];
  const state = STATE_COLOURS[node.state ?? ''];
  return [state ? p[state] : p.foreground, p.border];
}
