/**
 * Code lenses: a plan summary and the lab actions at the top of the file, and
 * node actions above each node that fit its state as the Labs view last read
 * it (Stop and Console on a running node, Start on a stopped one; all three
 * while the state is not known). Logged out, the file offers Log In alone.
 * The plan asks the agent, so it is computed only when the editor resolves
 * the lens; it is the lab's shared plan (lab-plans.ts), which the client's
 * views ask for too.
 */
import { CodeLensRefreshRequest, type CodeLens, type Command, type Connection } from 'vscode-languageserver/node';
import type { PlanData } from '../../common/api/contract';
import { shiftRange } from '../../common/lab/parse/outline';
import type { LabDocuments, LabFile } from '../documents';
import type { LabPlans } from '../lab-plans';
import type { Log } from '../log';
import type { AgentOf } from '../remote-agent';
import { DEFAULT_AGENT_NAME } from '../../common/protocol';
import { LabCommand, type LensCommandArgs } from '../../common/commands';

const MAX_REASON_LENGTH = 500;
/**
 * Node lenses at most (those of the first nodes, each node's all or none). VS Code asks for
 * every lens of the document at each version, reads the whole reply before drawing any, and
 * resolves and draws only those in view: so node lenses go out unresolved, a range and a few
 * bytes of data each (NodeLensData, about 100 bytes), and get their title and command in
 * codeLens/resolve. At 10,000 nodes every lens resolved was 30,004 lenses (over half a second a
 * request); 3,000 unresolved ones (Start, Stop and Console on 1,000 nodes whose state is not yet
 * known) were 308 KB, 5-35 ms for the server to send and 20-40 ms for a client to read, over
 * the 50 ms an outline or lens refresh may take (#29). A thousand are 100 KB: 333 nodes of
 * unknown state, 500 running ones, 1,000 stopped ones. Past them node actions are in the Labs
 * view and the command palette; the lab's own lenses always come.
 */
const MAX_NODE_LENSES = 1000;
/**
 * How long after a document's last edit the server waits for the editor to ask for its lenses
 * before it asks the editor to. VS Code asks a moment after an edit (its debounce, 250 ms or the
 * time the last asks took), but drops that request when the editor loses focus first: to the plan
 * opening beside it, to the command palette. It asks again only when the editor gets focus back or
 * on a refresh, and the lenses go on showing an older version: a plan lens of "no changes" over a
 * lab that just gained a node, no lens over the node.
 */
const LENS_CATCH_UP_MS = 1000;

/** A node lens's data until it is resolved: which document (a short key), which node, which action. */
type NodeLensData = [document: number, node: string, action: number];

interface PlanLensData {
  uri: string;
}

interface PlanLensTitle {
  title: string;
  tooltip?: string;
}

