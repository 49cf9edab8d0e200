/**
 * streamConsole: GET /api/v1/console/stream/{ticket} with `Upgrade: emu-telnet`
 * and the bearer token of the session that attached. Success is 101 and then
 * the node's telnet console, byte for byte, both ways. Failures are JSON
 * envelopes written on the raw socket (there is no ServerResponse on upgrade).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { STREAM_UPGRADE } from '../../common/api/contract';
import type { AgentContext } from '../context';
import { EmuError } from '../emulator/backend';
import { ApiError, toApiError } from '../http/api-error';
import type { RouteTable } from '../http/routes';

function writeRawError(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify({ ok: false, error: error.message, code: error.code });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function upgradeRequired(): ApiError {
  return new ApiError(
    'upgrade_required',
    `The console stream needs the request header "Upgrade: ${STREAM_UPGRADE}" (and "Connection: Upgrade").`,
  );
}

export async function handleStreamUpgrade(
  ctx: AgentContext,
  routes: RouteTable,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  open: Set<Duplex>,
): Promise<void> {
  socket.on('error', () => socket.destroy());
  try {
    const pathname = new URL(req.url ?? '/', 'https://agent').pathname;
    const found = routes.lookup(req.method ?? 'GET', pathname);
    if (found.kind !== 'found' || found.match.operationId !== 'streamConsole') {
      throw new ApiError(
        found.kind === 'wrong_method' ? 'method_not_allowed' : 'not_found',
        'Only the console stream (GET /api/v1/console/stream/{ticket}) can be upgraded.',
      );
    }
    const session = ctx.sessions.authenticate(req.headers.authorization);
    if ((req.headers.upgrade ?? '').toLowerCase() !== STREAM_UPGRADE) throw upgradeRequired();
    const target = ctx.tickets.redeem(found.match.params.ticket, session.token);
    let console: Duplex;
    try {
      console = await session.emulator.openConsole(target.lab, target.nodeId);
    } catch (e) {
      if (e instanceof EmuError && (e.kind === 'refused' || e.kind === 'not_found')) {
        throw new ApiError(
          'node_not_running',
          `${target.nodeName} is not running any more, so its console does not answer.`,
        );
      }
      throw e;
    }
    if (socket.destroyed) {
      console.destroy();
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${STREAM_UPGRADE}\r\nConnection: Upgrade\r\n\r\n`);
    open.add(socket);
    const finish = () => {
      open.delete(socket);
      console.destroy();
      socket.destroy();
    };
    socket.on('close', finish);
    console.on('close', finish);
    console.on('end', finish);
    console.on('error', finish);
    if (head.length) console.write(head);
    socket.pipe(console);
    console.pipe(socket);
  } catch (e) {
    writeRawError(socket, toApiError(e, ctx.log));
  }
}
