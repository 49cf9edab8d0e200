/**
 * Which renderer draws a lab. Up to this many links, Cytoscape.js draws it in
 * detail: symbols, curved links labelled with their interfaces. Above it,
 * Cytoscape's per-element work (seconds at 2,000 nodes, and a full redraw
 * after any change) misses the view's targets, and the drawing is too small
 * to show that detail anyway: a plain canvas draws nodes as small shapes and
 * links as straight lines; the element list still names every interface.
 */
export const DETAILED_LINKS_MAX = 300;

export type RendererKind = 'cytoscape' | 'canvas';

export function rendererFor(links: number): RendererKind {
  return links <= DETAILED_LINKS_MAX ? 'cytoscape' : 'canvas';
}
