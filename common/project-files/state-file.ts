/**
 * Where a lab's agent state lives on disk: `<lab dir>/.lab-agent/<lab file>.state.json`.
 * The agent's `state` and `source` are opaque; we store them as received and
 * send them back unchanged (decisions §1).
 *
 * The file links the lab to what the agent deployed or imported, so it is never
 * silently taken for "no state": a corrupt file is reported (and can be set
 * aside with setAsideLabState), and a `.lab-agent` that is a symbolic link, or
 * a state file that is not a regular file, is refused for reads and writes.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MAX_BODY_BYTES } from '../api/contract';
import { readUserFile, UserFileError } from './user-file';

export interface LabStateFile {
  /** The managed lab path the agent reported (e.g. after an import). */
  lab?: string;
  state?: unknown;
  source?: unknown;
  manifest?: string;
}

export const STATE_DIR_NAME = '.lab-agent';
const STATE_GITIGNORE =
  "# Made by Lab Agent: the deployment state of this folder's labs is kept out of version control.\n*\n";
/** The state is sent in a request to the agent, so it can never be larger than one. */
const STATE_MAX_BYTES = MAX_BODY_BYTES;
const STATE_READ_TIMEOUT_MS = 5000;

export function statePathFor(labPath: string): string {
  return join(dirname(labPath), STATE_DIR_NAME, `${basename(labPath)}.state.json`);
}

/**
 * The stored state, or undefined when there is none. Throws UserFileError:
 * 'corrupt' when the file is not a JSON object, and the reader's problems
 * when the folder or the file is refused.
 */
export async function readLabState(labPath: string): Promise<LabStateFile | undefined> {
  if (!(await checkStateFolder(labPath, false))) return undefined;
  const path = statePathFor(labPath);
  let text: string;
  try {
    text = await readUserFile(path, 'the lab state file', {
      maxBytes: STATE_MAX_BYTES,
      timeoutMs: STATE_READ_TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof UserFileError && err.problem === 'missing') return undefined;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw corrupt(path, `it is not valid JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw corrupt(path, 'it is not a JSON object');
  }
  const record = parsed as Record<string, unknown>;
  // A hand-edited file may carry wrong-typed fields: keep what is usable rather than nothing.
  const result: LabStateFile = {};
  if (typeof record.lab === 'string') result.lab = record.lab;
  if (record.state !== undefined) result.state = record.state;
  if (record.source !== undefined) result.source = record.source;
  if (typeof record.manifest === 'string') result.manifest = record.manifest;
  return result;
}

/**
 * Moves a state file aside, to `<name>.<why>-<time>` beside it (`corrupt`, or
 * the agent a moved lab left), so the next read starts without stored state and
 * nothing is lost; returns the new path.
 */
export async function setAsideLabState(labPath: string, why = 'corrupt'): Promise<string> {
  const path = statePathFor(labPath);
  const aside = `${path}.${why}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(path, aside);
  return aside;
}

/** Writes the state atomically: a crash mid-write leaves the previous file intact. */
export async function writeLabState(labPath: string, value: LabStateFile): Promise<void> {
  const target = statePathFor(labPath);
  const created = await mkdir(dirname(target), { recursive: true });
  await checkStateFolder(labPath, true);
  // The state belongs to this machine's deployment, not to the lab's source: a folder made here
  // keeps itself out of git (as a Python venv does). A folder the user made is left as it is.
  if (created !== undefined) await writeFile(join(dirname(target), '.gitignore'), STATE_GITIGNORE, { flag: 'wx' });
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 'wx': never write through something already at the temporary name.
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Whether the `.lab-agent` folder exists; throws when it is a symbolic link
 * (writes would land wherever it points) or not a folder.
 */
async function checkStateFolder(labPath: string, mustExist: boolean): Promise<boolean> {
  const folder = dirname(statePathFor(labPath));
  let info;
  try {
    info = await lstat(folder);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (!mustExist && (code === 'ENOENT' || code === 'ENOTDIR')) return false;
    throw new UserFileError(
      folder,
      'unreadable',
      `Could not use the lab state folder ${folder}: ${String(code ?? err)}.`,
    );
  }
  if (info.isSymbolicLink()) {
    throw new UserFileError(
      folder,
      'symlink',
      `Refused the lab state folder ${folder}: it is a symbolic link, so the lab's state would be read from or written outside the lab's folder. Replace it with a real folder.`,
    );
  }
  if (!info.isDirectory()) {
    throw new UserFileError(
      folder,
      'not_regular',
      `Refused the lab state folder ${folder}: it is not a folder. Move it away so Lab Agent can create the folder.`,
    );
  }
  return true;
}

function corrupt(path: string, why: string): UserFileError {
  return new UserFileError(path, 'corrupt', `The lab state file ${path} is corrupt: ${why}.`);
}
