/**
 * File names for what the agent sends back (import, reconcile from_emu): the
 * agent names config files by relative path, and those names must not reach
 * outside the lab's folder whatever the agent says.
 */
import { labPathProblem } from '../../common/api/lab-path';

/** The path segments of a safe relative path, or undefined for an unsafe one. */
export function safeRelativeSegments(name: string): string[] | undefined {
  if (typeof name !== 'string' || name === '' || name.includes('\0')) return undefined;
  const normalized = name.replace(/\\/g, '/');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized)) return undefined;
  const segments = normalized.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.some((s) => s === '..')) return undefined;
  return segments;
}

/** A folder/file name for an imported lab: letters, digits, dot, dash, underscore. */
export function labFileStem(name: string | undefined, fallback: string): string {
  const cleaned = (name ?? '')
    .replace(/\.unl$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return cleaned !== '' ? cleaned.slice(0, 80) : fallback;
}

/** The last path segment of an emulator lab path, without `.unl`: "/x/core.unl" → "core". */
export function emulatorLabBaseName(labPath: string): string {
  const last = labPath.split('/').filter(Boolean).pop() ?? '';
  return last.replace(/\.unl$/i, '');
}

/** Why what the user typed is not an emulator lab path: the agent's own rule (common/api/lab-path.ts), on the trimmed text. */
export function emulatorLabPathProblem(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return 'Enter the path of a lab on the emulator, e.g. /examples/campus.unl';
  return labPathProblem(v);
}

/** The lab's display name: the document's `name`, or the file name without `.lab.yaml`. */
export function labDisplayName(docName: string | undefined, fileName: string): string {
  if (docName !== undefined && docName.trim() !== '') return docName.trim();
  return fileName.replace(/\.lab\.ya?ml$/i, '').replace(/\.ya?ml$/i, '') || fileName;
}
