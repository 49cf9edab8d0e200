/**
 * Runs the system tools the Linux emulator drives (ip, FRR's daemons and
 * vtysh) without a shell, with a time limit, and reports failures with the
 * command line and what it printed.
 */
import { execFile, spawn } from 'node:child_process';

export interface CommandResult {
  stdout: string;
  stderr: string;
  /** Exit code; null when the command was killed (time limit). */
  code: number | null;
  timedOut: boolean;
  /** Output past the cap was dropped (runUntilExit). */
  truncated?: boolean;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

interface RunOptions {
  /** Default DEFAULT_TIMEOUT_MS; then the command is killed. */
  timeoutMs?: number;
  /** What the command reads on its standard input. */
  input?: string;
}

/** Runs a command and resolves with its outcome, whatever the exit code. */
export function runProcess(file: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
        resolve({
          stdout,
          stderr: failure && typeof failure.code === 'string' ? `${stderr}${failure.message}` : stderr,
          code: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0,
          timedOut: Boolean(failure?.killed),
        });
      },
    );
    // A command that exits without reading its input closes the pipe: that is not an error here.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

export class CommandError extends Error {
  constructor(
    readonly commandLine: string,
    readonly result: CommandResult,
  ) {
    const said = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' / ');
    super(
      `${commandLine} ${result.timedOut ? 'timed out' : `failed (exit ${result.code ?? 'killed'})`}${said ? `: ${said}` : ''}`,
    );
    this.name = 'CommandError';
  }
}

/** Runs a command that must succeed; returns its standard output. */
export async function mustRun(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const result = await runProcess(file, args, options);
  if (result.code !== 0) throw new CommandError([file, ...args].join(' '), result);
  return result.stdout;
}

/**
 * Runs a command and resolves when it exits, with what it printed until
 * then: a background job it left behind may hold its output pipes open for
 * as long as it likes (a host's startup script may start a daemon), and that
 * must not hold up the caller. Output (stdout and stderr together) past
 * `maxOutputBytes` (default MAX_OUTPUT_BYTES) is read and dropped: the
 * program runs to its end, and the caller holds no more than that.
 */
export function runUntilExit(
  file: string,
  args: readonly string[],
  options: { timeoutMs?: number; maxOutputBytes?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const max = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
    let size = 0;
    let truncated = false;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      const room = max - size;
      if (chunk.length > room) truncated = true;
      if (room <= 0) return;
      // A copy of what is kept: a slice would hold the whole chunk's memory.
      const kept = chunk.length > room ? Buffer.from(chunk.subarray(0, room)) : chunk;
      into.push(kept);
      size += kept.length;
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let finished = false;
    const finish = (code: number | null, failure = '') => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // What the program wrote just before it exited may still be in the pipe: take it, then let go.
      setImmediate(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({
          stdout: Buffer.concat(out).toString(),
          stderr: Buffer.concat(err).toString() + failure,
          code: timedOut ? null : code,
          timedOut,
          truncated,
        });
      });
    };
    child.on('error', (e) => finish(null, e.message));
    child.on('exit', (code) => finish(code));
  });
}
