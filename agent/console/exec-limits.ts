/**
 * Bounds on console exec output (decisions §11): what one command's output may hold, what one
 * exec-many reply may hold, how many of its commands run at once, how many exec-many calls
 * one user may have in flight, and how many commands run at once on the whole agent (so the
 * output it holds is bounded whatever the number of users). Output past a cap is cut, and the
 * result says so.
 */
import { ApiError } from '../http/api-error';
import { Places } from '../places';

export const EXEC_LIMITS = {
  /** Characters of one command's output kept in a reply. */
  commandChars: 1024 * 1024,
  /** Characters of all outputs of one exec-many reply. */
  requestChars: 8 * 1024 * 1024,
  /** Commands of one exec-many call running at once: as many as the agent runs, so one call can use them all. */
  commandsAtOnce: 16,
  /** exec-many calls of one user (over all their sessions) in flight at once. */
  callsPerUser: 2,
  /** Console exec commands running at once on the agent, all users together; the others wait their turn. */
  commandsOnAgent: 16,
};

/** The exec-many calls in flight per user, and the commands running on the agent. */
export class ExecLimits {
  private readonly calls = new Map<string, number>();
  private readonly commands: Places;

  constructor(commandsOnAgent = EXEC_LIMITS.commandsOnAgent) {
    this.commands = new Places(commandsOnAgent);
  }

  /** Runs one console command once fewer than `commandsOnAgent` are running (its time limit starts then). */
  command<T>(work: () => Promise<T>): Promise<T> {
    return this.commands.run(work);
  }

  /** Runs `work` as one of the user's exec-many calls, or refuses it when they have too many in flight. */
  async run<T>(username: string, work: () => Promise<T>): Promise<T> {
    const running = this.calls.get(username) ?? 0;
    if (running >= EXEC_LIMITS.callsPerUser)
      throw new ApiError(
        'agent_busy',
        `You already have ${running} console exec-many calls running (at most ${EXEC_LIMITS.callsPerUser} at once). Wait for one to finish.`,
      );
    this.calls.set(username, running + 1);
    try {
      return await work();
    } finally {
      const left = (this.calls.get(username) ?? 1) - 1;
      if (left > 0) this.calls.set(username, left);
      else this.calls.delete(username);
    }
  }
}

/**
 * Output cut to `max` characters, with a note saying so at the end; `cutBefore` says that
 * the output is already the beginning of more (the emulator kept only so much of it).
 */
export function capOutput(output: string, max: number, cutBefore = false): { output: string; truncated: boolean } {
  if (output.length <= max && !cutBefore) return { output, truncated: false };
  const printed = `${cutBefore ? 'more than ' : ''}${output.length} characters`;
  return {
    output: `${output.slice(0, max)}\n[output cut: ${printed}, the agent keeps ${max}]\n`,
    truncated: true,
  };
}
