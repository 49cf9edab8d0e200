/**
 * The text of a plan document, and the decision whether a plan can be applied.
 * Plans are what an engineer reviews before changing a live lab, so the text is
 * plain, stable and diff-like: `+` create, `~` update, `-` delete, `!` blocked.
 */
import type { PlanAction, PlanData, PlanSummary } from '../../common/api/contract';

const SIGN: Readonly<Record<string, string>> = { create: '+', update: '~', delete: '-' };

export function planSummaryLine(summary: PlanSummary | undefined): string {
  const s = summary ?? {};
  return `${s.create ?? 0} to create, ${s.update ?? 0} to update, ${s.delete ?? 0} to delete, ${s.unchanged ?? 0} unchanged`;
}

/** How many changes the plan makes (actions, or the summary when the agent sent no list). */
export function planChangeCount(plan: PlanData): number {
  if (plan.actions !== undefined) return plan.actions.length;
  const s = plan.summary ?? {};
  return (s.create ?? 0) + (s.update ?? 0) + (s.delete ?? 0);
}

/** Why "Apply This Plan" is not offered, or undefined when it is. */
export function planApplyBlocker(plan: PlanData): string | undefined {
  if ((plan.direction ?? 'to_emu') !== 'to_emu') return 'Only plans towards the emulator can be applied.';
  if (plan.locked === true) return 'The lab is locked in the emulator.';
  if ((plan.blocked?.length ?? 0) > 0) return 'Some actions are blocked; fix them first.';
  if (plan.applicable === false) return 'The agent says this plan cannot be applied.';
  if (typeof plan.plan_identity !== 'string' || plan.plan_identity === '')
    return 'The agent sent no plan identity to apply.';
  if (planChangeCount(plan) === 0) return 'Nothing to change: the emulator already matches the document.';
  return undefined;
}

/** Whether applying needs `prune` to carry out the plan's deletions. */
export function planDeletes(plan: PlanData): number {
  if (plan.actions !== undefined) return plan.actions.filter((a) => a.op === 'delete').length;
  return plan.summary?.delete ?? 0;
}

function actionLine(action: PlanAction, sign: string): string {
  const fields = action.fields && action.fields.length > 0 ? `  (${action.fields.join(', ')})` : '';
  return `  ${sign} ${(action.kind ?? 'object').padEnd(8)}${action.name ?? '(unnamed)'}${fields}`;
}

/**
 * The plan document. The agent's own `text` is shown when it sends one (it
 * has the details: old → new values, links kept without prune); otherwise the
 * changes are listed from the actions.
 */
/** `agent`: which agent was asked, named when there are several. */
export function renderPlan(
  plan: PlanData,
  labName: string,
  prune: boolean,
  agent?: { name: string; url?: string },
): string {
  const lines: string[] = [];
  const direction = plan.direction || 'to_emu';
  lines.push(`Plan for ${labName} (${direction === 'from_emu' ? 'emulator → document' : 'document → emulator'})`);
  if (agent !== undefined) lines.push(`Agent:   ${agent.name}${agent.url !== undefined ? ` (${agent.url})` : ''}`);
  lines.push(`Lab:     ${plan.lab ?? '(unknown)'}${plan.exists === false ? '  (not deployed yet)' : ''}`);
  if (direction === 'to_emu') {
    lines.push(
      `Prune:   ${prune ? 'yes: objects the document does not have are deleted' : 'no: objects only the emulator has are kept'}`,
    );
  }
  if (plan.locked === true) lines.push(`Locked:  yes${plan.lock !== undefined ? ` (lock ${plan.lock})` : ''}`);
  lines.push(`Summary: ${planSummaryLine(plan.summary)}`);
  lines.push('');

  if (typeof plan.text === 'string' && plan.text.trim() !== '') {
    lines.push(plan.text.trimEnd());
  } else {
    // The order the agent applies things in is the more useful one to read.
    const actions = plan.operations ?? plan.actions ?? [];
    lines.push(actions.length === 0 ? 'No changes.' : 'Changes:');
    for (const action of actions) lines.push(actionLine(action, SIGN[action.op ?? ''] ?? '?'));
    if (plan.blocked && plan.blocked.length > 0) {
      lines.push('', 'Blocked (cannot be applied):');
      for (const action of plan.blocked) {
        lines.push(`${actionLine(action, '!')}${action.reason ? `: ${action.reason}` : ''}`);
      }
    }
  }
  if (plan.unsupported && plan.unsupported.length > 0) {
    lines.push('', 'Not supported by the emulator (ignored):');
    for (const item of plan.unsupported) lines.push(`  - ${item}`);
  }

  lines.push('');
  const blocker = planApplyBlocker(plan);
  lines.push(
    blocker === undefined
      ? 'Apply: run "Lab Agent: Apply This Plan" (editor title ▷).'
      : `Apply: not possible. ${blocker}`,
  );
  if (plan.plan_identity) lines.push(`Plan identity: ${plan.plan_identity}`);
  return `${lines.join('\n')}\n`;
}
