/**
 * The data directory holds the TLS key, every lab's configuration and the
 * lab owners: only the agent's own user may enter it (0700), and its files are
 * written 0600 (atomic-file.ts). Files and folders an older agent left open to
 * others are closed on start (deeper entries are out of reach behind them).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    // Links are left alone: their targets are not the agent's to change.
    if (stat.isFile() && (stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & FILE_MODE);
    else if (stat.isDirectory() && (stat.mode & 0o077) !== 0) chmodSync(path, DIR_MODE);
  }
}
