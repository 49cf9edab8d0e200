/**
 * Node lenses offer what fits each node's state (decisions §7), so the states they know must follow
 * the live lab after every action the extension takes, whether or not the Labs view is open to
 * read them: after a deploy, push, pull, start, stop, wipe or destroy the lab's status is read, and
 * read again every 2 s while a node is starting or stopping, at most 30 times.
 * The Labs view, refreshed by the same action, takes that reading instead of asking the agent again.
 */
import type * as vscode from 'vscode';
import type { ProjectStatusData } from '../../common/api/contract';
import type { Session } from '../connection/session';
import type { Log } from '../log';
import { isSettling, nodeStatesOf } from '../model/lab-rows';
import type { LabParses } from './lab-parses';
import { loadLab, observationPayload } from './lab-context';

const SETTLING_READ_MS = 2000;
const MAX_READS = 30;
/** A reading nobody took by then is dropped: a view that loads later reads for itself. */
const HANDED_READING_MS = SETTLING_READ_MS;

export class NodeStatesFollower implements vscode.Disposable {
  /** The pending re-read of each lab, by URI: a new action on the lab replaces it. */
  private readonly pending = new Map<string, NodeJS.Timeout>();
  /** The latest reading of each lab, by URI, until the Labs view takes it (once) or it is dropped. */
  private readonly handed = new Map<string, { reading: Promise<ProjectStatusData>; drop?: NodeJS.Timeout }>();

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

  /**
   * The status this follower read (or is reading) for the lab since its last action, handed over
   * once: the load of the Labs view that the same action started uses it instead of a request.
   */
  takeReading(uri: vscode.Uri): Promise<ProjectStatusData> | undefined {
    const key = uri.toString();
    const handed = this.handed.get(key);
    this.forget(key);
    return handed?.reading;
  }

  /** Reads the lab's node states and hands them on; true while a node is still starting or stopping. */
  private async read(uri: vscode.Uri): Promise<boolean> {
    const session = this.sessionOf(uri);
    if (session?.current.state !== 'connected') return false;
    const key = uri.toString();
    // Offered before the first await: the view's load that the action starts comes after this call.
    const reading = loadLab(uri, this.parses).then((lab) => session.agent().getProjectStatus(observationPayload(lab)));
    this.forget(key);
    const handed: { reading: Promise<ProjectStatusData>; drop?: NodeJS.Timeout } = { reading };
    this.handed.set(key, handed);
    try {
      const status = await reading;
      this.seen(uri, nodeStatesOf({ status }));
      return isSettling({ status });
    } catch (err) {
      this.log.info(`The node states of ${uri.fsPath} were not read: ${(err as Error).message}`);
      return false;
    } finally {
      if (this.handed.get(key) === handed) handed.drop = setTimeout(() => this.forget(key), HANDED_READING_MS);
    }
  }

  private forget(key: string): void {
    clearTimeout(this.handed.get(key)?.drop);
    this.handed.delete(key);
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    for (const key of [...this.handed.keys()]) this.forget(key);
  }
}
