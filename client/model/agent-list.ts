/**
 * The agents of the workspace, from the settings: the single-agent settings
 * (labAgent.agentUrl, username, tls.*) are the agent named "default", and
 * labAgent.agents names more of them. Pure: the settings come in as values.
 * Entries that cannot be used are left out with a problem that says why;
 * a password in an entry is never read.
 */
import { parseAgentUrlInput } from './agent-url';

/** The agent of the single-agent settings. */
export const DEFAULT_AGENT = 'default';

export interface AgentEntry {
  name: string;
  /** Canonical HTTPS URL ('' when the setting names no usable URL). */
  url: string;
  username: string;
  /** Pinned SHA-256 fingerprint ('' for none). */
  pin: string;
  /** PEM file with the agent's CA ('' for none). */
  caFile: string;
}

export interface AgentList {
  agents: AgentEntry[];
  /** One line per entry of labAgent.agents that was left out. */
  problems: string[];
}

export interface SingleAgentSettings {
  agentUrl: string;
  username: string;
  pin: string;
  caFile: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$/;

/** Why a name cannot name a new agent, or undefined when it can. */
export function agentNameProblem(name: string, taken: readonly string[]): string | undefined {
  if (!NAME.test(name))
    return 'An agent name is 1 to 40 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit.';
  if (name.toLowerCase() === DEFAULT_AGENT) return `"${DEFAULT_AGENT}" is the agent of the labAgent.agentUrl setting.`;
  if (taken.some((t) => t.toLowerCase() === name.toLowerCase())) return `There is already an agent named "${name}".`;
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function agentList(single: SingleAgentSettings, listed: unknown): AgentList {
  const parsedDefault = parseAgentUrlInput(single.agentUrl);
  const agents: AgentEntry[] = [
    {
      name: DEFAULT_AGENT,
      url: 'url' in parsedDefault ? parsedDefault.url : '',
      username: single.username,
      pin: single.pin,
      caFile: single.caFile,
    },
  ];
  const problems: string[] = [];
  if (listed === undefined || listed === null) return { agents, problems };
  if (!Array.isArray(listed)) return { agents, problems: ['Setting labAgent.agents: expected a list of agents.'] };
  listed.forEach((raw: unknown, index) => {
    const where = `Setting labAgent.agents, entry ${index + 1}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(`${where}: expected an object with name and url.`);
      return;
    }
    const entry = raw as Record<string, unknown>;
    const name = text(entry.name);
    const nameProblem = agentNameProblem(
      name,
      agents.map((a) => a.name),
    );
    if (nameProblem !== undefined) {
      problems.push(`${where}: ${nameProblem}`);
      return;
    }
    if ('password' in entry) problems.push(`${where} ("${name}"): a password is never read from settings; remove it.`);
    const url = parseAgentUrlInput(text(entry.url));
    if ('problem' in url) {
      problems.push(`${where} ("${name}"): ${url.problem}`);
      return;
    }
    agents.push({
      name,
      url: url.url,
      username: text(entry.username),
      pin: text(entry.pin),
      caFile: text(entry.caFile),
    });
  });
  return { agents, problems };
}

/** What an entry of labAgent.agents holds (never a password). */
export interface StoredAgent {
  name: string;
  url: string;
  username?: string;
  pin?: string;
  caFile?: string;
}

function entries(listed: unknown): unknown[] {
  return Array.isArray(listed) ? listed : [];
}

function nameOf(raw: unknown): string | undefined {
  return typeof raw === 'object' && raw !== null ? text((raw as Record<string, unknown>).name) : undefined;
}

/** labAgent.agents with one more agent (entries it cannot read are kept as they are). */
export function withAgentAdded(listed: unknown, agent: StoredAgent): unknown[] {
  return [...entries(listed), agent];
}

/** labAgent.agents without the named agent. */
export function withAgentRemoved(listed: unknown, name: string): unknown[] {
  return entries(listed).filter((raw) => nameOf(raw) !== name);
}

/** labAgent.agents with fields of the named agent changed (say, the pin accepted at log-in). */
export function withAgentUpdated(listed: unknown, name: string, patch: Partial<Omit<StoredAgent, 'name'>>): unknown[] {
  return entries(listed).map((raw) => (nameOf(raw) === name ? { ...(raw as Record<string, unknown>), ...patch } : raw));
}
