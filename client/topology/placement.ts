/**
 * Where the drawing puts each node, for both renderers: a node sits where its
 * `position` says; anything without one takes the first free cell of a grid
 * below the placed nodes, and keeps it from one update to the next.
 */
import type { GraphNode } from './messages';

/** The grid's cell size, in model units (Cytoscape's, so a dragged node's `position` is the same in both renderers). */
export const CELL = 140;
const MIN_COLUMNS = 6;

export interface Point {
  x: number;
  y: number;
}

/** Cells for the nodes without a position: below the placed nodes, as wide as they are (or a square). */
export class Placement {
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

  /** Where the node goes: its own position, else its cell (the one it has, else the first free one). */
  at(node: GraphNode): Point {
    if (node.position) {
      this.release(node.id);
      return node.position;
    }
    return this.place(node.id);
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

  /** Frees the node's cell (it has a position now, or it is gone). */
  release(id: string): void {
    const cell = this.cells.get(id);
    if (cell === undefined) return;
    this.cells.delete(id);
    this.taken.delete(cell);
    this.lowestFree = Math.min(this.lowestFree, cell);
  }
}
