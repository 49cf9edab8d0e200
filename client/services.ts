/** What the feature modules share, handed to each of them by activate(). */
import type * as vscode from 'vscode';
import type { Agents } from './connection/agents';
import type { LabAgents } from './labs/lab-agents';
import type { Session } from './connection/session';
import type { Log } from './log';
import type { LabParses } from './labs/lab-parses';

/** A change of a lab after which its tests may run (setting labAgent.tests.runAfter). */
export type LabChange = 'deploy' | 'push' | 'start';

export interface Services {
  /** Every agent's session. */
  agents: Agents;
  /** The default agent's session (the one of the single-agent settings). */
  session: Session;
  /** Which agent each lab file belongs to, and that agent's session. */
  labAgents: LabAgents;
  log: Log;
  /** Lab texts parsed once, for every view and command that loads a lab. */
  labParses: LabParses;
  /**
   * The lab's stored or live state changed: tell the language server, refresh the Labs and Consoles
   * views, mark its test results stale; `change` says when it was a deploy, push or start (tests may run).
   */
  labStateChanged(uri: vscode.Uri, change?: LabChange): void;
  /** The Labs view read the lab's node states (undefined: it could not): node lenses follow them (client/labs/node-states.ts reads them after actions). */
  nodeStatesSeen(uri: vscode.Uri, states: Record<string, string> | undefined): void;
  /** Fires when the Labs and Consoles views should load again. */
  readonly onLabViewsStale: vscode.Event<void>;
  /** Templates or network types were refreshed: the language server drops its cached catalogue too. */
  refreshCatalogue(): void;
}
