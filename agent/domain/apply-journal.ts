/**
 * The apply journal: a file per lab, written before an apply starts, brought
 * up to date as its steps finish, and removed when it ends (after the
 * emulator's state is durable). A file left over from an earlier run means
 * the agent stopped in the middle of changing that lab: the lab is marked
 * mid-apply until a push (reconcile to_emu) rolls it forward from what the
 * emulator has now, or it is destroyed or deployed with replace.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../storage/atomic-file';

/** What the journal file of one lab says. */
export interface JournalEntry {
  lab: string;
  operation: string;
  startedAt: string;
  /** Emulator steps of the apply, and how many had finished when the file was last written. */
  steps: number;
  done: number;
}

/**
 * Progress is written at most this often: each write is an fsync (about 8 ms here), and an apply of
 * thousands of steps must not spend its time on them. A crash loses at most this much progress, which
 * only the log reads: rolling forward works from what the emulator has, not from the count.
 */
const PROGRESS_WRITE_MS = 100;

/** The journal's file for a lab: a digest of its path, so any path makes a safe file name. */
export function journalFile(dataDir: string, lab: string): string {
  return join(dataDir, 'apply-journal', `${createHash('sha256').update(lab).digest('hex').slice(0, 32)}.json`);
}

export class ApplyJournal {
  private readonly dir: string;
  /** Labs whose apply was interrupted in an earlier run, with what the journal said. */
  private readonly interrupted = new Map<string, JournalEntry>();
  /** Applies under way, with the timer of a pending progress write. */
  private readonly running = new Map<string, { entry: JournalEntry; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly dataDir: string,
    log: (message: string) => void,
  ) {
    this.dir = join(dataDir, 'apply-journal');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const file of readdirSync(this.dir)) {
      if (!file.endsWith('.json')) continue;
      try {
        const entry = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as JournalEntry;
        if (typeof entry.lab !== 'string') throw new Error('no lab path');
        this.interrupted.set(entry.lab, entry);
        const progress = typeof entry.steps === 'number' ? ` after ${entry.done} of ${entry.steps} step(s)` : '';
        log(
          `Lab ${entry.lab}: the ${entry.operation} started at ${entry.startedAt} stopped${progress}; a push (reconcile to_emu) finishes it from what the emulator has, or destroy it.`,
        );
      } catch (e) {
        log(`Ignoring unreadable apply journal file ${file}: ${(e as Error).message}`);
      }
    }
  }

  isInterrupted(lab: string): boolean {
    return this.interrupted.has(lab);
  }

  /** The operation an earlier run did not finish on `lab`, if any. */
  interruptedOperation(lab: string): string | undefined {
    return this.interrupted.get(lab)?.operation;
  }

  begin(lab: string, operation: string): void {
    const entry: JournalEntry = { lab, operation, startedAt: new Date().toISOString(), steps: 0, done: 0 };
    this.running.set(lab, { entry });
    this.write(entry);
  }

  /** `done` of `steps` steps have finished; written a moment later, together with any that follow. */
  progress(lab: string, done: number, steps: number): void {
    const run = this.running.get(lab);
    if (!run) return;
    Object.assign(run.entry, { done, steps });
    run.timer ??= setTimeout(() => {
      run.timer = undefined;
      if (this.running.get(lab) === run) this.write(run.entry);
    }, PROGRESS_WRITE_MS);
  }

  /** The apply finished (or failed cleanly): the lab is consistent with what the emulator reports. */
  finish(lab: string): void {
    const run = this.running.get(lab);
    if (run?.timer) clearTimeout(run.timer);
    this.running.delete(lab);
    rmSync(journalFile(this.dataDir, lab), { force: true });
    this.interrupted.delete(lab);
  }

  /** The apply stopped without finishing (the agent is stopping): its file stays for the next run. */
  abandon(lab: string): void {
    const run = this.running.get(lab);
    if (!run) return;
    if (run.timer) clearTimeout(run.timer);
    this.running.delete(lab);
    this.write(run.entry);
  }

  private write(entry: JournalEntry): void {
    writeFileAtomic(journalFile(this.dataDir, entry.lab), JSON.stringify(entry));
  }
}
