/**
 * Projects: validate, import, plan, deploy, reconcile, destroy, status,
 * inspect, open and consoles. Long operations (import, deploy, reconcile,
 * destroy) hold their lab exclusively; applies run under the apply journal.
 */
import {
  type ConsolesData,
  type DeployData,
  type DestroyData,
  type ImportData,
  type InspectionData,
  type OpenData,
  type ProjectStatusData,
  type ReconcileData,
  type ValidateData,
} from '../../common/api/contract';
import { createHash } from 'node:crypto';
import type { AgentContext } from '../context';
import { EmuNodeStatus, type EmulatorClient, type EmuLab } from '../emulator/backend';
import { ApiError, invalidRequest } from '../http/api-error';
import { optionalString, requiredString } from '../http/fields';
import { applyChanges } from '../domain/apply';
import { runBounded } from '../bounded';
import { loadCatalogue } from '../domain/catalogue';
import { desiredTopology } from '../domain/desired';
import { diffFromEmulator, diffToEmulator } from '../domain/diff';
import { editDocument, newDocumentText } from '../domain/document-edit';
import { IMPORTED_ROOT, MANAGED_ROOT } from '../domain/lab-path';
import { labPathProblem } from '../../common/api/lab-path';
import { inspection, labState, nodeState, nodeStatus, projectState } from '../domain/observation';
import { configsForDirection } from '../domain/node-configs';
import { observedTopology } from '../domain/observed';
import { ensureWritable, requireLab } from '../domain/lab-guards';
import { buildPlan, type ProjectPlan } from '../domain/plan';
import { checkIdentity, planDocument, type PlannedDocument } from '../domain/plan-document';
import { checkedDocument, labOf, requireYaml } from '../domain/project-input';
import { readDirection, readProjectInput } from '../http/project-payload';
import { validateBody } from '../http/validate-body';
import { parseLab } from '../../common/lab/parse/parse';
import type { LoginSession } from '../sessions';
import type { SessionHandler } from './handler';

// ---------------------------------------------------------------- shared checks

function lockOf(ctx: AgentContext, path: string, live: EmuLab | undefined) {
  return { emulatorLock: live?.locked ?? false, midApply: ctx.activity.journal.isInterrupted(path) };
}

/** A pull would write a half-applied lab into the document: the apply must be finished first. */
function refuseMidApplyPull(ctx: AgentContext, path: string): void {
  const operation = ctx.activity.journal.interruptedOperation(path);
  if (operation)
    throw new ApiError(
      'lab_locked_mid_apply',
      `The ${operation} of lab ${path} was interrupted, so the lab is half-applied and pulling it now would drop from your document what was not applied yet. Push the document first (reconcile to_emu, or Apply This Plan): it finishes the apply from what the emulator has. Then pull.`,
    );
}

function refuseBlocked(plan: ProjectPlan): void {
  if (plan.blocked.length) {
    const first = plan.blocked[0];
    throw new ApiError(
      'operation_not_allowed',
      `The emulator cannot apply ${plan.blocked.length} change(s), e.g. ${first.kind} ${first.name}: ${first.reason}.`,
      { blocked: plan.blocked },
    );
  }
}

function makePlan(
  ctx: AgentContext,
  session: LoginSession,
  body: Record<string, unknown>,
  direction = readDirection(body),
): Promise<PlannedDocument> {
  return loadCatalogue(session.emulator).then((catalogue) =>
    planDocument({
      input: readProjectInput(body),
      direction,
      catalogue,
      parse: (yaml) => session.documents.parse(yaml),
      observe: async (path) => ({
        live: await observeLab(ctx, session, path),
        midApply: ctx.activity.journal.isInterrupted(path),
      }),
    }),
  );
}

/** The live lab, one getLab shared by the calls that ask for it at once (shared-reads.ts). */
function observeLab(ctx: AgentContext, session: LoginSession, path: string): Promise<EmuLab | undefined> {
  return session.reads.share(`lab ${ctx.activity.generation(path)} ${path}`, () => session.emulator.getLab(path));
}

/** What a plan depends on besides the live lab: identical requests share one plan. */
function planKey(ctx: AgentContext, session: LoginSession, body: Record<string, unknown>): string {
  const input = readProjectInput(body);
  const files = Object.entries(input.files).sort(([a], [b]) => (a < b ? -1 : 1));
  const digest = createHash('sha256')
    .update(JSON.stringify([input.lab, input.state, input.yaml, files, readDirection(body), input.prune]))
    .digest('hex');
  // The lab's generation comes with the path, which needs the document: labOf reads it (cached).
  const path = labOf(session.documents, input);
  return `plan ${ctx.activity.generation(path)} ${path} ${digest}`;
}

