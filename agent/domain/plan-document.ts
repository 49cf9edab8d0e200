/**
 * A plan from a request's document and the live lab: the same on the agent's
 * event loop and on a worker thread (validate-workers.ts), which asks the
 * main thread for the lab through `observe`.
 */
import type { Direction } from '../../common/api/contract';
import type { LabDocument } from '../../common/lab/model/types';
import type { EmuLab } from '../emulator/backend';
import type { Catalogue } from './catalogue';
import { DomainError } from './domain-error';
import { diffFromEmulator, diffToEmulator, type Diff } from './diff';
import { withoutHalfMadeLinks } from './half-made-links';
import { configsForDirection } from './node-configs';
import { observedTopology } from './observed';
import { buildPlan, type ProjectPlan } from './plan';
import { checkedDocument, type CheckedDocument, type ProjectInput } from './project-input';

/** The live lab and whether an interrupted apply left it locked (the apply journal lives on the main thread). */
export interface LabView {
  live: EmuLab | undefined;
  midApply: boolean;
}

export interface PlannedDocument {
  checked: CheckedDocument;
  live: EmuLab | undefined;
  diff: Diff;
  plan: ProjectPlan;
}

export async function planDocument(request: {
  input: ProjectInput;
  direction: Direction;
  catalogue: Catalogue;
  parse: (yaml: string) => LabDocument;
  observe: (path: string) => Promise<LabView>;
}): Promise<PlannedDocument> {
  const { input, direction, catalogue } = request;
  const checked = checkedDocument(request.parse, input, catalogue);
  const { live, midApply } = await request.observe(checked.lab);
  const observed = live && configsForDirection(direction, checked.desired, observedTopology(live));
  let diff: Diff = { changes: [], unchanged: 0, kept: [] };
  if (direction === 'from_emu') {
    if (observed) diff = diffFromEmulator(checked.desired, observed);
  } else if (observed && midApply) {
    // Rolling an interrupted apply forward: its half-made links go, the rest is an ordinary push.
    const rolled = withoutHalfMadeLinks(observed);
    diff = diffToEmulator(checked.desired, rolled.observed, input.prune);
    diff.changes.unshift(...rolled.deletes);
  } else diff = diffToEmulator(checked.desired, observed, input.prune);
  const plan = buildPlan({
    lab: checked.lab,
    direction,
    prune: input.prune,
    desired: checked.desired,
    observed,
    diff,
    catalogue,
    lock: { emulatorLock: live?.locked ?? false, midApply },
    unsupported: checked.unsupported,
  });
  return { checked, live, diff, plan };
}

export function checkIdentity(plan: ProjectPlan, identity: string | undefined): void {
  if (identity !== undefined && identity !== plan.plan_identity) {
    throw new DomainError(
      'stale_plan',
      'The plan is out of date: the document, the live lab or the direction changed since it was made. Plan again and review it.',
    );
  }
}
