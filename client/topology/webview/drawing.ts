/**
 * What main.ts asks of a renderer of the lab, so that it does not care which
 * one draws it: Cytoscape.js for labs small enough to show in detail
 * (graph.ts), a plain canvas for large ones (canvas-graph.ts).
 */
import type { GraphChange } from '../graph-delta';
import type { GraphData, GraphNode } from '../messages';
import type { Point } from '../placement';
import type { Palette } from './theme';

export interface GraphEvents {
  /** An element was clicked (or tapped). */
  activate(id: string): void;
  /** The context menu was asked for on an element, at a point of the page. */
  menu(id: string, x: number, y: number): void;
  /** A node was dropped at a new place (model coordinates). */
  moved(id: string, x: number, y: number): void;
  /** The view was panned or zoomed. */
  viewChanged(): void;
}

/** Where the drawing is: a model point p is on screen at p × zoom + pan (CSS pixels from the drawing's corner). */
export interface View {
  zoom: number;
  pan: Point;
}

export interface Drawing {
  /**
   * Draws `graph`, touching only what differs from the drawing before: what `change` names, when it is
   * given (a renderer may compare the whole graph instead). Returns whether anything changed (so a frame will be drawn).
   */
  apply(graph: GraphData, change?: GraphChange): boolean;
  /** Calls `painted` once, after the next frame of the drawing is drawn. */
  whenPainted(painted: () => void): void;
  /** Fits the nodes in view. */
  fit(): void;
  restyle(palette: Palette): void;
  /** Marks the elements the editor's cursor is in, and brings them into view if they are off screen. */
  highlight(ids: readonly string[]): void;
  /** Marks the element focused in the element list. */
  focus(id: string | undefined): void;
  view(): View;
  /** Removes the drawing from the page. */
  destroy(): void;
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
  const margin = 60;
  const zoom = Math.min(
    1.5,
    Math.max(minZoom, Math.min(width / (box.x2 - box.x1 + 2 * margin), height / (box.y2 - box.y1 + 2 * margin))),
  );
  return {
    zoom,
    pan: { x: width / 2 - (zoom * (box.x1 + box.x2)) / 2, y: height / 2 - (zoom * (box.y1 + box.y2)) / 2 },
  };
}

const DRIFT_MARK = { create: '+ create', update: '~ change', delete: '− delete' } as const;

/** The line under a node's name: network type, state, live only, drift. */
export function badge(node: GraphNode): string {
  const parts: string[] = [];
  if (node.kind === 'network') parts.push(node.detail);
  if (node.state !== undefined) parts.push(node.state === 'missing' ? 'not deployed' : node.state);
  if (node.liveOnly) parts.push('live only');
  if (node.drift) parts.push(DRIFT_MARK[node.drift]);
  return parts.join(' · ');
}