// ---------------------------------------------------------------- handlers

export const validateProject: SessionHandler = async ({ session, body }): Promise<ValidateData> =>
  validateBody(body, await loadCatalogue(session.emulator), (yaml) => session.documents.parse(yaml));

export const planProject: SessionHandler = async ({ ctx, session, body }): Promise<ProjectPlan> => {
  ctx.owners.check(labOf(session.documents, readProjectInput(body)), session.username);
  const { plan } = await session.reads.share(planKey(ctx, session, body), () => makePlan(ctx, session, body));
  checkIdentity(plan, readProjectInput(body).planIdentity);
  return plan;
};

export const deployProject: SessionHandler = async ({ ctx, session, body }): Promise<DeployData> => {
  const input = readProjectInput(body);
  const catalogue = await loadCatalogue(session.emulator);
  const checked = checkedDocument((yaml) => session.documents.parse(yaml), input, catalogue);
  const client = session.emulator;
  const path = checked.lab;
  return ctx.activity.exclusive(path, 'deploy', async () => {
    const live = await client.getLab(path);
    if (live) ctx.owners.check(path, session.username);
    // A deploy never waits on an interrupted apply: it makes the lab afresh, or refuses an existing one.
    ensureWritable(ctx.activity.journal, path, live, true);
    if (live && !input.replace) {
      const interrupted = ctx.activity.journal.interruptedOperation(path);
      throw new ApiError(
        'lab_exists',
        interrupted
          ? `Lab ${path} already exists, as an interrupted ${interrupted} left it. Push the document (reconcile to_emu) to finish it from what the emulator has, or deploy with replace to rebuild it from scratch (its nodes are stopped and wiped).`
          : `Lab ${path} already exists. Reconcile it, or deploy with replace to rebuild it from scratch (its nodes are stopped and wiped).`,
      );
    }
    const observed = live && configsForDirection('to_emu', checked.desired, observedTopology(live));
    const lock = lockOf(ctx, path, live);
    const planNow = buildPlan({
      lab: path,
      direction: 'to_emu',
      prune: input.prune,
      desired: checked.desired,
      observed,
      diff: diffToEmulator(checked.desired, observed, input.prune),
      catalogue,
      lock,
      unsupported: checked.unsupported,
    });
    checkIdentity(planNow, input.planIdentity);
    const fresh = diffToEmulator(checked.desired, undefined, false);
    refuseBlocked(
      buildPlan({
        lab: path,
        direction: 'to_emu',
        prune: false,
        desired: checked.desired,
        observed: undefined,
        diff: fresh,
        catalogue,
        lock: { emulatorLock: false, midApply: false },
        unsupported: [],
      }),
    );

    ctx.owners.claim(path, session.username, live !== undefined);
    await ctx.activity.journaled(
      path,
      input.replace ? 'deploy (replace)' : 'deploy',
      client,
      async (signal, progress) => {
        if (live) await removeLab(client, live, true, signal);
        await applyChanges({
          client,
          lab: path,
          changes: fresh.changes,
          desired: checked.desired,
          observed: undefined,
          signal,
          progress,
        });
      },
    );
    const deployed = await requireLab(client, path);
    return {
      lab: path,
      nodes: deployed.nodes.length,
      links: observedTopology(deployed).links.size,
      state: projectState(deployed),
      unsupported: checked.unsupported,
    };
  });
};

/**
 * Stops every node (and wipes it unless told not to), side by side as the emulator allows, then
 * deletes the lab; an emulator whose deleteLab removes the nodes itself is asked that only.
 */
async function removeLab(client: EmulatorClient, live: EmuLab, wipe: boolean, signal: AbortSignal): Promise<void> {
  if (client.deleteLabRemovesNodes) return client.deleteLab(live.path);
  await runBounded(
    live.nodes.map((node) => async () => {
      if (node.status !== EmuNodeStatus.stopped) await client.stopNode(live.path, node.id, 1);
      signal.throwIfAborted();
      if (wipe) await client.wipeNode(live.path, node.id);
    }),
    client.maxConcurrentWrites ?? 1,
    signal,
  );
  signal.throwIfAborted();
  await client.deleteLab(live.path);
}

