/** TreeRow (plain data, client/model) → vscode.TreeItem, and the pieces every view shares. */
import * as vscode from 'vscode';
import type { TreeRow } from '../model/tree-row';

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function treeItemOf<T>(row: TreeRow<T>, command?: vscode.Command): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, COLLAPSIBLE[row.collapsible]);
  item.id = row.id;
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.iconPath = new vscode.ThemeIcon(row.icon, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
  item.contextValue = row.contextValue;
  if (command !== undefined) item.command = command;
  return item;
}

/** A row that only tells something (an error, "not deployed"), carrying no target. */
export function messageRow<T>(id: string, label: string, icon: string, data: T, tooltip?: string): TreeRow<T> {
  return { id, label, icon, collapsible: 'none', contextValue: 'message', tooltip, data };
}
