/**
 * "Show Topology": opens (or brings back) the topology view of a lab file
 * beside its editor, from the editor title, the Labs view or the palette.
 * One view per lab file.
 */
import * as vscode from 'vscode';
import { registerGuarded } from '../commands/guard';
import type { LabLanguageClient } from '../language-client';
import { resolveLab } from '../labs/lab-context';
import type { Services } from '../services';
import { TopologyPanel } from './panel';

export const TopologyCommand = { show: 'labAgent.showTopology' } as const;
const VIEW_TYPE = 'labAgent.topology';

export function registerTopologyView(
  services: Services,
  server: LabLanguageClient,
  extensionUri: vscode.Uri,
): vscode.Disposable[] {
  const panels = new Map<string, TopologyPanel>();
  const show = async (arg: unknown): Promise<boolean> => {
    const { lab } = await resolveLab(arg, services.labParses);
    const key = lab.uri.toString();
    const open = panels.get(key);
    if (open) {
      open.reveal();
      return true;
    }
    // The drawing sits beside the lab's editor: open the editor first when it is not shown.
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === key);
    if (!shown) await vscode.window.showTextDocument(lab.uri, { preview: false });
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      `Topology: ${lab.name}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: false,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
      },
    );
    panel.iconPath = new vscode.ThemeIcon('type-hierarchy');
    panels.set(key, new TopologyPanel(lab.uri, panel, services, server, extensionUri, () => panels.delete(key)));
    return true;
  };
  return [
    registerGuarded(services, TopologyCommand.show, 'Show topology', show),
    {
      dispose: () => {
        for (const open of panels.values()) open.panel.dispose();
      },
    },
  ];
}
