/**
 * The rules of the lab format that more than one module needs: which keys each
 * map accepts, which values are allowed, and how to say so to a network
 * engineer. docs/lab-format.md describes the same rules in prose, and
 * syntaxes/lab.schema.json encodes them for the YAML extension.
 */
import type { NODE_FIELD_NAMES } from '../model/types';

export const TOP_LEVEL_KEYS = ['name', 'description', 'defaults', 'nodes', 'networks', 'links', 'tests'] as const;
export const NETWORK_KEYS = ['type'] as const;
export const LINK_KEYS = ['endpoints'] as const;
export const POSITION_KEYS = ['x', 'y'] as const;
export const CONSOLE_TYPES = ['telnet', 'vnc', 'rdp'] as const;

/** A network without `type` is a plain bridge, as in the emulator's own editor. */
export const DEFAULT_NETWORK_TYPE = 'bridge';

/**
 * Node and network names end up in endpoints (`r1:Gi0/0`), emulator names, host names and
 * command lines: a leading `-` would read as an option, and a host name takes at most 63
 * characters (RFC 1123).
 */
export const ELEMENT_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/;
export const MAX_ELEMENT_NAME_LENGTH = 63;
/** The lab name becomes the emulator path /lab-agent/<name>.unl (contract decisions §1). */
export const LAB_NAME_PATTERN = /^[A-Za-z0-9 _+-]+$/;

export interface NumberLimits {
  min: number;
  max: number;
  example: number;
  /** What the number counts, for messages. */
  meaning: string;
}

export const NUMBER_FIELDS: Readonly<Record<'cpu' | 'ram' | 'ethernet', NumberLimits>> = {
  cpu: { min: 1, max: 64, example: 2, meaning: 'virtual CPUs' },
  ram: { min: 1, max: 1048576, example: 1024, meaning: 'MB of memory' },
  ethernet: { min: 1, max: 64, example: 4, meaning: 'ethernet interfaces' },
};

export const POSITION_LIMITS: NumberLimits = {
  min: 0,
  max: 100000,
  example: 100,
  meaning: 'pixels on the topology canvas',
};

/** Text files larger than this are not read: no lab needs it, and parsing would stall the editor. */
export const MAX_LAB_TEXT_LENGTH = 8 * 1024 * 1024;

/** "a, b or c" (or "a, b and c") */
export function listInProse(items: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

/** An example of each node field, used in messages and kept in step with the schema. */
export const NODE_FIELD_EXAMPLES: Readonly<Record<(typeof NODE_FIELD_NAMES)[number], string>> = {
  template: 'template: vios',
  image: 'image: vios-adventerprisek9-m.SPA.159-3.M6',
  icon: 'icon: Router.png',
  cpu: 'cpu: 2',
  ram: 'ram: 1024',
  ethernet: 'ethernet: 4',
  console: 'console: telnet',
  config: 'config: configs/r1.cfg',
  position: 'position: {x: 100, y: 200}',
};

export const ENDPOINT_EXAMPLE = 'r1:Gi0/0';
export const LINK_EXAMPLE = '- endpoints: [r1:Gi0/0, r2:Gi0/0]';
