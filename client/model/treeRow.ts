/**
 * A tree view row as plain data, so that what the trees show can be built and
 * tested without VS Code. The views turn rows into TreeItems one to one.
 */
export interface TreeRow<T = undefined> {
  /** Unique within the view and stable across refreshes (keeps expansion state). */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id, e.g. "vm-running". */
  icon: string;
  /** A theme color id for the icon, e.g. "testing.iconPassed". */
  iconColor?: string;
  /** Space-separated tokens that menus match with `viewItem =~ /\btoken\b/`. */
  contextValue?: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  /** Children known already; undefined when they are loaded on expansion. */
  children?: TreeRow<T>[];
  data: T;
}
