/**
 * A node's console on EVE-NG: the node's `url` is `telnet://<server name>:<port>`
 * (with a login that sent html5 "0"). The server name is what EVE-NG thinks it
 * is called, often not reachable from the agent, so the host is replaced by the
 * one the agent reaches the API at. The TCP connection is the telnet stream.
 */
import { connect, type Socket } from 'node:net';
import { EmuError } from '../backend';

const CONNECT_TIMEOUT_MS = 10_000;

/** The console address the agent can reach, or undefined when the node has no telnet console. */
export function reachableConsoleUrl(url: string, apiHost: string): string | undefined {
  const match = /^telnet:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(url.trim());
  if (!match) return undefined;
  return `telnet://${apiHost}:${match[2]}`;
}

export function openTelnet(url: string, nodeName: string): Promise<Socket> {
  const match = /^telnet:\/\/(\[([^\]]+)\]|[^:/]+):(\d+)$/.exec(url);
  if (!match) throw new EmuError('refused', `The console of ${nodeName} is not a telnet console (${url || 'no URL'}).`);
  const host = match[2] ?? match[1];
  const port = Number(match[3]);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
      socket.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
    );
    socket.once('connect', () => {
      socket.setTimeout(0);
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new EmuError(
          e.code === 'ECONNREFUSED' ? 'refused' : 'unreachable',
          `The console of ${nodeName} at ${host}:${port} does not answer (${e.code ?? e.message}).`,
        ),
      ),
    );
  });
}
