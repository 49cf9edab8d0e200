/**
 * Command arguments, from wherever a command is run: a code lens passes
 * `{ uri, node? }` (LensCommandArgs), a tree row passes its item (which carries
 * `data: { uri, node? }`), the explorer passes a Uri, automation passes an
 * object of answers that skip the prompts. Anything else is ignored, never trusted.
 */

export interface CommandTarget {
  /** The lab document's URI, as a string. */
  uri: string;
  node?: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A non-empty string, or undefined. */
export function stringArg(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A Uri object (vscode.Uri or its JSON form): has a scheme and a path and prints itself. */
interface PrintableUri {
  scheme: string;
  path: string;
  toString(): unknown;
}

function isPrintableUri(value: unknown): value is PrintableUri {
  const r = record(value);
  return (
    r !== undefined &&
    typeof r.scheme === 'string' &&
    typeof r.path === 'string' &&
    typeof r.toString === 'function' &&
    r.toString !== Object.prototype.toString
  );
}

function uriString(value: unknown): string | undefined {
  if (typeof value === 'string') return stringArg(value);
  return isPrintableUri(value) ? stringArg(value.toString()) : undefined;
}

export function targetOfArg(arg: unknown): CommandTarget | undefined {
  const direct = uriString(arg);
  if (direct !== undefined) return { uri: direct };
  const r = record(arg);
  if (r === undefined) return undefined;
  // Tree items carry their target under `data`.
  const data = record(r.data);
  const source = data && uriString(data.uri) ? data : r;
  const uri = uriString(source.uri);
  if (uri === undefined) return undefined;
  const node = stringArg(source.node);
  return node === undefined ? { uri } : { uri, node };
}

export interface LoginArgs {
  /** The agent to log in to, by name (labAgent.agents; "default" for the single-agent settings). */
  agent?: string;
  url?: string;
  username?: string;
  password?: string;
  pin?: string;
}

export function loginArgsOf(arg: unknown): LoginArgs {
  const r = record(arg) ?? {};
  return {
    agent: stringArg(r.agent),
    url: stringArg(r.url),
    username: stringArg(r.username),
    password: typeof r.password === 'string' ? r.password : undefined,
    pin: stringArg(r.pin),
  };
}

/** Stop modes of the contract (ProjectPayload.stopmode). */
export const STOP_MODES = [
  { value: 3, label: 'Auto', detail: 'Let the emulator choose (default).' },
  { value: 0, label: 'Graceful', detail: 'Ask the node to shut down cleanly.' },
  { value: 1, label: 'Power off', detail: 'Cut the power at once.' },
  { value: 2, label: 'Hibernate', detail: 'Save the running state and stop.' },
] as const;
export type StopMode = (typeof STOP_MODES)[number]['value'];

export function stopModeOf(value: unknown): StopMode | undefined {
  return STOP_MODES.find((m) => m.value === value)?.value;
}

/** The reconcile direction named in an argument, if any. */
export function directionOf(value: unknown): 'to_emu' | 'from_emu' | undefined {
  return value === 'to_emu' || value === 'from_emu' ? value : undefined;
}

export function booleanArg(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A field of an argument object, if the argument is an object. */
export function fieldOf(arg: unknown, key: string): unknown {
  return record(arg)?.[key];
}

/** A list of node names from an argument (exec-many automation). */
export function nodeListOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names = value.filter((v): v is string => typeof v === 'string' && v !== '');
  return names.length > 0 ? names : undefined;
}
