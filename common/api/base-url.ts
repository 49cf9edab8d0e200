import { AgentError } from './errors';

/**
 * Parses the configured agent URL. The agent speaks HTTPS only, so anything
 * else is refused here, before any byte goes on the wire (contract, Authentication 4).
 */
export function parseAgentUrl(baseUrl: string, operationId: string): URL {
  const text = String(baseUrl ?? '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AgentError(
      'agent_unreachable',
      `The agent URL ${JSON.stringify(text.slice(0, 200))} is not a valid URL; expected something like https://127.0.0.1:8787.`,
      operationId,
    );
  }
  if (url.protocol !== 'https:') {
    const suggestion = url.protocol === 'http:' ? `https://${url.host}` : 'https://127.0.0.1:8787';
    throw new AgentError(
      'tls_required',
      `The agent URL ${JSON.stringify(text.slice(0, 200))} is not an https:// URL; the agent is reached over HTTPS only, e.g. ${suggestion}.`,
      operationId,
    );
  }
  return url;
}
