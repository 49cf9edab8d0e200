/** Console exec (one node, or many at once) and console attach (a ticket for the byte stream). */
import {
  operationPath,
  STREAM_UPGRADE,
  type ConsoleAttachData,
  type ConsoleExecData,
  type ConsoleExecManyData,
  type ConsoleExecResult,
} from '../../common/api/contract';
import { EmuError, EmuNodeStatus, type EmuLab, type EmuNode } from '../emulator/backend';
import { ApiError, invalidRequest, knownApiError } from '../http/api-error';
import { optionalInteger, optionalString, rejectLocalPaths, type Body } from '../http/fields';
import { requireLab } from '../domain/lab-guards';
import { labOf } from '../domain/project-input';
import { readProjectInput } from '../http/project-payload';
import { commandProblem } from '../console/console-command';
import type { AgentContext } from '../context';
import type { LoginSession } from '../sessions';
import type { SessionHandler, SessionRequest } from './handler';
import { capOutput, EXEC_LIMITS } from '../console/exec-limits';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 120_000;
const MAX_TARGETS = 256;

interface Target {
  lab: string;
  node: EmuNode;
}

/**
 * The lab of a ConsolePayload, read from its own fields only (the contract says to ignore any
 * others); another user's lab is 404 (decisions §13).
 */
function labOfConsolePayload(ctx: AgentContext, session: LoginSession, body: Body): string {
  rejectLocalPaths(body);
  const { lab, yaml, files, state, manifest } = body;
  const path = labOf(session.documents, readProjectInput({ lab, yaml, files, state, manifest }));
  ctx.owners.check(path, session.username);
  return path;
}

/**
 * The lab's nodes as they are now (their states and consoles: a command needs no running
 * config, whose read costs a command per router). Using a console changes the lab: an
 * unowned one is claimed.
 */
async function consoleLab(ctx: AgentContext, session: LoginSession, lab: string): Promise<EmuLab> {
  const live = await requireLab(session.emulator, lab, { runningConfigs: false });
  ctx.owners.claim(lab, session.username, true);
  return live;
}

/** A running node with a telnet console, or the reason there is none. */
function consoleTarget(live: EmuLab, name: string): Target {
  const lab = live.path;
  const node = live.nodes.find((n) => n.name === name);
  if (!node)
    throw new ApiError(
      'node_not_found',
      `Lab ${lab} has no node "${name}". Nodes: ${live.nodes.map((n) => n.name).join(', ') || 'none'}.`,
    );
  if (node.console !== 'telnet')
    throw new ApiError(
      'operation_not_allowed',
      `The console of ${name} is ${node.console}; only telnet consoles can be used through the agent.`,
    );
  if (node.status !== EmuNodeStatus.running)
    throw new ApiError(
      'node_not_running',
      `${name} is not running (it is ${['stopped', 'starting', 'running', 'stopping'][node.status]}). Start it first.`,
    );
  return { lab, node };
}

function readTimeout(body: Body): number {
  const timeout = optionalInteger(body, 'timeout_ms') ?? DEFAULT_TIMEOUT_MS;
  if (timeout < 1 || timeout > MAX_TIMEOUT_MS)
    throw invalidRequest(`"timeout_ms" must be between 1 and ${MAX_TIMEOUT_MS}.`);
  return timeout;
}

/** Runs a command on a node of the lab as observed (`live`), which exec-many observes once for all its targets. */
async function runOn(
  req: SessionRequest,
  live: EmuLab,
  node: string,
  command: string,
  timeoutMs: number,
): Promise<ConsoleExecData & { timed_out?: boolean; truncated?: boolean }> {
  const target = consoleTarget(live, node);
  const { lab } = target;
  try {
    const result = await req.ctx.execs.command(() =>
      req.ctx.consoles.run(req.session.emulator, lab, target.node.id, command, timeoutMs),
    );
    const { output, truncated } = capOutput(result.output, EXEC_LIMITS.commandChars, result.truncated);
    return {
      node,
      name: target.node.name,
      console_type: target.node.console,
      command,
      output,
      duration_ms: result.durationMs,
      ...(result.timedOut ? { timed_out: true } : {}),
      ...(truncated ? { truncated: true } : {}),
    };
  } catch (e) {
    // The node went down between the check and the connection.
    if (e instanceof EmuError && e.kind === 'refused')
      throw new ApiError('node_not_running', `${node} stopped before the command could run.`);
    throw e;
  }
}

