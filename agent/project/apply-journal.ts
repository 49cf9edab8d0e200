/**
 * The apply journal: a file per lab, written before an apply starts and removed
 * when it ends. A file left over from an earlier run means the agent stopped
 * in the middle of changing that lab, so the lab is locked (lab_locked_mid_apply)
 * until it is destroyed or deployed again with replace.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../storage/atomic-file';

interface JournalEntry {
  lab: string;
  operation: string;
  startedAt: string;
}

export class ApplyJournal {
  private readonly dir: string;
  /** Labs whose apply was interrupted in an earlier run. */
  private readonly interrupted = new Set<string>();

  constructor(dataDir: string, log: (message: string) => void) {
    this.dir = join(dataDir, 'apply-journal');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const file of readdirSync(this.dir)) {
      if (!file.endsWith('.json')) continue;
      try {
        const entry = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as JournalEntry;
        if (typeof entry.lab !== 'string') throw new Error('no lab path');
        this.interrupted.add(entry.lab);
        log(
          `Lab ${entry.lab}: the ${entry.operation} started at ${entry.startedAt} did not finish; the lab stays locked until it is destroyed or deployed with replace.`,
        );
      } catch (e) {
        log(`Ignoring unreadable apply journal file ${file}: ${(e as Error).message}`);
      }
    }
  }

  isInterrupted(lab: string): boolean {
    return this.interrupted.has(lab);
  }

  begin(lab: string, operation: string): void {
    const entry: JournalEntry = { lab, operation, startedAt: new Date().toISOString() };
    writeFileAtomic(this.fileOf(lab), JSON.stringify(entry));
  }

  /** The apply finished (or failed cleanly): the lab is consistent with what the emulator reports. */
  finish(lab: string): void {
    rmSync(this.fileOf(lab), { force: true });
    this.interrupted.delete(lab);
  }

  private fileOf(lab: string): string {
    return join(this.dir, `${createHash('sha256').update(lab).digest('hex').slice(0, 32)}.json`);
  }
}
