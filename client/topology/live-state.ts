/**
 * What the topology view knows about the live lab: its status (node states)
 * and the to_emu plan (drift), fetched as the Labs view and the plan lens
 * fetch them. A call that fails is described, never thrown.
 */
import { isLabActionAllowed } from '../model/capabilities';
import { describeError } from '../model/errors';
import { loadLab, observationPayload, labPayload } from '../labs/lab-context';
import type { Services } from '../services';
import type { LiveInfo } from './graph-model';
import type * as vscode from 'vscode';

/** A plan from the topology view may wait this long (the lens waits as long). */
const PLAN_TIMEOUT_MS = 30_000;

export async function fetchLiveInfo(
  services: Services,
  uri: vscode.Uri,
  what: { status: boolean; plan: boolean },
  previous: LiveInfo | undefined,
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
        info.plan = await session.agent().planProject(await labPayload(lab), { timeoutMs: PLAN_TIMEOUT_MS });
      } catch (err) {
        info.planError = failed(err);
      }
    }
  }
  return info;
}
