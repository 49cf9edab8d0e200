/**
 * Plan: the agent's dry run, shown in a read-only document (scheme
 * lab-agent-plan) that offers "Apply This Plan". Applying reconciles towards
 * the emulator with the plan's identity, so the agent refuses (plan_stale) if
 * the lab or the document changed since the plan was made; then we offer to plan again.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../common/api/client';
import type { PlanData, ReconcileData } from '../../common/api/contract';
import { LensCommand } from '../../common/protocol';
import { ReadOnlyDocuments } from '../documents/readOnlyDocuments';
import { isLabActionAllowed } from '../model/capabilities';
import { booleanArg, fieldOf, targetOfArg } from '../model/commandArgs';
import { planApplyBlocker, planDeletes, planSummaryLine, renderPlan } from '../model/planText';
import { allowedClient } from '../project/gate';
import { loadLab, projectPayload, PromptCancelled, resolveLab } from '../project/labContext';
import { withCancellableProgress } from '../project/progress';
import { pushLab } from '../project/push';
import type { Services } from '../services';
import { registerGuarded } from './guard';

export const PLAN_SCHEME = 'lab-agent-plan';
export const ApplyPlanCommand = 'labAgent.applyPlan';
export const PlanPruneCommand = 'labAgent.planPrune';

interface ShownPlan {
  labUri: vscode.Uri;
  plan: PlanData;
  /** The plan's identity covers prune, so applying must use the same. */
  prune: boolean;
}

export class PlanDocuments implements vscode.Disposable {
  private readonly documents = new ReadOnlyDocuments(PLAN_SCHEME);
  /** The plan each plan document shows, by plan document URI. */
  private readonly plans = new Map<string, ShownPlan>();

  constructor(private readonly services: Services) {}

  register(): vscode.Disposable[] {
    return [
      registerGuarded(this.services, LensCommand.plan, 'Plan', (arg) => this.plan(arg, false)),
      registerGuarded(this.services, PlanPruneCommand, 'Plan with prune', (arg) => this.plan(arg, true)),
      registerGuarded(this.services, ApplyPlanCommand, 'Apply plan', (arg) => this.apply(arg)),
    ];
  }

  /** Plans towards the emulator; `prune` (overridable by the argument) also plans deleting what the document lacks. */
  async plan(arg: unknown, pruneByDefault: boolean): Promise<PlanData> {
    const { lab } = await resolveLab(arg);
    const client = allowedClient(this.services.session, 'plan', lab);
    const prune = booleanArg(fieldOf(arg, 'prune')) ?? pruneByDefault;
    const payload = { ...(await projectPayload(lab)), ...(prune ? { prune: true } : {}) };
    const plan = await withCancellableProgress(`Planning ${lab.name}…`, (signal) =>
      client.planProject(payload, { signal }),
    );
    const uri = this.documents.uriFor(lab.uri, 'plan');
    this.plans.set(uri.toString(), { labUri: lab.uri, plan, prune });
    await this.documents.show(uri, renderPlan(plan, lab.name, prune));
    this.services.log.info(`Plan for ${lab.name}: ${planSummaryLine(plan.summary)}`);

    const blocker = planApplyBlocker(plan);
    const canApply =
      blocker === undefined && isLabActionAllowed(this.services.session.capabilities, 'reconcileToEmu', lab.mode);
    if (fieldOf(arg, 'quiet') !== true) {
      const apply = 'Apply This Plan';
      const text = `Plan for ${lab.name}: ${planSummaryLine(plan.summary)}.${blocker !== undefined ? ` ${blocker}` : ''}`;
      void vscode.window.showInformationMessage(text, ...(canApply ? [apply] : [])).then((choice) => {
        if (choice === apply) void vscode.commands.executeCommand(ApplyPlanCommand, uri);
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
    const { plan, labUri, prune } = found.shown;
    const blocker = planApplyBlocker(plan);
    if (blocker !== undefined) throw new Error(`This plan cannot be applied. ${blocker}`);
    const lab = await loadLab(labUri);
    allowedClient(this.services.session, 'reconcileToEmu', lab);

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
        await vscode.commands.executeCommand(prune ? PlanPruneCommand : LensCommand.plan, { uri: lab.uri.toString() });
      return undefined;
    }
  }

  dispose(): void {
    this.documents.dispose();
    this.plans.clear();
  }
}
