/**
 * The namespaces (and with them FRR path spaces and run directories) this
 * agent created, written to the data directory BEFORE each is created and
 * dropped after it is removed. After a crash, the next start reads it to find
 * leftovers: exactly what this agent made, and nothing else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../storage/atomic-file';

const FILE = 'linux-objects.json';

export class ObjectJournal {
  private readonly file: string;
  private readonly names = new Set<string>();

  constructor(dataDir: string, log: (message: string) => void) {
    this.file = join(dataDir, FILE);
    if (!existsSync(this.file)) return;
    try {
      const saved = JSON.parse(readFileSync(this.file, 'utf8')) as { namespaces?: unknown };
      if (Array.isArray(saved.namespaces))
        for (const name of saved.namespaces) if (typeof name === 'string') this.names.add(name);
    } catch (e) {
      log(
        `The Linux emulator's object journal ${this.file} is unreadable (${(e as Error).message}); leftovers are found by name prefix only.`,
      );
    }
  }

  get recorded(): string[] {
    return [...this.names];
  }

  record(namespace: string): void {
    if (this.names.has(namespace)) return;
    this.names.add(namespace);
    this.save();
  }

  forget(namespace: string): void {
    if (this.names.delete(namespace)) this.save();
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify({ namespaces: [...this.names] }));
  }
}
