/**
 * The ProjectPayload for a lab file as it is being edited: its text, the
 * startup configs its nodes name, and the state stored beside it. Shared by the
 * language server (validate, plan) and the extension host (every project call).
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { MAX_BODY_BYTES, type ProjectPayload } from '../api/contract';
import type { LabDocument } from '../lab/model/types';
import type { ConfigFileCache } from './config-cache';
import { readLabState, type LabStateFile } from './state-file';
import { readUserFile, UserFileError } from './user-file';

/** Per config file: a slow file system must not stall validation (the reads run one after another). */
const CONFIG_READ_TIMEOUT_MS = 5000;

/**
 * Throws UserFileError when a config the lab names is refused (not a regular
 * file, too large, too slow) or the state file is corrupt or refused. With a
 * cache, configs whose size and modification time did not change are not read again,
 * and those the cache's watcher has heard nothing of are not even looked at (config-cache.ts).
 */
export async function buildProjectPayload(
  labPath: string,
  text: string,
  doc: LabDocument,
  cache?: ConfigFileCache,
): Promise<ProjectPayload> {
  const [files, stored] = await Promise.all([readLabConfigs(labPath, text, doc, cache), readLabState(labPath)]);
  return payloadOf(text, files, stored);
}

/**
 * The payload with the stored state the caller read already (a command reads
 * the state file once, when it loads the lab), so only the configs are read.
 */
export async function buildProjectPayloadWithState(
  labPath: string,
  text: string,
  doc: LabDocument,
  stored: LabStateFile | undefined,
): Promise<ProjectPayload> {
  return payloadOf(text, await readLabConfigs(labPath, text, doc, undefined), stored);
}

function readLabConfigs(
  labPath: string,
  text: string,
  doc: LabDocument,
  cache: ConfigFileCache | undefined,
): Promise<Record<string, string>> {
  return readConfigFiles(dirname(resolve(labPath)), doc, MAX_BODY_BYTES - Buffer.byteLength(text), cache);
}

function payloadOf(text: string, files: Record<string, string>, stored: LabStateFile | undefined): ProjectPayload {
  const payload: ProjectPayload = { yaml: text, files };
  if (stored?.state !== undefined) payload.state = stored.state;
  if (stored?.source !== undefined) payload.source = stored.source;
  if (stored?.manifest !== undefined) payload.manifest = stored.manifest;
  return payload;
}

/**
 * Every node's startup config (defaults applied), keyed by the path as written
 * in the lab. Read one after another within `budget` bytes in all: what does
 * not fit in one request to the agent is refused before it is read.
 */
async function readConfigFiles(
  labDir: string,
  doc: LabDocument,
  budget: number,
  cache: ConfigFileCache | undefined,
): Promise<Record<string, string>> {
  cache?.begin();
  const files: Record<string, string> = {};
  let left = budget;
  for (const name of configNames(doc)) {
    const content = await readInsideFolder(labDir, name, Math.max(0, left), cache);
    // Missing or escaping files are left out: validate reports them to the user.
    if (content === undefined) continue;
    files[name] = content;
    left -= Buffer.byteLength(content);
  }
  return files;
}

/** The startup configs the lab's nodes name (defaults applied), as written. */
export function configNames(doc: LabDocument): Set<string> {
  const names = new Set<string>();
  doc.forEachAsRead('nodes', (node) => {
    if (typeof node.resolved.config === 'string' && node.resolved.config !== '') names.add(node.resolved.config);
  });
  return names;
}

/** Whether `name` stays inside `folder` once resolved (before symlinks, which the read checks). */
export function isInsideFolder(folder: string, name: string): boolean {
  return !isAbsolute(name) && isInside(folder, resolve(folder, name));
}

async function readInsideFolder(
  folder: string,
  name: string,
  maxBytes: number,
  cache: ConfigFileCache | undefined,
): Promise<string | undefined> {
  if (!isInsideFolder(folder, name)) return undefined;
  const path = resolve(folder, name);
  // Read while watched, and no change heard of since: no need to look at the disk.
  const unchanged = cache?.unchanged(path);
  if (unchanged && unchanged.bytes <= maxBytes) return unchanged.content;
  const mark = cache?.mark() ?? 0;
  let realFile: string;
  try {
    // Resolve symlinks too: a link inside the folder must not expose a file outside it.
    const [realFolder, resolved] = await Promise.all([realpath(folder), realpath(path)]);
    if (!isInside(realFolder, resolved)) return undefined;
    realFile = resolved;
  } catch {
    return undefined;
  }
  let size = -1;
  let mtimeMs = -1;
  if (cache) {
    try {
      ({ size, mtimeMs } = await stat(realFile));
    } catch {
      return undefined;
    }
    const known = cache.lookup(realFile, size, mtimeMs);
    if (known && known.bytes <= maxBytes) return known.content;
  }
  const limitReason = `what is left of the ${MAX_BODY_BYTES} bytes the agent accepts in one request after the lab and its other configs`;
  try {
    const content = await readUserFile(realFile, `the startup config ${name}`, {
      maxBytes,
      timeoutMs: CONFIG_READ_TIMEOUT_MS,
      limitReason,
    });
    // Stored with the size and time seen before the read: a change during it shows at the next stat.
    cache?.store(realFile, size, mtimeMs, content, path, mark);
    return content;
  } catch (err) {
    // Gone since realpath: left out like any missing file.
    if (err instanceof UserFileError && err.problem === 'missing') return undefined;
    throw err;
  }
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