export class CodeLensService {
  /** Whether each lab exists on the emulator, as its last plan said; unknown before one. */
  private exists = new Map<string, boolean>();
  /** Each lab's node states by name, as the client last read them (after its actions, and in the Labs view). */
  private nodeStates = new Map<string, ReadonlyMap<string, string>>();
  /** The version whose lenses the editor last asked for, by document: none before it shows the document. */
  private readonly provided = new Map<string, number>();
  /** Each edited document's wait for the editor to ask for its lenses (LENS_CATCH_UP_MS). */
  private readonly catchUps = new Map<string, NodeJS.Timeout>();
  /** Bumped when lenses may change without a new version (session, lab state): part of the cache key. */
  private generation = 0;
  /** Short keys of documents' URIs for node lens data (a URI in each of thousands of lenses would dominate the reply). */
  private readonly documentKeys = new Map<string, number>();
  private readonly documentUris = new Map<number, string>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: LabDocuments,
    private readonly agentOf: AgentOf,
    private readonly plans: LabPlans,
    private readonly log: Log,
    private readonly canRefresh: () => boolean,
  ) {}

  /** The lenses of the current version, computed once per version (a lab of 2,000 nodes has 6,000). */
  provide(file: LabFile): CodeLens[] {
    this.provided.set(file.uri, file.version);
    return file.cached(`codeLens ${this.generation}`, (f) => this.lenses(f));
  }

  private lenses(file: LabFile): CodeLens[] {
    const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const args: LensCommandArgs = { uri: file.uri };
    const agent = this.agentOf(file.uri);
    if (!agent.active)
      // Nothing here would work without a session: no node actions left over from one.
      return [
        {
          range: top,
          command:
            agent.name === DEFAULT_AGENT_NAME
              ? { title: 'Log In to plan and deploy', command: LabCommand.login }
              : {
                  title: `Log In to agent "${agent.name}" to plan and deploy`,
                  command: LabCommand.login,
                  arguments: [{ agent: agent.name }],
                },
        },
      ];
    const lenses: CodeLens[] = [{ range: top, data: { uri: file.uri } satisfies PlanLensData }];
    lenses.push(
      { range: top, command: lensCommand('Deploy', LabCommand.deploy, args) },
      { range: top, command: lensCommand('Reconcile', LabCommand.reconcile, args) },
      { range: top, command: lensCommand('Destroy', LabCommand.destroy, args) },
    );
    const deployed = this.exists.get(file.uri) !== false;
    const states = this.nodeStates.get(file.uri);
    // The next step after a deploy stays here, where a notification's button would vanish with it.
    if (deployed && states !== undefined && [...states.values()].includes('stopped'))
      lenses.push({ range: top, command: lensCommand('Start All', LabCommand.startLab, args) });
    // The first nodes, found by their place: no walk over every node, nor the model's list (it copies every node an
    // edit moved).
    const key = this.documentKey(file.uri);
    let nodeLenses = 0;
    for (let n = 0; ; n++) {
      const placed = file.model.elementAsRead('nodes', n);
      if (!placed) break;
      const { element: node, delta } = placed;
      // Nothing to start or attach to before a deploy: say so, and offer what can be done.
      const actions = deployed ? nodeActions(states?.get(node.name)) : [DEPLOY_FIRST];
      nodeLenses += actions.length;
      if (nodeLenses > MAX_NODE_LENSES) break;
      const range = file.toLspRange(shiftRange(node.nameRange, delta));
      for (const action of actions)
        lenses.push({ range, data: [key, node.name, NODE_ACTIONS.indexOf(action)] satisfies NodeLensData });
    }
    return lenses;
  }

  private documentKey(uri: string): number {
    let key = this.documentKeys.get(uri);
    if (key === undefined) {
      key = this.documentKeys.size + 1;
      this.documentKeys.set(uri, key);
      this.documentUris.set(key, uri);
    }
    return key;
  }

  /** A node lens's command, from its data: Deploy for the whole lab, or the action on its node. */
  private resolveNodeLens(lens: CodeLens, [key, node, index]: NodeLensData): CodeLens {
    const uri = this.documentUris.get(key) ?? '';
    const action = NODE_ACTIONS[index] ?? DEPLOY_FIRST;
    const args: LensCommandArgs = action === DEPLOY_FIRST ? { uri } : { uri, node };
    return { ...lens, command: lensCommand(action.title, action.command, args) };
  }

  async resolve(lens: CodeLens): Promise<CodeLens> {
    if (lens.command) return lens;
    if (isNodeLensData(lens.data)) return this.resolveNodeLens(lens, lens.data);
    const uri = (lens.data as Partial<PlanLensData> | undefined)?.uri;
    const file = typeof uri === 'string' ? this.documents.get(uri) : undefined;
    const title = file
      ? await this.planTitle(file)
      : { title: 'Plan: unavailable', tooltip: 'The document is not open.' };
    return {
      ...lens,
      command: {
        ...lensCommand(title.title, LabCommand.plan, { uri: typeof uri === 'string' ? uri : '' }),
        ...(title.tooltip ? { tooltip: title.tooltip } : {}),
      },
    };
  }

  /** The lab's stored state changed (deploy, import, reconcile): its plan is out of date. */
  labStateChanged(uri: string): void {
    this.plans.forget(uri);
    this.generation++;
    this.refresh();
  }

  /** The client read the lab's node states (null: it could not). */
  nodeStatesChanged(uri: string, states: Record<string, string> | null): void {
    if (states === null) this.nodeStates.delete(uri);
    else this.nodeStates.set(uri, new Map(Object.entries(states)));
    this.generation++;
    this.refresh();
  }

  /** An agent's session changed: its documents' plans, and what they said of the labs, no longer hold. */
  sessionChanged(agent: string): void {
    this.plans.forgetAgent(agent);
    for (const uri of [...this.exists.keys()]) if (this.agentOf(uri).name === agent) this.exists.delete(uri);
    for (const uri of [...this.nodeStates.keys()]) if (this.agentOf(uri).name === agent) this.nodeStates.delete(uri);
    this.generation++;
    this.refresh();
  }

  /** An agent's catalogue was read again: a lab it refused (a template it lacked) may plan now. */
  catalogueChanged(agent: string): void {
    this.plans.forgetAgent(agent);
    this.generation++;
    this.refresh();
  }

  /** The document is bound to another agent: what its lenses said was about the old one. */
  agentChanged(uri: string): void {
    this.documentClosed(uri);
    this.generation++;
    this.refresh();
  }

  /** The document was edited: if the editor that shows it does not ask for its lenses, it is asked to. */
  documentChanged(uri: string): void {
    if (!this.provided.has(uri)) return;
    clearTimeout(this.catchUps.get(uri));
    const wait = setTimeout(() => {
      this.catchUps.delete(uri);
      const file = this.documents.get(uri);
      if (file !== undefined && this.provided.get(uri) !== file.version) this.refresh();
    }, LENS_CATCH_UP_MS);
    wait.unref();
    this.catchUps.set(uri, wait);
  }

  documentClosed(uri: string): void {
    this.plans.forget(uri);
    this.exists.delete(uri);
    this.nodeStates.delete(uri);
    this.provided.delete(uri);
    clearTimeout(this.catchUps.get(uri));
    this.catchUps.delete(uri);
  }

  /** The lens's words for the lab's shared plan (lab-plans.ts). */
  private async planTitle(file: LabFile): Promise<PlanLensTitle> {
    const outcome = await this.plans.of(file);
    if (outcome.ok) return { title: planSummaryTitle(outcome.plan) };
    const agent = this.agentOf(file.uri).name;
    const title = failedPlanTitle(outcome);
    // With several agents, the lens names the one it could not plan on.
    return agent === DEFAULT_AGENT_NAME
      ? title
      : { ...title, title: title.title.replace(/^Plan:/, `Plan on "${agent}":`) };
  }

  /** A plan was made (for the lens or another view): node lenses follow whether the lab exists. */
  planned(uri: string, plan: PlanData): void {
    this.learnExists(uri, plan.exists);
  }

  /** A plan said whether the lab exists: node lenses follow (the refresh re-resolves the cached plan only). */
  private learnExists(uri: string, exists: unknown): void {
    if (typeof exists !== 'boolean' || this.exists.get(uri) === exists) return;
    this.exists.set(uri, exists);
    this.generation++;
    this.refresh();
  }

  private refresh(): void {
    if (!this.canRefresh()) return;
    this.connection.sendRequest(CodeLensRefreshRequest.type).catch((error: unknown) => {
      this.log.error('could not ask the editor to refresh code lenses', error);
    });
  }
}

