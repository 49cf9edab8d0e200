/**
 * The topology view and the lab's text editor follow each other: the
 * elements under the editor's cursors are highlighted in the drawing, and an
 * element chosen in the drawing is selected in the editor.
 */
import * as vscode from 'vscode';
import type { Range as LspRange } from 'vscode-languageserver-protocol';
import type { TopologyData } from '../../common/protocol';
import { linkId, networkId, nodeId } from './graph-model';
import { rangeContains, toRange } from './lsp-ranges';

export class EditorSync {
  constructor(
    private readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    /** The lab as last read. */
    private readonly topology: () => TopologyData | undefined,
  ) {}

  /** The drawing's ids of the elements the cursors are in. */
  idsAtCursors(selections: readonly vscode.Selection[]): string[] {
    const topology = this.topology();
    if (!topology) return [];
    const ids = new Set<string>();
    for (const selection of selections) {
      const at = selection.active;
      const link = topology.links.find((l) => rangeContains(l.range, at));
      if (link) {
        ids.add(linkId(link.index));
        continue;
      }
      const node = topology.nodes.find((n) => rangeContains(n.range, at));
      if (node) ids.add(nodeId(node.name));
      const network = topology.networks.find((n) => rangeContains(n.range, at));
      if (network) ids.add(networkId(network.name));
    }
    return [...ids];
  }

  /** Selects an element's name (a link: the whole link) in the editor. */
  async revealElement(id: string): Promise<void> {
    const range = this.rangeOf(id);
    if (!range) return;
    const editor = await this.editor();
    const selection = toRange(range);
    editor.selection = new vscode.Selection(selection.start, selection.end);
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** Selects both endpoints of a link in the editor. */
  async revealEndpoints(index: number): Promise<void> {
    const link = this.topology()?.links.find((l) => l.index === index);
    if (!link || link.endpoints.length === 0) return;
    const editor = await this.editor();
    editor.selections = link.endpoints.map((e) => {
      const r = toRange(e.range);
      return new vscode.Selection(r.start, r.end);
    });
    editor.revealRange(toRange(link.range), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** The lab's editor, shown where it is or in the other column than the view. */
  private async editor(): Promise<vscode.TextEditor> {
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri.toString());
    const column =
      shown?.viewColumn ??
      (this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
    return vscode.window.showTextDocument(this.uri, { viewColumn: column, preserveFocus: false, preview: false });
  }

  private rangeOf(id: string): LspRange | undefined {
    const topology = this.topology();
    const [kind, name] = [id.slice(0, id.indexOf(':')), id.slice(id.indexOf(':') + 1)];
    if (kind === 'node') return topology?.nodes.find((n) => n.name === name)?.nameRange;
    if (kind === 'network') return topology?.networks.find((n) => n.name === name)?.nameRange;
    if (kind === 'link') return topology?.links.find((l) => l.index === Number(name))?.range;
    return undefined;
  }
}
