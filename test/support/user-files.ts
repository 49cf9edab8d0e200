/**
 * Helpers of the tests of files the user names (common/project-files): named pipes,
 * a refusal with its problem and message, and a bound on time so that a read
 * that would hang fails instead.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { UserFileError, type UserFileProblem } from '../../common/project-files/user-file';

/** Makes a named pipe at `path` (Node has no mkfifo; coreutils' is on every Linux and macOS machine). */
export function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** Awaits a read that must be refused for `problem`, with a message naming `path`. */
export async function refused(read: Promise<unknown>, problem: UserFileProblem, path: string): Promise<UserFileError> {
  try {
    await read;
  } catch (err) {
    assert.ok(err instanceof UserFileError, `expected a UserFileError, got ${String(err)}`);
    assert.equal(err.problem, problem, err.message);
    assert.ok(err.message.includes(path), `the message names the file: ${err.message}`);
    return err;
  }
  assert.fail(`expected ${problem}`);
}

/** Fails rather than hangs when `promise` takes longer than `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what = 'the call'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
