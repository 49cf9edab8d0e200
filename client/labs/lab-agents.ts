/**
 * Binds each lab file to one agent (rules in model/lab-binding.ts): a file's
 * own choice is kept in the workspace state, a folder's in its setting
 * labAgent.agent. Hands out the session of a lab's agent to every command and view.
 */
import * as vscode from 'vscode';
import type { Agents } from '../connection/agents';
import type { Session } from '../connection/session';
import { bindLab, choicesAfterMove, type LabBinding } from '../model/lab-binding';

const CHOICES_KEY = 'labAgent.labAgents';
const LAB_LANGUAGE = 'lab-yaml';

export class LabAgents implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly activeChanged = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[];
  /** A lab's binding changed (a move, the folder setting, the list of agents). */
  readonly onDidChange = this.changed.event;
  /** The active agent (activeSession) may be another one, or its session changed. */
  readonly onDidChangeActive = this.activeChanged.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly agents: Agents,
  ) {
    this.subscriptions = [
      this.changed,
      this.activeChanged,
      this.changed.event(() => this.activeChanged.fire()),
      agents.onDidChange(() => this.activeChanged.fire()),
      vscode.window.onDidChangeActiveTextEditor(() => this.activeChanged.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('labAgent.agent') || e.affectsConfiguration('labAgent.agents')) this.changed.fire();
      }),
    ];
  }

  bindingOf(uri: vscode.Uri): LabBinding {
    return bindLab({
      fileChoice: this.choices()[uri.toString()],
      folderSetting: vscode.workspace.getConfiguration('labAgent', uri).get<string>('agent'),
      agents: this.agents.names(),
    });
  }

  /** The session of the lab's agent; throws what to do when that agent is not configured. */
  sessionOf(uri: vscode.Uri): Session {
    const binding = this.bindingOf(uri);
    const session = this.agents.get(binding.agent);
    if (session === undefined || binding.problem !== undefined)
      throw new Error(binding.problem ?? `No agent named "${binding.agent}".`);
    return session;
  }

  /** The session of the lab's agent, or undefined when that agent is not configured. */
  sessionIfAny(uri: vscode.Uri): Session | undefined {
    const binding = this.bindingOf(uri);
    return binding.problem === undefined ? this.agents.get(binding.agent) : undefined;
  }

  /** The lab file of the active editor, if it is one. */
  activeLab(): vscode.Uri | undefined {
    const document = vscode.window.activeTextEditor?.document;
    return document?.languageId === LAB_LANGUAGE ? document.uri : undefined;
  }

  /**
   * The agent the status bar and the menus speak for: the active lab file's
   * (undefined when that agent is not configured), else the default one.
   */
  activeSession(): Session | undefined {
    const lab = this.activeLab();
    return lab === undefined ? this.agents.defaultSession : this.sessionIfAny(lab);
  }

  /** Binds the file to `agent` (the caller plans against it: nothing is moved here). */
  async move(uri: vscode.Uri, agent: string): Promise<void> {
    await this.state.update(CHOICES_KEY, choicesAfterMove(this.choices(), uri.toString(), agent));
    this.changed.fire();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  private choices(): Record<string, string> {
    const stored = this.state.get<unknown>(CHOICES_KEY);
    return typeof stored === 'object' && stored !== null ? (stored as Record<string, string>) : {};
  }
}
