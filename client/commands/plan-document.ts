/**
 * Plan: the agent's dry run, shown in a read-only document (scheme
 * lab-agent-plan) that offers "Apply This Plan". Applying reconciles towards
 * the emulator with the plan's identity, so the agent refuses (plan_stale) if
 * the lab or the document changed since the plan was made; then we offer to plan again.
 * A shown plan that no longer matches (the lab document was edited, or an
 * action changed the live lab) says so at its top, with a "Plan Again" lens.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../common/api/client';
import type { PlanData, ReconcileData } from '../../common/api/contract';
import type { LabPlan } from '../../common/protocol';
import { ReadOnlyDocuments } from '../documents/read-only-documents';
import { isLabActionAllowed } from '../model/capabilities';
import { booleanArg, fieldOf, targetOfArg } from '../model/command-args';
import { planApplyBlocker, planDeletes, planSummaryLine, renderPlan } from '../model/plan-text';
import { allowedClient } from '../labs/gate';
import { loadLab, labPayload, PromptCancelled, resolveLab } from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import { pushLab } from '../labs/push';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

export const PLAN_SCHEME = 'lab-agent-plan';

interface ShownPlan {
  labUri: vscode.Uri;
  plan: PlanData;
  /** The plan's identity covers prune, so applying must use the same. */
  prune: boolean;
  /** The document's text as rendered. */
  text: string;
  /** Why the plan no longer matches; undefined while it does. */
  stale?: string;
}

export class PlanDocuments implements vscode.Disposable, vscode.CodeLensProvider {
  private readonly documents = new ReadOnlyDocuments(PLAN_SCHEME);
  /** The plan each plan document shows, by plan document URI. */
  private readonly plans = new Map<string, ShownPlan>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;

  /** `sharedPlan` asks the language server for the lab's plan, the one the plan lens and the topology show. */
  constructor(
    private readonly services: Services,
    private readonly sharedPlan: (labUri: vscode.Uri) => Promise<LabPlan | null | undefined>,
  ) {}

  /**
   * The lab's live state changed (a push, a pull, an action of ours): its shown plans show the
   * lab's fresh shared plan, the one the lens and the topology show; a plan with prune, or one
   * that cannot be had, says it no longer matches.
   */
  async labStateChanged(labUri: vscode.Uri): Promise<void> {
    const reason = 'the live lab changed since this plan was made';
    const shown = [...this.plans].filter(([, s]) => s.labUri.toString() === labUri.toString() && !s.prune);
    this.markStale(labUri, reason, (s) => s.prune);
    if (shown.length === 0) return;
    let outcome: LabPlan | null | undefined;
    try {
      outcome = await this.sharedPlan(labUri);
    } catch {
      outcome = undefined;
    }
    if (!outcome?.ok) return this.markStale(labUri, reason);
    const name = (await loadLab(labUri, this.services.labParses)).name;
    for (const [key] of shown) {
      const text = renderPlan(outcome.plan, name, false);
      this.plans.set(key, { labUri, plan: outcome.plan, prune: false, text });
      this.documents.update(vscode.Uri.parse(key, true), text);
    }
    this.lensesChanged.fire();
  }

