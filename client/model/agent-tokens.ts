/**
 * Where each agent's session token is kept in SecretStorage: one key per
 * agent name and URL (a token never goes to another address than the one that
 * issued it). Before several agents, the one token was keyed by URL alone;
 * the agent named "default" takes that token over, so an upgrade keeps a
 * logged-in user logged in.
 */
import { DEFAULT_AGENT } from './agent-list';
import { tokenSecretKey } from './agent-url';

/** The part of vscode.SecretStorage used here. */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

export interface TokenOwner {
  name: string;
  url: string;
}

export function agentTokenKey(agent: TokenOwner): string {
  return `labAgent.agent:${agent.name}:token:${agent.url}`;
}

/** The agent's stored token; the default agent first moves a single-agent token to its own key. */
export async function readAgentToken(secrets: SecretStore, agent: TokenOwner): Promise<string | undefined> {
  const key = agentTokenKey(agent);
  const token = await secrets.get(key);
  if (token !== undefined && token !== '') return token;
  if (agent.name !== DEFAULT_AGENT) return undefined;
  const legacy = await secrets.get(tokenSecretKey(agent.url));
  if (legacy === undefined || legacy === '') return undefined;
  await secrets.store(key, legacy);
  await secrets.delete(tokenSecretKey(agent.url));
  return legacy;
}

export async function storeAgentToken(secrets: SecretStore, agent: TokenOwner, token: string): Promise<void> {
  await secrets.store(agentTokenKey(agent), token);
}

export async function deleteAgentToken(secrets: SecretStore, agent: TokenOwner): Promise<void> {
  await secrets.delete(agentTokenKey(agent));
  if (agent.name === DEFAULT_AGENT) await secrets.delete(tokenSecretKey(agent.url));
}

/**
 * Deletes the tokens the agent list no longer has an entry for: an agent
 * removed, or given another URL (its token was issued by the old address).
 * The default agent's URL changes when it logs in elsewhere (its new token is
 * stored first, under the new URL) or by an edit of labAgent.agentUrl: the
 * token of its old URL goes too, with the single-agent key of that URL.
 */
export async function forgetStaleTokens(
  secrets: SecretStore,
  before: readonly TokenOwner[],
  after: readonly TokenOwner[],
): Promise<void> {
  const kept = new Set(after.map(agentTokenKey));
  for (const agent of before) {
    if (agent.url === '' || kept.has(agentTokenKey(agent))) continue;
    await deleteAgentToken(secrets, agent);
  }
}
