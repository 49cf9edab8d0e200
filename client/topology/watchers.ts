/**
 * What the topology view follows outside itself: the lab's document as the
 * user types (a short pause redraws, a longer one plans again), the editor's
 * cursors, actions on the lab in any view, and the agents' sessions.
 */
import * as vscode from 'vscode';
import type { Services } from '../services';

/** A typing pause this long redraws the lab. */
const TYPING_DEBOUNCE_MS = 60;
/** The plan asks the agent to compare the whole lab: only after a longer pause. */
const PLAN_DEBOUNCE_MS = 2000;

interface LabWatchHandlers {
  /** The text changed and typing paused: read the lab again. */
  typed: () => void;
  /** The text changed and typing paused longer: plan again. */
  typedLong: () => void;
  cursorsMoved: (selections: readonly vscode.Selection[]) => void;
  /** An action changed the lab, here or in another view. */
  actionTaken: () => void;
  /** The lab's agent or session changed: fetch the live lab again. */
  agentChanged: () => void;
}

export class LabWatchers implements vscode.Disposable {
  private readonly timers = new Map<'typing' | 'plan', NodeJS.Timeout>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(uri: vscode.Uri, services: Services, handlers: LabWatchHandlers) {
    const key = uri.toString();
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.toString() !== key || event.contentChanges.length === 0) return;
        this.later('typing', TYPING_DEBOUNCE_MS, handlers.typed);
        this.later('plan', PLAN_DEBOUNCE_MS, handlers.typedLong);
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor.document.uri.toString() === key) handlers.cursorsMoved(event.selections);
      }),
      services.onLabViewsStale(handlers.actionTaken),
      services.agents.onDidChange((session) => {
        if (session === undefined || session === services.labAgents.sessionIfAny(uri)) handlers.agentChanged();
      }),
      services.labAgents.onDidChange(handlers.agentChanged),
    ];
  }

  private later(timer: 'typing' | 'plan', ms: number, run: () => void): void {
    clearTimeout(this.timers.get(timer));
    this.timers.set(
      timer,
      setTimeout(() => {
        this.timers.delete(timer);
        run();
      }, ms),
    );
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}
