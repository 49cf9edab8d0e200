/** The agent URL as the user types it, made canonical (it keys the stored token). */

export const DEFAULT_AGENT_URL = 'https://127.0.0.1:8787';

export type ParsedAgentUrl = { url: string } | { problem: string };

export function parseAgentUrlInput(input: string): ParsedAgentUrl {
  const trimmed = input.trim();
  if (trimmed === '') return { problem: `Enter the agent URL, e.g. ${DEFAULT_AGENT_URL}` };
  // "127.0.0.1:8787" is what people type; the agent is HTTPS only.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { problem: `"${trimmed}" is not a URL; expected something like ${DEFAULT_AGENT_URL}` };
  }
  if (url.protocol !== 'https:') return { problem: `The agent is reached over HTTPS only: use https://${url.host}` };
  if (url.username !== '' || url.password !== '')
    return { problem: 'Leave user name and password out of the URL; you are asked for them next.' };
  if (url.search !== '' || url.hash !== '') return { problem: 'The agent URL takes no query or fragment.' };
  const path = url.pathname.replace(/\/+$/, '');
  return { url: `${url.protocol}//${url.host}${path}` };
}

/** SecretStorage key of the token of the single-agent versions (agent-tokens.ts moves it to the default agent's). */
export function tokenSecretKey(url: string): string {
  return `labAgent.token:${url}`;
}
