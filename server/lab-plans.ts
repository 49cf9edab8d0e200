/**
 * One plan per lab document version and agent state, shared by every view
 * that shows one: the plan lens, and the client's topology drift and plan
 * document (PlanRequest). A push, a pull or a changed config (LabStateChanged,
 * config-files.ts) makes the next ask plan afresh, once for all of them; a
 * plan that failed on the way (timeout, no session, agent busy) is not kept,
 * so the next ask may succeed. A lab the agent refuses to plan (it does not
 * validate: a template its catalogue lacks) is kept like a plan: the same
 * version against the same agent state is refused the same way, and every
 * lens refresh (another lab's node states, a deploy elsewhere) would ask again.
 */
import type { PlanData } from '../common/api/contract';
import type { LabPlan } from '../common/protocol';
import { documentPayload, type LabFile } from './documents';
import type { ConfigFiles } from './config-files';
import { DEFAULT_AGENT_NAME } from '../common/protocol';
import type { AgentOf } from './remote-agent';

/** A plan may wait this long; the agent's own limit (180 s) is for explicit plans. */
const PLAN_TIMEOUT_MS = 30_000;
/** Refusals that depend only on the document, its configs and the agent's catalogue: kept until one of them changes. */
const LASTING_REFUSALS: ReadonlySet<string> = new Set(['invalid_lab', 'payload_too_large']);

export class LabPlans {
  private entries = new Map<string, { version: number; plan: Promise<LabPlan & { keep: boolean }> }>();

  /** `planned` hears of each plan the agent made (the lens learns whether the lab exists). */
  constructor(
    private readonly agentOf: AgentOf,
    private readonly configs: ConfigFiles,
    private readonly planned: (uri: string, plan: PlanData) => void,
  ) {}

  /** The plan of the document's current version: the one already asked for, or a new one. */
  async of(file: LabFile): Promise<LabPlan> {
    const cached = this.entries.get(file.uri);
    if (cached?.version === file.version) return strip(await cached.plan);
    const entry = {
      version: file.version,
      plan: this.make(file).then((plan) => {
        if (!plan.keep && this.entries.get(file.uri) === entry) this.entries.delete(file.uri);
        return plan;
      }),
    };
    this.entries.set(file.uri, entry);
    return strip(await entry.plan);
  }

  /** The lab's state or configs changed: its next plan is made afresh. */
  forget(uri: string): void {
    this.entries.delete(uri);
  }

  /** Another session: every plan is made afresh. */
  clear(): void {
    this.entries = new Map();
  }

  /** Another session of one agent, or its catalogue read again: the plans of its documents are made afresh. */
  forgetAgent(name: string): void {
    for (const uri of [...this.entries.keys()]) if (this.agentOf(uri).name === name) this.entries.delete(uri);
  }

  private async make(file: LabFile): Promise<LabPlan & { keep: boolean }> {
    if (file.model.syntaxErrors.length > 0)
      return {
        ok: false,
        code: 'syntax_errors',
        message: 'The plan needs a document without syntax errors.',
        keep: true,
      };
    const built = await documentPayload(file, this.configs);
    if ('refused' in built) return { ok: false, code: 'invalid_lab', message: built.refused.message ?? '', keep: true };
    if ('problem' in built) return { ok: false, code: 'file_refused', message: built.problem.message, keep: false };
    const agent = this.agentOf(file.uri);
    const outcome = await agent.call((client) => client.planProject(built.payload, { timeoutMs: PLAN_TIMEOUT_MS }));
    if (outcome === undefined)
      return {
        ok: false,
        code: 'not_logged_in',
        message:
          agent.name === DEFAULT_AGENT_NAME
            ? 'Log in to an agent to see what a deploy would change.'
            : `Log in to agent "${agent.name}" to see what a deploy would change.`,
        keep: false,
      };
    if (!outcome.ok)
      return {
        ok: false,
        code: outcome.problem.code,
        message: outcome.problem.message,
        keep: !outcome.cancelled && LASTING_REFUSALS.has(outcome.problem.code),
      };
    this.planned(file.uri, outcome.value);
    return { ok: true, plan: outcome.value, keep: true };
  }
}

function strip({ keep: _keep, ...plan }: LabPlan & { keep: boolean }): LabPlan {
  return plan;
}
