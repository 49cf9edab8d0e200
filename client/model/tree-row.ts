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

/** What rows show (labels, descriptions, icons, menus, children), as one string: equal strings, nothing new. */
export function rowsFingerprint<T>(rows: readonly TreeRow<T>[]): string {
  const shown = (row: TreeRow<T>): unknown[] => [
    row.id,
    row.label,
    row.description,
    row.tooltip,
    row.icon,
    row.iconColor,
    row.contextValue,
    row.children?.map(shown),
  ];
  return JSON.stringify(rows.map(shown));
}