export const reconcileProject: SessionHandler = async ({ ctx, session, body }): Promise<ReconcileData> => {
  const direction = readDirection(body);
  const input = readProjectInput(body);
  const client = session.emulator;
  const catalogue = await loadCatalogue(client);
  const checked = checkedDocument((yaml) => session.documents.parse(yaml), input, catalogue);
  const path = checked.lab;
  return ctx.activity.exclusive(path, 'reconcile', async () => {
    const { plan, diff, live } = await makePlan(ctx, session, body, direction);
    if (live) ctx.owners.check(path, session.username);
    /** What both directions answer: the plan that was carried out and the lab's state after it. */
    const reply = (lab: EmuLab) => ({
      lab: path,
      direction,
      summary: plan.summary,
      actions: plan.actions,
      changed: diff.changes.length > 0,
      state: projectState(lab),
    });
    if (direction === 'from_emu') {
      if (!live)
        throw new ApiError(
          'lab_not_found',
          `Lab ${path} does not exist on the emulator, so there is nothing to read back.`,
        );
      refuseMidApplyPull(ctx, path);
      checkIdentity(plan, input.planIdentity);
      // Nothing to change: the client's text comes back byte for byte.
      const edited = diff.changes.length
        ? editDocument({
            yaml: requireYaml(input),
            files: input.files,
            model: checked.doc,
            changes: diff.changes,
            catalogue,
          })
        : { yaml: requireYaml(input), files: input.files };
      return { ...reply(live), yaml: edited.yaml, files: edited.files };
    }
    // A push is how an interrupted apply rolls forward: the diff comes from what the emulator has now.
    ensureWritable(ctx.activity.journal, path, live, true);
    checkIdentity(plan, input.planIdentity);
    refuseBlocked(plan);
    ctx.owners.claim(path, session.username, live !== undefined);
    if (diff.changes.length || ctx.activity.journal.isInterrupted(path)) {
      await ctx.activity.journaled(path, 'reconcile', client, (signal, progress) =>
        applyChanges({
          client,
          lab: path,
          changes: diff.changes,
          desired: checked.desired,
          observed: live && observedTopology(live),
          signal,
          progress,
        }),
      );
    }
    return reply(await requireLab(client, path));
  });
};

export const destroyProject: SessionHandler = async ({ ctx, session, body }): Promise<DestroyData> => {
  const input = readProjectInput(body);
  const path = labOf(session.documents, input);
  const client = session.emulator;
  ctx.owners.check(path, session.username);
  return ctx.activity.exclusive(path, 'destroy', async () => {
    // Its nodes and their states, not their running configs: they go with the lab.
    const live = await client.getLab(path, { runningConfigs: false });
    if (!live) {
      // Deleted outside the agent: the path no longer counts among the user's labs (their quota).
      ctx.owners.release(path);
      // Nothing left to remove, but an interrupted apply's lock is cleared all the same.
      if (!ctx.activity.journal.isInterrupted(path))
        throw new ApiError('lab_not_found', `Lab ${path} does not exist on the emulator.`);
      ctx.activity.journal.finish(path);
      return { lab: path, status: 'destroyed', wiped: false, nodes: 0 };
    }
    ensureWritable(ctx.activity.journal, path, live, true);
    await ctx.activity.journaled(path, 'destroy', client, (signal) => removeLab(client, live, input.wipe, signal));
    ctx.owners.release(path);
    return { lab: path, status: 'destroyed', wiped: input.wipe, nodes: live.nodes.length };
  });
};