  /** "Plan Again" at the top of a plan that no longer matches. */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const shown = this.plans.get(document.uri.toString());
    if (shown?.stale === undefined) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, {
        title: 'Plan Again',
        command: shown.prune ? LabCommand.planPrune : LabCommand.plan,
        arguments: [{ uri: shown.labUri.toString() }],
      }),
    ];
  }

  /** Marks the lab's shown plans (those `which` picks) as no longer matching. */
  private markStale(labUri: vscode.Uri, reason: string, which: (shown: ShownPlan) => boolean = () => true): void {
    let changed = false;
    for (const [key, shown] of this.plans) {
      if (shown.stale !== undefined || shown.labUri.toString() !== labUri.toString() || !which(shown)) continue;
      shown.stale = reason;
      this.documents.update(vscode.Uri.parse(key, true), staleText(shown.text, reason));
      changed = true;
    }
    if (changed) this.lensesChanged.fire();
  }

  register(): vscode.Disposable[] {
    return [
      vscode.languages.registerCodeLensProvider({ scheme: PLAN_SCHEME }, this),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.plans.size > 0)
          this.markStale(e.document.uri, 'the lab document changed since this plan was made');
      }),
      registerGuarded(this.services, LabCommand.plan, 'Plan', (arg) => this.plan(arg, false)),
      registerGuarded(this.services, LabCommand.planPrune, 'Plan with prune', (arg) => this.plan(arg, true)),
      registerGuarded(this.services, LabCommand.applyPlan, 'Apply plan', (arg) => this.apply(arg)),
    ];
  }

  /** Plans towards the emulator; `prune` (overridable by the argument) also plans deleting what the document lacks. */
  async plan(arg: unknown, pruneByDefault: boolean): Promise<PlanData> {
    const { lab } = await resolveLab(arg, this.services.labParses);
    const session = this.services.labAgents.sessionOf(lab.uri);
    const client = allowedClient(session, 'plan', lab);
    const prune = booleanArg(fieldOf(arg, 'prune')) ?? pruneByDefault;
    const payload = { ...(await labPayload(lab)), ...(prune ? { prune: true } : {}) };
    const plan = await withCancellableProgress(`Planning ${lab.name}…`, (signal) =>
      client.planProject(payload, { signal }),
    );
    const uri = this.documents.uriFor(lab.uri, 'plan');
    const several = this.services.agents.names().length > 1;
    const text = renderPlan(
      plan,
      lab.name,
      prune,
      several ? { name: session.name, url: session.current.baseUrl } : undefined,
    );
    this.plans.set(uri.toString(), { labUri: lab.uri, plan, prune, text });
    this.lensesChanged.fire();
    await this.documents.show(uri, text);
    this.services.log.info(`Plan for ${lab.name}: ${planSummaryLine(plan.summary)}`);

    const blocker = planApplyBlocker(plan);
    const canApply =
      blocker === undefined &&
      isLabActionAllowed(this.services.labAgents.sessionOf(lab.uri).capabilities, 'reconcileToEmu', lab.mode);
    if (fieldOf(arg, 'quiet') !== true) {
      const apply = 'Apply This Plan';
      const text = `Plan for ${lab.name}: ${planSummaryLine(plan.summary)}.${blocker !== undefined ? ` ${blocker}` : ''}`;
      void vscode.window.showInformationMessage(text, ...(canApply ? [apply] : [])).then((choice) => {
        if (choice === apply) void vscode.commands.executeCommand(LabCommand.applyPlan, uri);
      });
    }
    return plan;
  }

  /** Finds the plan to apply: a plan document URI (editor title), a lab target, or the active editor. */
  private shownPlanFor(arg: unknown): { key: string; shown: ShownPlan } | undefined {
    const candidates: string[] = [];
    if (arg instanceof vscode.Uri) candidates.push(arg.toString());
    const target = targetOfArg(arg);
    if (target !== undefined) {
      candidates.push(target.uri);
      try {
        candidates.push(this.documents.uriFor(vscode.Uri.parse(target.uri, true), 'plan').toString());
      } catch {
        // Not a URI: nothing to look up.
      }
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active !== undefined && active.scheme === PLAN_SCHEME) candidates.push(active.toString());
    for (const key of candidates) {
      const shown = this.plans.get(key);
      if (shown !== undefined) return { key, shown };
    }
    return undefined;
  }

  async apply(arg: unknown): Promise<ReconcileData | undefined> {
    const found = this.shownPlanFor(arg);
    if (found === undefined) throw new Error('There is no plan to apply here. Run "Lab Agent: Plan" on the lab first.');
    const { plan, labUri, prune, stale } = found.shown;
    if (stale !== undefined) throw new Error(`This plan no longer matches: ${stale}. Plan again, review, then apply.`);
    const blocker = planApplyBlocker(plan);
    if (blocker !== undefined) throw new Error(`This plan cannot be applied. ${blocker}`);
    const lab = await loadLab(labUri, this.services.labParses);
    allowedClient(this.services.labAgents.sessionOf(lab.uri), 'reconcileToEmu', lab);

    const deletes = planDeletes(plan);
    if (deletes > 0 && fieldOf(arg, 'confirmed') !== true) {
      const apply = 'Apply';
      const choice = await vscode.window.showWarningMessage(
        `Apply the plan for ${lab.name}? It deletes ${deletes} object${deletes === 1 ? '' : 's'} from the live lab.`,
        { modal: true, detail: 'The plan document lists every change; deleted nodes lose their disks.' },
        apply,
      );
      if (choice !== apply) throw new PromptCancelled();
    }
    try {
      const result = await pushLab(this.services, lab, { prune, planIdentity: plan.plan_identity });
      // The plan is spent: planning again shows what is left.
      this.plans.delete(found.key);
      return result;
    } catch (err) {
      if (!(err instanceof AgentError) || err.code !== 'plan_stale') throw err;
      const again = 'Plan Again';
      const choice = await vscode.window.showWarningMessage(
        `The plan for ${lab.name} is out of date: the document or the live lab changed since it was made. Plan again and review it?`,
        again,
      );
      if (choice === again)
        await vscode.commands.executeCommand(prune ? LabCommand.planPrune : LabCommand.plan, {
          uri: lab.uri.toString(),
        });
      return undefined;
    }
  }

  dispose(): void {
    this.documents.dispose();
    this.lensesChanged.dispose();
    this.plans.clear();
  }
}

/** The plan's text under a banner that says it no longer matches. */
function staleText(text: string, reason: string): string {
  return `⚠ OUT OF DATE: ${reason}. Click "Plan Again" above to see the plan as it is now.\n\n${text}`;
}
