/**
 * Every agent the client told us of, each with its own session and
 * catalogue, and which agent each lab document is bound to (LabAgent
 * notifications; a document none names uses the default agent). Agents share
 * nothing: one being down or logged out changes what its own documents show only.
 */
import type { Connection } from 'vscode-languageserver/node';
import { DEFAULT_AGENT_NAME } from '../common/protocol';
import { Catalogue } from './catalogue';
import type { Log } from './log';
import { RemoteAgent } from './remote-agent';

/** What serves one agent's documents. */
export interface AgentScope {
  agent: RemoteAgent;
  catalogue: Catalogue;
}

/** Agent names are the client's (short, printable); a bound the pool never outgrows for a hostile client. */
const MAX_AGENTS = 64;
const MAX_NAME_LENGTH = 64;
/** Bindings are kept for open documents (and ones about to open): a client sending only bindings stops here. */
const MAX_BINDINGS = 10_000;

export class AgentPool {
  private readonly scopes = new Map<string, AgentScope>();
  private readonly bindings = new Map<string, string>();
  private readonly sessionListeners: ((name: string) => void)[] = [];

  constructor(
    private readonly connection: Connection,
    private readonly log: Log,
  ) {
    this.scope(DEFAULT_AGENT_NAME);
  }

  /** The agent (and catalogue) of a document. */
  of(uri: string): AgentScope {
    return this.scope(this.nameOf(uri));
  }

  nameOf(uri: string): string {
    return this.bindings.get(uri) ?? DEFAULT_AGENT_NAME;
  }

  /** The named agent's scope (one without a session until the client sends it). */
  named(name: string): AgentScope {
    return this.scope(name);
  }

  all(): AgentScope[] {
    return [...this.scopes.values()];
  }

  /** The documents bound to the named agent, among `uris`. */
  boundTo(name: string, uris: Iterable<string>): string[] {
    return [...uris].filter((uri) => this.nameOf(uri) === name);
  }

  /** An agent's session (initializationOptions or SessionChanged); anything malformed is the agent's reported error. */
  update(name: unknown, session: unknown): void {
    const agent = validName(name ?? DEFAULT_AGENT_NAME);
    if (agent === undefined) {
      this.log.warn('a session change named no valid agent; ignored');
      return;
    }
    if (!this.scopes.has(agent) && this.scopes.size >= MAX_AGENTS) {
      this.log.warn(`more than ${MAX_AGENTS} agents: the session of "${agent}" is ignored`);
      return;
    }
    this.scope(agent).agent.update(session);
  }

  /** The document's agent (LabAgent notification); true when that is news. */
  bind(uri: string, name: unknown): boolean {
    const agent = validName(name);
    if (agent === undefined) return false;
    const before = this.nameOf(uri);
    if (!this.bindings.has(uri) && this.bindings.size >= MAX_BINDINGS) {
      this.log.warn(`more than ${MAX_BINDINGS} lab agent bindings: the one of ${uri} is ignored`);
      return false;
    }
    if (agent === DEFAULT_AGENT_NAME) this.bindings.delete(uri);
    else this.bindings.set(uri, agent);
    return before !== agent;
  }

  /** The document closed: its binding is sent again when it opens. */
  unbind(uri: string): void {
    this.bindings.delete(uri);
  }

  /** An agent's session changed (its name). */
  onDidChangeSession(listener: (name: string) => void): void {
    this.sessionListeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((scope) => scope.agent.close()));
  }

  private scope(name: string): AgentScope {
    let scope = this.scopes.get(name);
    if (scope === undefined) {
      const agent = new RemoteAgent(name, this.connection, this.log);
      scope = { agent, catalogue: new Catalogue(agent) };
      this.scopes.set(name, scope);
      agent.onDidChange(() => {
        for (const listener of this.sessionListeners) listener(name);
      });
    }
    return scope;
  }
}

function validName(name: unknown): string | undefined {
  return typeof name === 'string' && name !== '' && name.length <= MAX_NAME_LENGTH ? name : undefined;
}
