/**
 * Where Fit puts a lab: the view that shows every node, and for a small lab in
 * a narrow view, how much closer together its nodes are drawn so that their
 * names stay readable. Pure geometry, shared by both renderers.
 */
import type { Point } from './placement';

/** Where the drawing is: a model point p is on screen at p × zoom + pan (CSS pixels from the drawing's corner). */
export interface View {
  zoom: number;
  pan: Point;
}

/** Room around the nodes in a fitted view, in model units. */
const FIT_MARGIN = 40;
/** The zoom at which names (11 px) stay readable, about 10 px high. */
const READABLE_ZOOM = 0.9;
/** Small labs keep readable names at Fit; a large one is an overview, where names come with zooming in. */
const READABLE_FIT_NODES = 60;
/** Node centres drawn closer stay at least this far apart, in drawing units (a node is 44 wide, with labels beside it). */
const MIN_CENTRE_GAP = 64;

/**
 * How much closer together than the lab file places them a small lab's nodes
 * are drawn (1: as placed), so that Fit shows the whole lab with readable names
 * in a narrow view: the drawing is scaled to the labels rather than the labels
 * to the drawing. Never so close that nodes crowd each other; a lab that
 * still does not fit is zoomed out as any other.
 */
export function readableSpread(centres: readonly Point[], width: number, height: number): number {
  if (centres.length < 2 || centres.length > READABLE_FIT_NODES) return 1;
  const xs = centres.map((p) => p.x);
  const ys = centres.map((p) => p.y);
  const [dx, dy] = [Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)];
  // The spread at which the fitted zoom is READABLE_ZOOM along each axis (the margin is not spread).
  const along = (room: number, extent: number): number =>
    extent === 0 ? Infinity : (room / READABLE_ZOOM - 2 * FIT_MARGIN) / extent;
  const wanted = Math.min(along(width, dx), along(height, dy));
  if (wanted >= 1) return 1;
  let nearest = Infinity;
  for (let i = 0; i < centres.length; i++)
    for (let j = i + 1; j < centres.length; j++)
      nearest = Math.min(nearest, Math.hypot(centres[i].x - centres[j].x, centres[i].y - centres[j].y));
  // Nodes and their labels scale with the zoom, so whether they crowd each other depends on the spread alone.
  return nearest === 0 ? 1 : Math.min(1, Math.max(wanted, MIN_CENTRE_GAP / nearest));
}

/**
 * The view that shows all `centres` with a margin in a width × height drawing,
 * never larger than life (a small lab is shown at its own size). Node centres
 * are enough: measuring every label and link first costs Cytoscape seconds at
 * 2,000 nodes.
 */
export function fitView(centres: Iterable<Point>, width: number, height: number, minZoom: number): View | undefined {
  const box = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
  for (const p of centres) {
    box.x1 = Math.min(box.x1, p.x);
    box.y1 = Math.min(box.y1, p.y);
    box.x2 = Math.max(box.x2, p.x);
    box.y2 = Math.max(box.y2, p.y);
  }
  if (box.x1 === Infinity) return undefined;
  const margin = FIT_MARGIN;
  const zoom = Math.min(
    1.5,
    Math.max(minZoom, Math.min(width / (box.x2 - box.x1 + 2 * margin), height / (box.y2 - box.y1 + 2 * margin))),
  );
  return {
    zoom,
    pan: { x: width / 2 - (zoom * (box.x1 + box.x2)) / 2, y: height / 2 - (zoom * (box.y1 + box.y2)) / 2 },
  };
}
