/**
 * Finding the element under the pointer in the canvas drawing: nodes are kept
 * in a uniform grid of buckets, updated for the nodes that move (not rebuilt);
 * a link is hit when the pointer is near its segment.
 */
import type { Point } from './placement';

export class NodeBuckets {
  /** Bucket key ("column,row") → the ids of the nodes whose centre is in it. */
  private readonly buckets = new Map<string, Set<string>>();
  private readonly centres = new Map<string, Point>();

  /** `size`: a bucket's side, in model units; at least twice the reach of a hit, for few buckets per lookup. */
  constructor(private readonly size: number) {}

  set(id: string, centre: Point): void {
    const before = this.centres.get(id);
    const key = this.key(centre.x, centre.y);
    if (before) {
      const old = this.key(before.x, before.y);
      if (old !== key) this.buckets.get(old)?.delete(id);
    }
    this.centres.set(id, { x: centre.x, y: centre.y });
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Set()));
    bucket.add(id);
  }

  delete(id: string): void {
    const before = this.centres.get(id);
    if (!before) return;
    this.buckets.get(this.key(before.x, before.y))?.delete(id);
    this.centres.delete(id);
  }

  /** The node nearest `point` whose centre is at most `reach` away on each axis (its box contains the point). */
  at(point: Point, reach: (id: string) => Point): string | undefined {
    const [column, row] = [Math.floor(point.x / this.size), Math.floor(point.y / this.size)];
    let best: string | undefined;
    let bestDistance = Infinity;
    for (let c = column - 1; c <= column + 1; c++) {
      for (let r = row - 1; r <= row + 1; r++) {
        for (const id of this.buckets.get(`${c},${r}`) ?? []) {
          const centre = this.centres.get(id);
          if (!centre) continue;
          const [dx, dy] = [Math.abs(point.x - centre.x), Math.abs(point.y - centre.y)];
          const half = reach(id);
          const distance = dx * dx + dy * dy;
          if (dx <= half.x && dy <= half.y && distance < bestDistance) [best, bestDistance] = [id, distance];
        }
      }
    }
    return best;
  }

  private key(x: number, y: number): string {
    return `${Math.floor(x / this.size)},${Math.floor(y / this.size)}`;
  }
}

export interface Segment {
  id: string;
  from: Point;
  to: Point;
}

/** The distance from `p` to the segment from `a` to `b`. */
export function distanceToSegment(p: Point, a: Point, b: Point): number {
  const [dx, dy] = [b.x - a.x, b.y - a.y];
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** The segment nearest `point`, if one is within `reach`. */
export function segmentAt(point: Point, segments: Iterable<Segment>, reach: number): string | undefined {
  let best: string | undefined;
  let bestDistance = reach;
  for (const segment of segments) {
    const distance = distanceToSegment(point, segment.from, segment.to);
    if (distance <= bestDistance) [best, bestDistance] = [segment.id, distance];
  }
  return best;
}
