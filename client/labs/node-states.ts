/**
 * Node lenses offer what fits each node's state (decisions §7), so the states they know must follow
 * the live lab after every action the extension takes, whether or not the Labs view is open to
 * read them: after a deploy, push, pull, start, stop, wipe or destroy the lab's status is read, and
 * read again every 2 s while a node is starting or stopping, at most 30 times.
 */
import type * as vscode from 'vscode';
import type { Session } from '../connection/session';
import type { Log } from '../log';
import { isSettling, nodeStatesOf } from '../model/lab-rows';
import type { LabParses } from './lab-parses';
import { loadLab, observationPayload } from './lab-context';

const SETTLING_READ_MS = 2000;
const MAX_READS = 30;

export class NodeStatesFollower implements vscode.Disposable {
  /** The pending re-read of each lab, by URI: a new action on the lab replaces it. */
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    /** The session of the lab's agent (undefined: that agent is not configured). */
    private readonly sessionOf: (uri: vscode.Uri) => Session | undefined,
    private readonly parses: LabParses,
    private readonly log: Log,
    private readonly seen: (uri: vscode.Uri, states: Record<string, string> | undefined) => void,
  ) {}

  follow(uri: vscode.Uri, reads = 1): void {
    const key = uri.toString();
    clearTimeout(this.pending.get(key));
    this.pending.delete(key);
    void this.read(uri).then((settling) => {
      if (!settling || reads >= MAX_READS || this.pending.has(key)) return;
      this.pending.set(
        key,
        setTimeout(() => this.follow(uri, reads + 1), SETTLING_READ_MS),
      );
    });
  }

  /** Reads the lab's node states and hands them on; true while a node is still starting or stopping. */
  private async read(uri: vscode.Uri): Promise<boolean> {
    const session = this.sessionOf(uri);
    if (session?.current.state !== 'connected') return false;
    try {
      const lab = await loadLab(uri, this.parses);
      const status = await session.agent().getProjectStatus(observationPayload(lab));
      this.seen(uri, nodeStatesOf({ status }));
      return isSettling({ status });
    } catch (err) {
      this.log.info(`The node states of ${uri.fsPath} were not read: ${(err as Error).message}`);
      return false;
    }
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
