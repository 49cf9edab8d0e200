/**
 * The arithmetic of the element list's window: which rows of a long list of
 * equal rows are in view (only those are in the page), and where to scroll to
 * bring a row into view. Pure, so it is tested without a browser.
 */

/** Up to this many elements the list has every row in the page: a small lab's list is whole, as a plain list is. */
export const ALL_ROWS_MAX = 500;
/** Rows kept in the page beyond each edge of the view, so that a short scroll shows rows already there. */
export const OVERSCAN = 8;

/** Rows [start, end) of a list. */
export interface RowRange {
  start: number;
  end: number;
}

/** The part of the scrolled content in view. */
export interface Viewport {
  scrollTop: number;
  height: number;
}

/** A list of `count` rows, each `rowHeight` high, from `top` of the scrolled content. */
export interface RowList {
  top: number;
  count: number;
  rowHeight: number;
}

/** The rows of `list` in view, and OVERSCAN more each side; empty when the list is out of view. */
export function rowWindow(view: Viewport, list: RowList, overscan = OVERSCAN): RowRange {
  if (list.count === 0 || list.rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor((view.scrollTop - list.top) / list.rowHeight);
  const last = Math.ceil((view.scrollTop + view.height - list.top) / list.rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(list.count, last + overscan);
  return start < end ? { start, end } : { start: 0, end: 0 };
}

/** The scroll position that shows the row at `rowTop` with the least scrolling (the view's, if it is in view already). */
export function scrollToShow(view: Viewport, rowTop: number, rowHeight: number): number {
  if (rowTop < view.scrollTop) return rowTop;
  if (rowTop + rowHeight > view.scrollTop + view.height) return Math.min(rowTop, rowTop + rowHeight - view.height);
  return view.scrollTop;
}
