/**
 * Startup configs already read, kept while their size and modification time
 * stay the same: the language server builds a lab's payload after every pause
 * in typing, and a lab of 10,000 nodes names 2,000 configs that seldom change.
 * Bounded by what the lab names: an entry not used by one build is dropped by
 * the next (begin), so the cache holds the configs of at most two builds.
 */
interface Entry {
  size: number;
  mtimeMs: number;
  bytes: number;
  content: string;
}

export class ConfigFileCache {
  private current = new Map<string, Entry>();
  private previous = new Map<string, Entry>();

  /** A build starts: what the last one did not use is let go. */
  begin(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  /** The content of `path` as last read, if its size and modification time are still these. */
  lookup(path: string, size: number, mtimeMs: number): { content: string; bytes: number } | undefined {
    const entry = this.current.get(path) ?? this.previous.get(path);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return undefined;
    this.current.set(path, entry);
    return entry;
  }

  store(path: string, size: number, mtimeMs: number, content: string): void {
    this.current.set(path, { size, mtimeMs, bytes: Buffer.byteLength(content), content });
  }

  /** A file changed in a way its size and time may not show (a watcher said so). */
  forget(path: string): void {
    this.current.delete(path);
    this.previous.delete(path);
  }
}
