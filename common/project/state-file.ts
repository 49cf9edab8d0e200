/**
 * Where a lab's agent state lives on disk: `<lab dir>/.lab-agent/<lab file>.state.json`.
 * The agent's `state` and `source` are opaque; we store them as received and
 * send them back unchanged (decisions §1).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface LabStateFile {
  /** The managed lab path the agent reported (e.g. after an import). */
  lab?: string;
  state?: unknown;
  source?: unknown;
  manifest?: string;
}

export const STATE_DIR_NAME = '.lab-agent';

export function statePathFor(labPath: string): string {
  return join(dirname(labPath), STATE_DIR_NAME, `${basename(labPath)}.state.json`);
}

/** The stored state, or undefined when there is none or it cannot be read; never throws. */
export async function readLabState(labPath: string): Promise<LabStateFile | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(statePathFor(labPath), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  // A hand-edited file may carry wrong-typed fields: keep what is usable rather than nothing.
  const result: LabStateFile = {};
  if (typeof record.lab === 'string') result.lab = record.lab;
  if (record.state !== undefined) result.state = record.state;
  if (record.source !== undefined) result.source = record.source;
  if (typeof record.manifest === 'string') result.manifest = record.manifest;
  return result;
}

/** Writes the state atomically: a crash mid-write leaves the previous file intact. */
export async function writeLabState(labPath: string, value: LabStateFile): Promise<void> {
  const target = statePathFor(labPath);
  await mkdir(dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, 'utf8');
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
