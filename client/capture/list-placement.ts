/**
 * Where a packet list opens. It has six columns, so it needs the editor area's
 * full width: the first list gets a new editor group below all the others
 * (the lab file and the topology keep their places above, as a terminal sits
 * below the code), and further lists open as tabs of that group while one is
 * there. Changing the layout goes through VS Code's own layout commands.
 */
import * as vscode from 'vscode';

/** What `vscode.getEditorLayout` gives and `vscode.setEditorLayout` takes (0: side by side, 1: stacked). */
interface EditorLayout {
  orientation: 0 | 1;
  groups: object[];
}

/** The group of an open packet list, else a new full-width group at the bottom of the editor area. */
export async function packetListColumn(openLists: Iterable<vscode.WebviewPanel>): Promise<vscode.ViewColumn> {
  for (const panel of openLists) if (panel.viewColumn !== undefined) return panel.viewColumn;
  const layout = await vscode.commands.executeCommand<EditorLayout | undefined>('vscode.getEditorLayout');
  if (layout === undefined) return vscode.ViewColumn.Active;
  // Stacked groups gain one more row; side-by-side ones become the top row, their sizes kept.
  const rows = layout.orientation === 1 ? layout.groups : [{ groups: layout.groups }];
  await vscode.commands.executeCommand('vscode.setEditorLayout', { orientation: 1, groups: [...rows, {}] });
  return Math.max(...vscode.window.tabGroups.all.map((group) => group.viewColumn));
}
