/**
 * What main.ts asks of a renderer of the lab, so that it does not care which
 * one draws it: Cytoscape.js for labs small enough to show in detail
 * (graph.ts), a plain canvas for large ones (canvas-graph.ts).
 */
import type { GraphChange } from '../graph-delta';
import type { GraphData, GraphNode } from '../messages';
import type { View } from '../fit-view';
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
  /** How high a node's name is on screen, in CSS pixels (0 while names are not drawn). */
  namePixels(): number;
  /** Removes the drawing from the page. */
  destroy(): void;
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