export const importProject: SessionHandler = async ({ ctx, session, body }): Promise<ImportData> => {
  readProjectInput(body); // type checks of the other fields (dir, out, …)
  const source = requiredString(body, 'lab', 'the emulator path of the lab to import, e.g. /examples/campus.unl.');
  const problem = labPathProblem(source);
  if (problem) throw invalidRequest(`"lab" must be an emulator lab path such as /examples/campus.unl: ${problem}`);
  if (source.startsWith(MANAGED_ROOT)) {
    throw new ApiError(
      'operation_not_allowed',
      `${source} is already a lab this agent manages; open its document instead of importing it.`,
    );
  }
  // Importing only reads the source: an unowned lab stays unowned, another user's is not there.
  ctx.owners.check(source, session.username);
  const client = session.emulator;
  const name = source.replace(/^.*\//, '').replace(/\.unl$/, '');
  const managed = `${IMPORTED_ROOT}${name}.unl`;
  return ctx.activity.exclusive(managed, 'import', async () => {
    const original = await client.getLab(source);
    if (!original) throw new ApiError('lab_not_found', `Lab ${source} does not exist on the emulator.`);
    if (original.locked)
      throw new ApiError(
        'lab_locked',
        `Lab ${source} is locked in the emulator; ask its owner to unlock it before importing.`,
      );
    if (await client.getLab(managed)) {
      throw new ApiError(
        'lab_exists',
        ctx.owners.isOthers(managed, session.username)
          ? `Another user already imported a lab named ${name} (as ${managed}); copies of labs of the same name cannot be imported side by side yet.`
          : `${source} was already imported as ${managed}. Destroy that copy first to import it again.`,
      );
    }
    ctx.owners.claim(managed, session.username, false);
    await ctx.activity.journaled(managed, 'import', client, () => client.cloneLab(source, managed));
    const copy = await requireLab(client, managed);
    const catalogue = await loadCatalogue(client);
    const base = newDocumentText(name, copy.description);
    const empty = desiredTopology(parseLab(base), {}, catalogue, name);
    const edited = editDocument({
      yaml: base,
      files: {},
      model: parseLab(base),
      changes: diffFromEmulator(empty, observedTopology(copy)).changes,
      catalogue,
    });
    return {
      name,
      yaml: edited.yaml,
      files: edited.files,
      mode: 'imported',
      source_lab: source,
      managed_lab: managed,
      lab: managed,
      state: projectState(copy),
      source: { lab: source },
    };
  });
};

export const getProjectStatus: SessionHandler = async ({ ctx, session, body }): Promise<ProjectStatusData> => {
  const path = labOf(session.documents, readProjectInput(body));
  ctx.owners.check(path, session.username);
  return session.reads.share(`status ${ctx.activity.generation(path)} ${path}`, async () => {
    const live = await observeLab(ctx, session, path);
    const lock = lockOf(ctx, path, live);
    const nodes = (live?.nodes ?? []).map(nodeStatus);
    return {
      lab: path,
      exists: live !== undefined,
      state: labState(live),
      locked: lock.emulatorLock || lock.midApply,
      nodes,
      running: nodes.filter((n) => n.state === 'running').length,
      total: nodes.length,
    };
  });
};

export const inspectProject: SessionHandler = async ({ ctx, session, body }): Promise<InspectionData> => {
  const input = readProjectInput(body);
  const path = labOf(session.documents, input);
  ctx.owners.check(path, session.username);
  const generation = ctx.activity.generation(path);
  const cached = session.inspectCache.get(path);
  if (cached && cached.generation === generation && !input.refresh)
    return { ...(cached.data as InspectionData), cached: true };
  const live = await session.emulator.getLab(path);
  const observedAt = new Date(ctx.clock()).toISOString();
  if (!live) {
    if (input.refresh) throw new ApiError('lab_not_found', `Lab ${path} does not exist on the emulator.`);
    return { lab: path, exists: false, cached: false, observed_at: observedAt, nodes: [], networks: [], links: [] };
  }
  const data = inspection(live, observedAt);
  session.inspectCache.set(path, { generation, data });
  return data;
};

export const openProject: SessionHandler = async ({ ctx, session, body }): Promise<OpenData> => {
  const path = labOf(session.documents, readProjectInput(body));
  ctx.owners.check(path, session.username);
  const live = await session.emulator.getLab(path);
  if (!live) return { lab: path, exists: false, nodes: [] };
  return {
    lab: path,
    exists: true,
    name: live.name,
    url: session.emulator.labUrl(path),
    nodes: live.nodes.map(nodeStatus),
  };
};

export const listProjectConsoles: SessionHandler = async ({ ctx, session, body }): Promise<ConsolesData> => {
  const input = readProjectInput(body);
  const path = labOf(session.documents, input);
  ctx.owners.check(path, session.username);
  const live = await requireLab(session.emulator, path);
  const wanted = optionalString(body, 'node') || undefined;
  return {
    lab: path,
    consoles: live.nodes
      .filter((n) => !wanted || n.name === wanted)
      .map((n) => ({
        node: n.name,
        name: n.name,
        id: n.id,
        console_type: n.console,
        state: nodeState(n),
        url: n.url,
        attachable: n.console === 'telnet' && n.status === EmuNodeStatus.running,
      })),
  };
};
