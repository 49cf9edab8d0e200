/** execProject: start, stop or wipe one node or all of them, counted in a BulkResult (decisions §7). */
import { emptyBulkResult, type BulkResult } from '../../common/api/contract';
import { EmuError, EmuNodeStatus, type EmuNode } from '../emulator/backend';
import { ApiError, invalidRequest } from '../http/api-error';
import { optionalString } from '../http/fields';
import { labOf } from '../domain/project-input';
import { readProjectInput, readStopmode } from '../http/project-payload';
import { ensureWritable, requireLab } from '../domain/lab-guards';
import { runBounded } from '../bounded';
import type { SessionHandler } from './handler';

const ACTIONS = ['start', 'stop', 'wipe'] as const;
type Action = (typeof ACTIONS)[number];

export const execProject: SessionHandler = async ({ ctx, session, body }): Promise<BulkResult> => {
  const action = optionalString(body, 'action');
  if (!action || !(ACTIONS as readonly string[]).includes(action)) {
    throw invalidRequest(`"action" must be "start", "stop" or "wipe"${action ? `, not "${action}"` : ''}.`);
  }
  const stopmode = readStopmode(body);
  const input = readProjectInput(body);
  const path = labOf(session.documents, input);
  const client = session.emulator;
  ctx.owners.check(path, session.username);

  return ctx.activity.exclusive(path, 'exec', async () => {
    const live = await requireLab(client, path);
    ctx.owners.claim(path, session.username, true);
    ensureWritable(ctx.activity.journal, path, live);
    let targets: EmuNode[] = live.nodes;
    if (input.node) {
      const named = live.nodes.find((n) => n.name === input.node);
      if (!named) return { ...emptyBulkResult(1), invalid: 1 };
      targets = [named];
      if (action === 'start') {
        const template = await client.getTemplate(named.template);
        if (!template?.provisioned) {
          throw new ApiError(
            'operation_not_allowed',
            `${named.name} cannot start: template ${named.template} is not provisioned on the emulator.`,
          );
        }
      }
    }
    const result = emptyBulkResult(targets.length);
    // Nodes start and stop side by side, as many at once as the emulator takes writes.
    await runBounded(
      targets.map((node) => async () => {
        try {
          await perform(action as Action, node, result, () =>
            action === 'start'
              ? client.startNode(path, node.id)
              : action === 'stop'
                ? client.stopNode(path, node.id, stopmode)
                : client.wipeNode(path, node.id),
          );
        } catch (e) {
          // The emulator refusing one node (missing image, unprovisioned template) fails that node only.
          if (e instanceof EmuError && e.kind === 'refused') result.failed++;
          else throw e;
        }
      }),
      client.maxConcurrentWrites ?? 1,
      ctx.activity.signal,
    );
    return result;
  });
};

async function perform(action: Action, node: EmuNode, result: BulkResult, call: () => Promise<void>): Promise<void> {
  switch (action) {
    case 'start':
      if (node.status === EmuNodeStatus.running) result.already_running++;
      else if (node.status === EmuNodeStatus.starting) result.already_starting++;
      else {
        await call();
        result.started++;
      }
      return;
    case 'stop':
      if (node.status === EmuNodeStatus.stopped || node.status === EmuNodeStatus.stopping) result.already_stopped++;
      else {
        await call();
        result.stopped++;
      }
      return;
    case 'wipe':
      await call();
      result.wiped++;
      return;
  }
}
