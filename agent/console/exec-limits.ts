/**
 * Bounds on console exec output (decisions §11): what one command's output may hold, what one
 * exec-many reply may hold, how many of its commands run at once, and how many exec-many calls
 * one user may have in flight. Output past a cap is cut, and the result says so.
 */
import { ApiError } from '../http/api-error';

export const EXEC_LIMITS = {
  /** Characters of one command's output kept in a reply. */
  commandChars: 1024 * 1024,
  /** Characters of all outputs of one exec-many reply. */
  requestChars: 8 * 1024 * 1024,
  /** Commands of one exec-many call running at once. */
  commandsAtOnce: 8,
  /** exec-many calls of one user (over all their sessions) in flight at once. */
  callsPerUser: 2,
};

/** The exec-many calls in flight, per user. */
export class ExecLimits {
  private readonly calls = new Map<string, number>();

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

/** Output cut to `max` characters, with a note saying so at the end. */
export function capOutput(output: string, max: number): { output: string; truncated: boolean } {
  if (output.length <= max) return { output, truncated: false };
  return {
    output: `${output.slice(0, max)}\n[output cut: ${output.length} characters, the agent keeps ${max}]\n`,
    truncated: true,
  };
}
