/**
 * What the user does in the topology view, made as edits of the lab file:
 * the language server computes each edit (TopologyEditRequest), and it is
 * applied to the document, undoable and unsaved. A refused edit says why.
 */
import * as vscode from 'vscode';
import { FreeInterfacesRequest, TopologyEditRequest, type TopologyChange } from '../../common/protocol';
import { PromptCancelled } from '../labs/lab-context';
import type { LabLanguageClient } from '../language-client';
import { toRange } from './lsp-ranges';

export class LabEdits {
  constructor(
    private readonly uri: vscode.Uri,
    private readonly server: LabLanguageClient,
    /** Puts the drawing back as the document has it (a node dragged where the edit was refused). */
    private readonly redrawWhole: () => void,
  ) {}

  moveNode(node: string, x: number, y: number): Promise<void> {
    return this.edit({ kind: 'position', node, x, y }, true);
  }

  deleteLink(index: number): Promise<void> {
    return this.edit({ kind: 'deleteLink', index }, false);
  }

  /** A link between two drawing ids (node or network); each node's interface is asked for. */
  async addLink(from: string, to: string): Promise<void> {
    const end = async (id: string): Promise<string> => {
      const colon = id.indexOf(':');
      const name = id.slice(colon + 1);
      return id.startsWith('network:') ? name : `${name}:${await this.pickInterface(name)}`;
    };
    if (from.startsWith('network:') && to.startsWith('network:'))
      throw new Error('A link cannot join two networks: draw it from a node.');
    const a = await end(from);
    const b = await end(to);
    await this.edit({ kind: 'addLink', endpoints: [a, b] }, false);
  }

  private async pickInterface(node: string): Promise<string> {
    const answer = await this.server.request(FreeInterfacesRequest, { uri: this.uri.toString(), node });
    let picked: string | undefined;
    if (answer && 'interfaces' in answer && answer.interfaces.length > 0) {
      picked = (
        await vscode.window.showQuickPick(answer.interfaces, {
          title: `New link: the interface of ${node}`,
          placeHolder: `A free interface of ${node}`,
        })
      )?.trim();
    } else {
      const why =
        answer && 'error' in answer
          ? answer.error
          : answer
            ? `${node} has no free interface.`
            : 'The language server is not running.';
      picked = (
        await vscode.window.showInputBox({
          title: `New link: the interface of ${node}`,
          prompt: `${why} Type the interface name.`,
          validateInput: (v) => (/^[^\s,[\]{}#:]+$/.test(v.trim()) ? undefined : 'An interface name, e.g. Gi0/1'),
        })
      )?.trim();
    }
    if (!picked) throw new PromptCancelled();
    return picked;
  }

  /** Asks the server for the edit and applies it (undoable, not saved); a refused edit puts the drawing back. */
  private async edit(change: TopologyChange, redrawOnRefusal: boolean): Promise<void> {
    const document = await vscode.workspace.openTextDocument(this.uri);
    const answer = await this.server.request(TopologyEditRequest, {
      uri: this.uri.toString(),
      version: document.version,
      change,
    });
    if (!answer || 'error' in answer) {
      if (redrawOnRefusal) this.redrawWhole();
      throw new Error(answer ? answer.error : 'The language server is not running; the lab file was not changed.');
    }
    if (answer.edits.length === 0) return;
    const edit = new vscode.WorkspaceEdit();
    for (const e of answer.edits) edit.replace(this.uri, toRange(e.range), e.newText);
    if (!(await vscode.workspace.applyEdit(edit))) {
      if (redrawOnRefusal) this.redrawWhole();
      throw new Error('The edit could not be applied to the lab file (is it read-only?).');
    }
  }
}
