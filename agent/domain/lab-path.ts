/**
 * Which emulator lab a request is about (decisions §1): the payload's `lab`,
 * else `state.lab` from an earlier deploy, import or reconcile, else the
 * document's name as /lab-agent/<name>.unl.
 */
import { isLabPath, labPathProblem } from '../../common/api/lab-path';
import { parseLab } from '../../common/lab/parse/parse';
import { DomainError } from './domain-error';

export const MANAGED_ROOT = '/lab-agent/';
export const IMPORTED_ROOT = '/lab-agent/imported/';

export function labPathForName(name: string): string | undefined {
  const path = `${MANAGED_ROOT}${name}.unl`;
  return isLabPath(path) && !name.includes('/') ? path : undefined;
}

export function stateLab(state: unknown): string | undefined {
  if (state && typeof state === 'object' && !Array.isArray(state)) {
    const lab = (state as Record<string, unknown>).lab;
    if (typeof lab === 'string' && isLabPath(lab)) return lab;
  }
  return undefined;
}

export function resolveLabPath(input: {
  lab?: string;
  state?: unknown;
  yaml?: string;
  docName?: () => string | undefined;
}): string {
  if (input.lab) {
    const problem = labPathProblem(input.lab);
    if (problem)
      throw new DomainError(
        'invalid_input',
        `"lab" must be an emulator lab path such as /lab-agent/core.unl: ${problem}`,
      );
    return input.lab;
  }
  const fromState = stateLab(input.state);
  if (fromState) return fromState;
  const name = input.docName
    ? input.docName()
    : input.yaml !== undefined
      ? parseLab(input.yaml).name?.value
      : undefined;
  if (name !== undefined) {
    const path = labPathForName(name);
    if (!path)
      throw new DomainError(
        'invalid_document',
        `The lab name "${name}" cannot be an emulator lab path; use letters, digits, spaces, "_", "+" and "-".`,
      );
    return path;
  }
  throw new DomainError(
    'invalid_input',
    'Say which lab: send "lab" (an emulator lab path), the "state" of an earlier deploy, or a document in "yaml" that has a name.',
  );
}