export const execConsole: SessionHandler = async (req): Promise<ConsoleExecData> => {
  const { body, session } = req;
  const lab = labOfConsolePayload(req.ctx, session, body);
  const node = optionalString(body, 'node');
  if (!node) throw invalidRequest('"node" is required: name the node to run the command on.');
  const command = optionalString(body, 'command');
  if (command === undefined) throw invalidRequest('"command" is required.');
  const problem = commandProblem('command', command);
  if (problem) throw invalidRequest(problem);
  return runOn(req, await consoleLab(req.ctx, session, lab), node, command, readTimeout(body));
};

export const execConsoleMany: SessionHandler = async (req): Promise<ConsoleExecManyData> => {
  const { body, session } = req;
  const lab = labOfConsolePayload(req.ctx, session, body);
  const timeoutMs = readTimeout(body);
  const raw = body.targets;
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest('"targets" is required: a list of { node, command } objects.');
  if (raw.length > MAX_TARGETS) throw invalidRequest(`"targets" may hold at most ${MAX_TARGETS} entries.`);
  const targets = raw.map((t, i) => {
    if (!t || typeof t !== 'object' || Array.isArray(t))
      throw invalidRequest(`"targets[${i}]" must be an object with "node" and "command".`);
    const entry = t as Body;
    if (typeof entry.node !== 'string' || !entry.node)
      throw invalidRequest(`"targets[${i}].node" must be a node name.`);
    if (typeof entry.command !== 'string') throw invalidRequest(`"targets[${i}].command" must be a string.`);
    const problem = commandProblem(`targets[${i}].command`, entry.command);
    if (problem) throw invalidRequest(problem);
    return { node: entry.node, command: entry.command };
  });
  return req.ctx.execs.run(session.username, async () => ({ results: await runMany(req, lab, targets, timeoutMs) }));
};

/**
 * Runs the targets a few at a time (EXEC_LIMITS), so one call holds the output of at most that
 * many commands; outputs past the reply's cap are cut to what is left of it.
 */
async function runMany(
  req: SessionRequest,
  lab: string,
  targets: { node: string; command: string }[],
  timeoutMs: number,
): Promise<ConsoleExecResult[]> {
  let live: EmuLab;
  try {
    // One observation of the lab for all targets: each target is found in it.
    live = await consoleLab(req.ctx, req.session, lab);
  } catch (e) {
    const error = knownApiError(e);
    if (!error) throw e;
    return targets.map(({ node, command }) => ({ node, command, ok: false, error: error.message, code: error.code }));
  }
  const results: ConsoleExecResult[] = new Array<ConsoleExecResult>(targets.length);
  let left = EXEC_LIMITS.requestChars;
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const index = next++;
      const { node, command } = targets[index];
      try {
        const r = await runOn(req, live, node, command, timeoutMs);
        const capped = capOutput(r.output ?? '', Math.max(0, left));
        left -= capped.output.length;
        results[index] = {
          node,
          command,
          ok: true,
          output: capped.output,
          duration_ms: r.duration_ms,
          ...(r.timed_out ? { timed_out: true } : {}),
          ...(r.truncated || capped.truncated ? { truncated: true } : {}),
        };
      } catch (e) {
        const error = knownApiError(e);
        if (!error) throw e;
        results[index] = { node, command, ok: false, error: error.message, code: error.code };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(EXEC_LIMITS.commandsAtOnce, targets.length) }, worker));
  return results;
}

export const attachConsole: SessionHandler = async ({ ctx, session, body }): Promise<ConsoleAttachData> => {
  const lab = labOfConsolePayload(ctx, session, body);
  const node = optionalString(body, 'node');
  if (!node) throw invalidRequest('"node" is required: name the node whose console to attach to.');
  const target = consoleTarget(await consoleLab(ctx, session, lab), node);
  const ticket = ctx.tickets.issue(session.token, { lab, nodeId: target.node.id, nodeName: target.node.name });
  return {
    node,
    name: target.node.name,
    console_type: target.node.console,
    ticket,
    stream: operationPath('streamConsole', { ticket }),
    transport: STREAM_UPGRADE,
  };
};
