/**
 * One agent per data directory (decisions §12): a second agent on the same directory would take
 * the first one's labs for leftovers of a crash and remove them. The lock is a file holding the
 * agent's pid, made with O_EXCL; a lock whose process is gone (a crash, kill -9) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'agent.lock';

export interface DataDirLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  // Twice at most: once more after removing a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new Error(
          `another agent (pid ${pid}) is using the data directory ${dataDir}; stop it first, or give this one its own --data-dir`,
          { cause: e },
        );
      unlinkSync(path);
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        try {
          unlinkSync(path);
        } catch {
          // already gone (the directory was removed)
        }
      },
    };
  }
  throw new Error(`the lock file ${path} keeps coming back; is another agent starting on ${dataDir}?`);
}