/** "Plan: +3 ~1 −0", or "Plan: no changes"; blocked actions are counted because deploy will refuse them. */
export function planSummaryTitle(plan: PlanData): string {
  const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  const summary = plan.summary ?? {};
  const create = count(summary.create);
  const update = count(summary.update);
  const remove = count(summary.delete);
  const blocked = Array.isArray(plan.blocked) ? plan.blocked.length : 0;
  const changes = create + update + remove === 0 ? 'no changes' : `+${create} ~${update} −${remove}`;
  return `Plan: ${changes}${blocked > 0 ? ` (${blocked} blocked)` : ''}`;
}

const START = { title: 'Start', command: LabCommand.startNode };
const STOP = { title: 'Stop', command: LabCommand.stopNode };
const CONSOLE = { title: 'Console', command: LabCommand.openConsole };
const DEPLOY_FIRST = { title: 'Not deployed: Deploy first', command: LabCommand.deploy };
/** Every node action, by the index a lens's data holds. */
const NODE_ACTIONS: readonly { title: string; command: string }[] = [START, STOP, CONSOLE, DEPLOY_FIRST];

function isNodeLensData(data: unknown): data is NodeLensData {
  return (
    Array.isArray(data) &&
    data.length === 3 &&
    typeof data[0] === 'number' &&
    typeof data[1] === 'string' &&
    typeof data[2] === 'number'
  );
}

/** What a node's lens offers in each state (decisions §7); a state not known offers all three. */
function nodeActions(state: string | undefined): { title: string; command: string }[] {
  switch (state) {
    case 'running':
    case 'starting':
      return [STOP, CONSOLE];
    case 'stopped':
    case 'stopping':
      return [START];
    default:
      return [START, STOP, CONSOLE];
  }
}

function lensCommand(title: string, command: string, args: LensCommandArgs): Command {
  return { title, command, arguments: [args] };
}

/** The lens's words for a plan that could not be made. */
function failedPlanTitle(outcome: { code: string; message: string }): PlanLensTitle {
  switch (outcome.code) {
    case 'syntax_errors':
      return { title: 'Plan: fix YAML errors first', tooltip: outcome.message };
    case 'file_refused':
      return { title: 'Plan: a file was refused', tooltip: outcome.message };
    case 'not_logged_in':
      return { title: 'Plan: not logged in', tooltip: outcome.message };
    default:
      // The lens stays short; the whole message is in the tooltip and in the plan the lens opens.
      return { title: `Plan: ${shortReason(outcome.code)}`, tooltip: shorten(outcome.message) };
  }
}

/** A few words for the lens; the message itself goes to the tooltip. */
function shortReason(code: string): string {
  switch (code) {
    case 'agent_unreachable':
      return 'agent unreachable';
    case 'invalid_lab':
      return 'lab has errors (see Problems)';
    case 'timeout':
      return 'agent timed out';
    case 'unauthenticated':
    case 'expired_agent_session':
    case 'expired_emu_session':
      return 'session expired, log in again';
    case 'tls_required':
    case 'tls_untrusted':
    case 'tls_pin_mismatch':
      return "agent's certificate not trusted";
    case 'emu_unreachable':
      return 'emulator unreachable';
    default:
      return 'unavailable';
  }
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= MAX_REASON_LENGTH ? oneLine : `${oneLine.slice(0, MAX_REASON_LENGTH - 1)}…`;
}
