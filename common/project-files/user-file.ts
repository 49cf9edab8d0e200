/**
 * Reading a file the user named (a node's startup config, a lab's state file)
 * without trusting what is at that path: only a regular file, up to a size,
 * within a time. A FIFO, a device or a directory is refused before it is
 * opened, and the open itself never waits (O_NONBLOCK), so a hostile path can
 * neither hang the caller nor hold one of libuv's four file-system threads.
 */
import { constants } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';

export interface UserFileLimits {
  maxBytes: number;
  timeoutMs: number;
  /** Where the size limit comes from, for the message (e.g. "what is left of the agent's request limit"). */
  limitReason?: string;
}

export type UserFileProblem =
  | 'missing'
  | 'symlink'
  | 'not_regular'
  | 'too_large'
  | 'timeout'
  | 'unreadable'
  /** Read, but its content is not what it must be (e.g. a state file that is not JSON). */
  | 'corrupt';

/** A file that was refused or could not be read; the message names it, says why and what to do. */
export class UserFileError extends Error {
  override readonly name = 'UserFileError';
  constructor(
    readonly path: string,
    readonly problem: UserFileProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Flags that make open() fail instead of following a link swapped in, and return at once on a FIFO (0 where absent). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * The text (UTF-8) of the regular file at `path`; `label` says what it is for
 * messages ("the startup config configs/r1.cfg"). A symbolic link is refused:
 * callers that allow links resolve them first (and check where they lead).
 */
export async function readUserFile(path: string, label: string, limits: UserFileLimits): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new UserFileError(
            path,
            'timeout',
            `Could not read ${label} (${path}) within ${limits.timeoutMs} ms; is it on a slow or stalled file system?`,
          ),
        ),
      limits.timeoutMs,
    );
  });
  try {
    return await Promise.race([readChecked(path, label, limits), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readChecked(path: string, label: string, limits: UserFileLimits): Promise<string> {
  // lstat first: it never blocks, whatever the path is, and tells a FIFO from a file before any open.
  const info = await lstat(path).catch((err: unknown) => {
    throw failure(path, label, err);
  });
  checkKind(path, label, info, limits);
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (err) {
    throw failure(path, label, err);
  }
  try {
    // The path may have been replaced between lstat and open: check what was actually opened.
    const opened = await handle.stat();
    checkKind(path, label, opened, limits);
    const { maxBytes } = limits;
    // One byte more than the size, to notice a file that grew meanwhile; never more than the limit allows.
    let buffer = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw tooLarge(path, label, limits);
        const grown = Buffer.alloc(Math.min(length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(path, label, limits);
    return buffer.toString('utf8', 0, length);
  } catch (err) {
    throw err instanceof UserFileError ? err : failure(path, label, err);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function checkKind(
  path: string,
  label: string,
  info: { isFile(): boolean; isSymbolicLink(): boolean; isDirectory(): boolean; size: number },
  limits: UserFileLimits,
): void {
  if (info.isSymbolicLink()) {
    throw new UserFileError(path, 'symlink', `Refused ${label} (${path}): it is a symbolic link; use a regular file.`);
  }
  if (!info.isFile()) {
    const kind = info.isDirectory() ? 'a directory' : 'not a regular file (a pipe, socket or device)';
    throw new UserFileError(path, 'not_regular', `Refused ${label} (${path}): it is ${kind}; use a regular file.`);
  }
  if (info.size > limits.maxBytes) throw tooLarge(path, label, limits, info.size);
}

function tooLarge(path: string, label: string, limits: UserFileLimits, size?: number): UserFileError {
  const actual = size === undefined ? 'more than that' : `${size} bytes`;
  const reason = limits.limitReason === undefined ? '' : ` (${limits.limitReason})`;
  return new UserFileError(
    path,
    'too_large',
    `Refused ${label} (${path}): it is ${actual}, over the limit of ${limits.maxBytes} bytes${reason}; use a smaller file.`,
  );
}

function failure(path: string, label: string, err: unknown): UserFileError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new UserFileError(path, 'missing', `${capitalize(label)} (${path}) does not exist.`);
  }
  if (code === 'ELOOP') {
    return new UserFileError(path, 'symlink', `Refused ${label} (${path}): it is a symbolic link; use a regular file.`);
  }
  const reason = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
  return new UserFileError(path, 'unreadable', `Could not read ${label} (${path}): ${reason}.`);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
