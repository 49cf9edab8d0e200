/**
 * The ProjectPayload for a lab file as it is being edited: its text, the
 * startup configs its nodes name, and the state stored beside it. Shared by the
 * language server (validate, plan) and the extension host (every project call).
 */
import { readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { ProjectPayload } from '../api/contract';
import type { LabDocument } from '../lab/types';
import { readLabState } from './state-file';

export async function buildProjectPayload(labPath: string, text: string, doc: LabDocument): Promise<ProjectPayload> {
  const labDir = dirname(resolve(labPath));
  const [files, stored] = await Promise.all([readConfigFiles(labDir, doc), readLabState(labPath)]);
  const payload: ProjectPayload = { yaml: text, files };
  if (stored?.state !== undefined) payload.state = stored.state;
  if (stored?.source !== undefined) payload.source = stored.source;
  if (stored?.manifest !== undefined) payload.manifest = stored.manifest;
  return payload;
}

/** Every node's startup config (defaults applied), keyed by the path as written in the lab. */
async function readConfigFiles(labDir: string, doc: LabDocument): Promise<Record<string, string>> {
  const names = new Set<string>();
  for (const node of doc.nodes) {
    if (typeof node.resolved.config === 'string' && node.resolved.config !== '') names.add(node.resolved.config);
  }
  const files: Record<string, string> = {};
  await Promise.all(
    [...names].map(async (name) => {
      const content = await readInsideFolder(labDir, name);
      // Missing, unreadable or escaping files are left out: validate reports them to the user.
      if (content !== undefined) files[name] = content;
    }),
  );
  return files;
}

async function readInsideFolder(folder: string, name: string): Promise<string | undefined> {
  if (isAbsolute(name) || !isInside(folder, resolve(folder, name))) return undefined;
  try {
    // Resolve symlinks too: a link inside the folder must not expose a file outside it.
    const [realFolder, realFile] = await Promise.all([realpath(folder), realpath(resolve(folder, name))]);
    if (!isInside(realFolder, realFile)) return undefined;
    return await readFile(realFile, 'utf8');
  } catch {
    return undefined;
  }
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
