/**
 * The startup configs of the open labs: read through a cache per lab (a
 * config is read again only when the watcher heard of a change in its
 * directory, or when its size or modification time changed where it is not
 * watched), and watched, so that creating, changing or deleting one re-validates and
 * re-plans the labs that name it without an edit of the lab file. Each
 * directory that holds (or will hold) a named config is watched once, with
 * Node's own watcher (inotify on Linux): the nearest existing directory when
 * the config's own does not exist yet, so that creating it is seen too.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigFileCache } from '../common/project-files/config-cache';
import { configNames, isInsideFolder } from '../common/project-files/payload';
import type { LabDocument } from '../common/lab/model/types';
import type { Log } from './log';

/** Events of one save come in bursts: a lab hears of them once, this long after the first. */
const SETTLE_MS = 100;

interface Watched {
  watcher: FSWatcher;
  /** The labs (URIs) that name a config in or below this directory. */
  labs: Set<string>;
}

export class ConfigFiles {
  private readonly caches = new Map<string, ConfigFileCache>();
  private readonly watched = new Map<string, Watched>();
  /** Per lab, the directories it watches: to let go of them when it closes or names others. */
  private readonly dirsOf = new Map<string, Set<string>>();
  /** Labs told of a change once the burst settles. */
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /** `changed` hears of each open lab one of whose configs may have changed. */
  constructor(
    private readonly changed: (uri: string) => void,
    private readonly log: Log,
  ) {}

  /** The cache of the lab's configs. */
  cacheOf(uri: string): ConfigFileCache {
    let cache = this.caches.get(uri);
    if (!cache) {
      // A config in a directory this lab watches is trusted until the watcher hears of a change there.
      cache = new ConfigFileCache((path) => this.watched.get(dirname(path))?.labs.has(uri) === true);
      this.caches.set(uri, cache);
    }
    return cache;
  }

  /** Watches the directories of the configs the lab names now (and no others). */
  follow(uri: string, path: string, model: LabDocument): void {
    const labDir = dirname(resolve(path));
    const named = new Set<string>();
    for (const name of configNames(model)) if (isInsideFolder(labDir, name)) named.add(dirname(resolve(labDir, name)));
    const dirs = new Set<string>();
    for (let dir of named) {
      while (dir !== labDir && !existsSync(dir)) dir = dirname(dir);
      dirs.add(dir);
    }
    const before = this.dirsOf.get(uri) ?? new Set<string>();
    for (const dir of before) if (!dirs.has(dir)) this.unwatch(dir, uri);
    for (const dir of dirs) if (!before.has(dir)) this.watch(dir, uri);
    this.dirsOf.set(uri, dirs);
  }

  close(uri: string): void {
    for (const dir of this.dirsOf.get(uri) ?? []) this.unwatch(dir, uri);
    this.dirsOf.delete(uri);
    this.caches.delete(uri);
  }

  private watch(dir: string, uri: string): void {
    const known = this.watched.get(dir);
    if (known) {
      known.labs.add(uri);
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => this.saw(dir, name));
    } catch (error) {
      // Gone since it was found, or out of watches: the stat check of each read still keeps the cache right.
      this.log.warn(`cannot watch ${dir} for config changes: ${(error as Error).message}`);
      return;
    }
    watcher.on('error', () => this.lost(dir));
    this.watched.set(dir, { watcher, labs: new Set([uri]) });
  }

  private unwatch(dir: string, uri: string): void {
    const known = this.watched.get(dir);
    if (!known) return;
    known.labs.delete(uri);
    // Changes there are no longer heard for this lab: what it read there must be checked on disk again.
    this.caches.get(uri)?.forgetWatched();
    if (known.labs.size === 0) this.drop(dir);
  }

  private drop(dir: string): void {
    this.watched.get(dir)?.watcher.close();
    this.watched.delete(dir);
  }

  /**
   * The watcher of `dir` failed, or the directory itself was moved or deleted (its watcher follows the old
   * directory, not a new one made in its place): its labs watch afresh at their next build.
   */
  private lost(dir: string): void {
    for (const uri of this.watched.get(dir)?.labs ?? []) {
      this.caches.get(uri)?.forgetWatched();
      this.dirsOf.get(uri)?.delete(dir);
    }
    this.drop(dir);
  }

  private saw(dir: string, name: string | Buffer | null): void {
    const labs = this.watched.get(dir)?.labs;
    if (!labs) return;
    // Linux names the directory itself when it is moved or deleted.
    const itself = name === null || name.toString() === basename(dir);
    for (const uri of labs) {
      this.caches.get(uri)?.forget(itself ? dir : join(dir, name.toString()));
      this.due.add(uri);
    }
    if (itself) this.lost(dir);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const due = [...this.due];
      this.due.clear();
      for (const uri of due) if (this.dirsOf.has(uri)) this.changed(uri);
    }, SETTLE_MS);
  }
}
