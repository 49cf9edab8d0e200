/**
 * Pushing a lab to the emulator (reconcile to_emu), shared by the Reconcile
 * command and "Apply This Plan": under cancellable progress, then the returned
 * state is stored and the views refreshed.
 */
import * as vscode from 'vscode';
import type { ReconcileData } from '../../common/api/contract';
import { planSummaryLine } from '../model/plan-text';
import type { Services } from '../services';
import { allowedClient } from './gate';
import { labPayload, storeLabState, type LabContext } from './lab-context';
import { withCancellableProgress } from './progress';

export async function pushLab(
  services: Services,
  lab: LabContext,
  options: { prune: boolean; planIdentity?: string },
): Promise<ReconcileData> {
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), 'reconcileToEmu', lab);
  const payload = await labPayload(lab);
  const request = {
    ...payload,
    direction: 'to_emu',
    prune: options.prune,
    ...(options.planIdentity ? { plan_identity: options.planIdentity } : {}),
  };
  const data = await withCancellableProgress(`Pushing ${lab.name} to the emulator…`, (signal) =>
    client.reconcileProject(request, { signal }),
  );
  await storeLabState(lab.labPath, { lab: data.lab, state: data.state });
  services.labStateChanged(lab.uri, 'push');
  const what = data.changed === false ? 'nothing to change' : planSummaryLine(data.summary);
  services.log.info(`Pushed ${lab.name}: ${what}`);
  void vscode.window.showInformationMessage(`Pushed ${lab.name} to the emulator: ${what}.`);
  return data;
}
