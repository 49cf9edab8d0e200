/**
 * The renderer that draws the lab: Cytoscape for labs up to the threshold,
 * the canvas above it (renderer-choice.ts), replaced when the lab grows or
 * shrinks across it; it keeps the highlight across a change of renderer and
 * publishes, for tests, where the drawing is.
 */
import type { GraphData } from '../messages';
import { rendererFor, type RendererKind } from '../renderer-choice';
import { CanvasGraph } from './canvas-graph';
import type { Drawing, GraphEvents } from './drawing';
import { TopologyGraph } from './graph';
import { readPalette } from './theme';

export class RendererHost {
  private current: Drawing | undefined;
  private kind: RendererKind | undefined;
  /** The elements the editor's cursor is in, highlighted again by a new renderer. */
  private highlighted: readonly string[] = [];

  constructor(
    private readonly container: HTMLElement,
    /** What the user does in the drawing (the host itself follows the view). */
    private readonly events: Omit<GraphEvents, 'viewChanged'>,
  ) {}

  get drawing(): Drawing | undefined {
    return this.current;
  }

  private rendererEvents(): GraphEvents {
    return { ...this.events, viewChanged: () => this.viewChanged() };
  }

  /** The renderer for this drawing's size (a new one has drawn nothing yet). */
  for(graph: GraphData): { drawing: Drawing; isNew: boolean } {
    const kind = rendererFor(graph.links.length);
    if (this.current && this.kind === kind) return { drawing: this.current, isNew: false };
    this.current?.destroy();
    const palette = readPalette();
    this.current =
      kind === 'canvas'
        ? new CanvasGraph(this.container, palette, this.rendererEvents())
        : new TopologyGraph(this.container, palette, this.rendererEvents());
    this.kind = kind;
    // For tests: which renderer draws the lab.
    document.body.dataset.renderer = kind;
    return { drawing: this.current, isNew: true };
  }

  highlight(ids: readonly string[]): void {
    this.highlighted = ids;
    this.current?.highlight(ids);
  }

  /** A new renderer drew its first drawing: the highlight is drawn again. */
  highlightAgain(): void {
    if (this.highlighted.length > 0) this.current?.highlight(this.highlighted);
  }

  /** For tests: where the drawing is, so that a point of the model can be found on the page. */
  viewChanged(): void {
    if (!this.current) return;
    document.body.dataset.viewport = JSON.stringify(this.current.view());
    document.body.dataset.namePixels = this.current.namePixels().toFixed(1);
    document.body.dataset.drawingSize = `${this.container.clientWidth}x${this.container.clientHeight}`;
  }
}
