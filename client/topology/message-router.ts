/**
 * Routes each message of the topology webview to the part of the view that
 * handles it; a failure is reported to the user, never thrown at the page.
 */
import * as vscode from 'vscode';
import { LabCommand } from '../../common/commands';
import { reportFailure } from '../commands/guard';
import type { Services } from '../services';
import type { EditorSync } from './editor-sync';
import type { LabDrawing } from './lab-drawing';
import type { LabEdits } from './lab-edits';
import type { LivePoller } from './live-poller';
import type { NodeAction, WebviewMessage } from './messages';

const NODE_COMMANDS: Record<NodeAction, string> = {
  start: 'labAgent.startNode',
  stop: 'labAgent.stopNode',
  wipe: 'labAgent.wipeNode',
  console: 'labAgent.openConsole',
  consoleExec: 'labAgent.execConsole',
};

interface TopologyParts {
  drawing: LabDrawing;
  poller: LivePoller;
  editorSync: EditorSync;
  edits: LabEdits;
}

export class MessageRouter {
  constructor(
    private readonly uri: vscode.Uri,
    private readonly services: Services,
    private readonly parts: TopologyParts,
  ) {}

  async route(message: WebviewMessage): Promise<void> {
    const { drawing, poller, editorSync, edits } = this.parts;
    try {
      switch (message.type) {
        case 'ready':
          drawing.pageLoaded();
          await drawing.reload();
          poller.visibilityChanged();
          return;
        case 'resync':
          drawing.redrawWhole();
          return;
        case 'reveal':
          await editorSync.revealElement(message.id);
          return;
        case 'revealEndpoints':
          await editorSync.revealEndpoints(message.index);
          return;
        case 'move':
          await edits.moveNode(message.node, message.x, message.y);
          return;
        case 'deleteLink':
          await edits.deleteLink(message.index);
          return;
        case 'addLink':
          try {
            await edits.addLink(message.from, message.to);
          } finally {
            drawing.post({ type: 'linkDone' });
          }
          return;
        case 'capture':
          await vscode.commands.executeCommand(LabCommand.capture, {
            uri: this.uri.toString(),
            targets: [message.target],
            pick: message.others,
          });
          return;
        case 'nodeAction':
          poller.followAction();
          await vscode.commands.executeCommand(NODE_COMMANDS[message.action], {
            uri: this.uri.toString(),
            node: message.node,
          });
          await poller.fetch({ status: true, plan: false });
          return;
      }
    } catch (err) {
      await reportFailure(this.services, `Topology of ${this.uri.path.split('/').pop()}`, err);
    }
  }
}
