/**
 * Whether a link is long enough to show the interface name at each of its
 * ends without the two overlapping each other or the nodes. Labels grow with
 * the zoom as the link does, so this depends only on the drawing's lengths
 * (the spread Fit draws a small lab at), not on the zoom. Pure geometry.
 */

/** Half a node's square, in drawing units (graph.ts draws nodes 44 wide). */
const NODE_HALF = 22;
/** How far along the link from the node's border each label's centre sits (graph.ts: source-/target-text-offset). */
export const LABEL_OFFSET = 28;
/** The interface labels' font size, and an average character's width at that size (a bound for names such as Gi0/1). */
export const LABEL_FONT_SIZE = 9;
const CHAR_WIDTH = 0.62 * LABEL_FONT_SIZE;
/** Room kept between the two labels. */
const GAP = 4;

/** A label's height: one line, with its background's padding. */
const LABEL_HEIGHT = LABEL_FONT_SIZE + 4;

function labelWidth(text: string): number {
  return text.length * CHAR_WIDTH + 4;
}

/**
 * True when the labels at both ends of a link from one node's centre to the other's (dx, dy
 * apart, in drawing units) are drawn apart: along the link, each horizontal label takes its
 * width's and its height's share by the link's direction.
 */
export function linkLabelsFit(dx: number, dy: number, sourceLabel: string, targetLabel: string): boolean {
  const length = Math.hypot(dx, dy);
  if (length === 0) return false;
  const [cos, sin] = [Math.abs(dx) / length, Math.abs(dy) / length];
  const along = (text: string): number => labelWidth(text) * cos + LABEL_HEIGHT * sin;
  // Each label reaches from its node's border to its offset plus half its extent (an empty one takes no room).
  const reach = (text: string): number => (text === '' ? 0 : LABEL_OFFSET + along(text) / 2);
  return reach(sourceLabel) + reach(targetLabel) + GAP <= length - 2 * NODE_HALF;
}
