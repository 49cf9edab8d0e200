/**
 * Startup configs already read, kept while their size and modification time
 * stay the same: the language server builds a lab's payload after every pause
 * in typing, and a lab of 10,000 nodes names 2,000 configs that seldom change.
 * Bounded by what the lab names: an entry not used by one build is dropped by
 * the next (begin), so the cache holds the configs of at most two builds.
 *
 * A config read while its directory is watched (the language server watches
 * the directory of every config its labs name) is kept without looking at the
 * disk at all until the watcher says something in that directory changed
 * (forget): checking size and time costs three file-system calls a config at
 * each pause in typing, 30,000 at 10,000 nodes.
 */
import { sep } from 'node:path';

interface Entry {
  size: number;
  mtimeMs: number;
  bytes: number;
  content: string;
}

/** Two generations of entries: what one build used, and what the build before it used. */
class Generations<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  begin(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  get(key: string): V | undefined {
    const value = this.current.get(key) ?? this.previous.get(key);
    if (value !== undefined) this.current.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.current.set(key, value);
  }

  /** Drops `path` and everything under it (a directory created, renamed or deleted). */
  deleteUnder(path: string): void {
    for (const map of [this.current, this.previous])
      for (const key of map.keys()) if (key === path || key.startsWith(path + sep)) map.delete(key);
  }

  clear(): void {
    this.current.clear();
    this.previous.clear();
  }
}

export class ConfigFileCache {
  /** By real path, with the size and time they were read at. */
  private readonly read = new Generations<Entry>();
  /** By path as named (resolved, no symbolic link on the way): trusted while the watcher is silent. */
  private readonly watchedReads = new Generations<Entry>();
  /** Counts forgets: a read that a forget overtook is not trusted (the file changed while it was read). */
  private forgets = 0;

  /** `watches(path)` says whether changes to the file at `path` are seen (forget); none are without it. */
  constructor(private readonly watches: (path: string) => boolean = () => false) {}

  /** A build starts: what the last one did not use is let go. */
  begin(): void {
    this.read.begin();
    this.watchedReads.begin();
  }

  /** The content of the file at `path` (resolved, not real) when it was read while watched and has not changed since. */
  unchanged(path: string): { content: string; bytes: number } | undefined {
    return this.watchedReads.get(path);
  }

  /** The content of `realPath` as last read, if its size and modification time are still these. */
  lookup(realPath: string, size: number, mtimeMs: number): { content: string; bytes: number } | undefined {
    const entry = this.read.get(realPath);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return undefined;
    return entry;
  }

  /** A mark to pass to store: taken before a read, it tells whether a change was heard during it. */
  mark(): number {
    return this.forgets;
  }

  /**
   * Stores what was read from `realPath`; also as `path` (the config as named, resolved)
   * when that is the same file, no change was heard since `mark` and changes to it are watched.
   */
  store(realPath: string, size: number, mtimeMs: number, content: string, path: string, mark: number): void {
    const entry = { size, mtimeMs, bytes: Buffer.byteLength(content), content };
    this.read.set(realPath, entry);
    if (path === realPath && mark === this.forgets && this.watches(path)) this.watchedReads.set(path, entry);
  }

  /** Something at `path` changed in a way its size and time may not show (a watcher said so). */
  forget(path: string): void {
    this.forgets++;
    this.read.deleteUnder(path);
    this.watchedReads.deleteUnder(path);
  }

  /** Changes are no longer heard (a watcher closed or failed): every config is checked on disk again. */
  forgetWatched(): void {
    this.forgets++;
    this.watchedReads.clear();
  }
}
