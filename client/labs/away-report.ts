/**
 * Tells the user what changed while the agent was away (decisions §10): the
 * Labs view reports which nodes of each lab it saw running; when the session
 * works again after the agent was unreachable, each such lab's status is read
 * again and nodes that stopped meanwhile are named once, with Start All.
 */
import * as vscode from 'vscode';
import type { ProjectStatusData } from '../../common/api/contract';
import { LabCommand } from '../../common/commands';
import { awayMessage, runningNodes, stoppedWhileAway } from '../model/away-report';
import { describeError } from '../model/errors';
import type { Services } from '../services';
import { loadLab, observationPayload } from './lab-context';

const START_ALL = 'Start All';

export class AwayReport {
  /** The nodes last seen running, by lab file URI. */
  private readonly running = new Map<string, string[]>();

  constructor(private readonly services: Services) {}

  seen(uri: string, status: ProjectStatusData | undefined): void {
    const nodes = runningNodes(status);
    if (nodes.length) this.running.set(uri, nodes);
    else this.running.delete(uri);
  }

  /** The agent answers again: compare each lab that had running nodes with what runs now. */
  async resynced(): Promise<void> {
    const labs = [...this.running];
    for (const [uri, before] of labs) {
      try {
        const lab = await loadLab(vscode.Uri.parse(uri, true), this.services.labParses);
        const status = await this.services.labAgents
          .sessionOf(lab.uri)
          .agent()
          .getProjectStatus(observationPayload(lab));
        this.seen(uri, status);
        const stopped = stoppedWhileAway(before, status);
        if (!stopped.length) continue;
        void vscode.window.showWarningMessage(awayMessage(lab.name, stopped), START_ALL).then((choice) => {
          if (choice === START_ALL) void vscode.commands.executeCommand(LabCommand.startLab, { uri });
        });
      } catch (err) {
        this.services.log.warn(
          `Could not compare ${uri} with what ran before the agent was away: ${describeError(err).message}`,
        );
      }
    }
  }
}
