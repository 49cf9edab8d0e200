/**
 * What the topology view knows about the live lab: its status (node states),
 * fetched as the Labs view fetches it, and the to_emu plan (drift): the
 * lab's shared plan, which the language server makes once per document
 * version and lab state for the plan lens and every view (PlanRequest).
 * A call that fails is described, never thrown.
 */
import { isLabActionAllowed } from '../model/capabilities';
import { describeError } from '../model/errors';
import { loadLab, observationPayload } from '../labs/lab-context';
import type { LabPlan } from '../../common/protocol';
import type { Services } from '../services';
import type { LiveInfo } from './graph-model';
import type * as vscode from 'vscode';

/** `sharedPlan` asks the language server for the lab's plan (undefined: the server does not run; null: it has not the document). */
export async function fetchLiveInfo(
  services: Services,
  uri: vscode.Uri,
  what: { status: boolean; plan: boolean },
  previous: LiveInfo | undefined,
  sharedPlan: () => Promise<LabPlan | null | undefined>,
): Promise<LiveInfo> {
  const lab = await loadLab(uri, services.labParses);
  const session = services.labAgents.sessionIfAny(uri);
  if (session === undefined) return { connected: false, caps: undefined, mode: lab.mode };
  const caps = session.capabilities;
  const connected = session.current.state === 'connected';
  const info: LiveInfo = { connected, caps, mode: lab.mode };
  if (!connected) return info;
  const failed = (err: unknown): string => {
    const described = describeError(err);
    if (described.kind === 'session') void session.sessionLost(err);
    return described.message;
  };
  if (!what.status && previous?.status) info.status = previous.status;
  else if (isLabActionAllowed(caps, 'status', lab.mode)) {
    try {
      info.status = await session.agent().getProjectStatus(observationPayload(lab));
    } catch (err) {
      info.statusError = failed(err);
    }
  }
  if (!what.plan && (previous?.plan || previous?.planError)) {
    if (previous.plan) info.plan = previous.plan;
    if (previous.planError !== undefined) info.planError = previous.planError;
  } else if (isLabActionAllowed(caps, 'plan', lab.mode)) {
    if (lab.doc.syntaxErrors.length > 0) info.planError = 'fix the YAML syntax errors first.';
    else {
      try {
        const outcome = await sharedPlan();
        if (!outcome) info.planError = 'the language server is not running; see the Lab Agent log.';
        else if (outcome.ok) info.plan = outcome.plan;
        else info.planError = outcome.message;
      } catch (err) {
        info.planError = failed(err);
      }
    }
  }
  return info;
}
