/**
 * Drawing a link in the webview: the element it starts at, the hint that
 * says what to do next, and the page's `drawing` class (crosshair cursor).
 */
import type { GraphReplica } from '../graph-delta';

export class LinkMode {
  /** The element the link starts at, while one is being drawn. */
  private fromId: string | undefined;

  constructor(
    private readonly hint: HTMLElement,
    private readonly replica: GraphReplica,
  ) {}

  get from(): string | undefined {
    return this.fromId;
  }

  /** Starts drawing a link from `id`, or ends it (undefined). */
  set(id: string | undefined): void {
    this.fromId = id;
    const from = id === undefined ? undefined : this.replica.node(id);
    this.hint.hidden = from === undefined;
    this.hint.textContent = from
      ? `Drawing a link from ${from.name}: click the other end, or focus it in the list and press Enter. Escape cancels.`
      : '';
    document.body.classList.toggle('drawing', from !== undefined);
  }

  /** The other end was chosen: the host now asks for the interfaces. */
  adding(): void {
    this.hint.textContent = 'Adding the link: pick the interfaces in the editor…';
  }

  /** The drawing changed: a link from an element that is gone ends. */
  drawingChanged(): void {
    if (this.fromId !== undefined && !this.replica.node(this.fromId)) this.set(undefined);
  }
}
