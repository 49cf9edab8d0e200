/**
 * Tells the user what changed while the agent was away (decisions §10): every read of a lab's node
 * states (the Labs view's, and the one after each action, whether or not the view is open) says
 * which nodes it saw running; when the session works again after the agent was unreachable, each
 * such lab's status is read again and nodes that stopped meanwhile are named once, with Start All.
 * Nothing is said when nothing stopped.
 */
import * as vscode from 'vscode';
import { LabCommand } from '../../common/commands';
import type { Log } from '../log';
import { awayMessage, runningNodes, stoppedWhileAway } from '../model/away-report';
import { describeError } from '../model/errors';
import { nodeStatesOf } from '../model/lab-rows';
import type { LabAgents } from './lab-agents';
import type { LabParses } from './lab-parses';
import { loadLab, observationPayload } from './lab-context';

const START_ALL = 'Start All';

export class AwayReport {
  /** The nodes last seen running, by lab file URI. */
  private readonly running = new Map<string, string[]>();

  constructor(
    private readonly labAgents: LabAgents,
    private readonly parses: LabParses,
    private readonly log: Log,
  ) {}

  /** A read of the lab's node states; undefined (the agent did not say) keeps what was seen before. */
  seen(uri: vscode.Uri, states: Record<string, string> | undefined): void {
    if (states === undefined) return;
    const nodes = runningNodes(states);
    if (nodes.length) this.running.set(uri.toString(), nodes);
    else this.running.delete(uri.toString());
  }

  /** The agent answers again: compare each lab that had running nodes with what runs now. */
  async resynced(): Promise<void> {
    for (const [key, before] of [...this.running]) {
      const uri = vscode.Uri.parse(key, true);
      try {
        const lab = await loadLab(uri, this.parses);
        const status = await this.labAgents.sessionOf(lab.uri).agent().getProjectStatus(observationPayload(lab));
        const states = nodeStatesOf({ status });
        this.seen(uri, states);
        const stopped = stoppedWhileAway(before, states);
        if (!stopped.length) continue;
        void vscode.window.showWarningMessage(awayMessage(lab.name, stopped), START_ALL).then((choice) => {
          if (choice === START_ALL) void vscode.commands.executeCommand(LabCommand.startLab, { uri: key });
        });
      } catch (err) {
        this.log.warn(
          `Could not compare ${key} with what ran before the agent was away: ${describeError(err).message}`,
        );
      }
    }
  }
}
