/**
 * What a request needs of a lab before it works on it: that the emulator has it,
 * and that it may be changed (not locked by the emulator or by an interrupted apply).
 */
import type { EmulatorClient, EmuLab, LabRead } from '../emulator/backend';
import type { ApplyJournal } from './apply-journal';
import { DomainError } from './domain-error';

/**
 * Refuses changes to a lab the emulator locked, or that an interrupted apply left half-applied
 * (unless this call finishes or clears it: a push, a deploy, a destroy).
 */
export function ensureWritable(
  journal: ApplyJournal,
  path: string,
  live: EmuLab | undefined,
  finishesInterruptedApply = false,
): void {
  if (live?.locked)
    throw new DomainError(
      'lab_locked',
      `Lab ${path} is locked in the emulator; its owner must unlock it before it can be changed.`,
    );
  const operation = journal.interruptedOperation(path);
  if (!finishesInterruptedApply && operation) {
    throw new DomainError(
      'half_applied',
      `The ${operation} of lab ${path} was interrupted, so the lab may be half-applied. Push the document (reconcile to_emu, or Apply This Plan) to finish it from what the emulator has; or destroy the lab.`,
    );
  }
}

export async function requireLab(client: EmulatorClient, path: string, read?: LabRead): Promise<EmuLab> {
  const live = await client.getLab(path, read);
  if (!live) throw new DomainError('no_such_lab', `Lab ${path} does not exist on the emulator. Deploy it first.`);
  return live;
}
