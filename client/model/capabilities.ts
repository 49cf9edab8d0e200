/**
 * What the agent allows, from getCapabilities. Every action the extension
 * offers is checked here, both to hide it (context keys, tree item context
 * values) and to explain a refusal when a command is run anyway.
 *
 * Missing flags count as "not allowed": an agent that does not say it supports
 * something is not asked to do it.
 */
import type { CapabilitiesData, LifecycleCaps, ProjectModeCaps } from '../../common/api/contract';

/** Actions on one lab (or one of its nodes). */
export type LabAction =
  | 'validate'
  | 'plan'
  | 'deploy'
  | 'reconcileToEmu'
  | 'reconcileFromEmu'
  | 'destroy'
  | 'status'
  | 'inspect'
  | 'open'
  | 'consoles'
  | 'start'
  | 'stop'
  | 'wipe'
  | 'consoleExec'
  | 'consoleAttach'
  | 'capture';

export const LAB_ACTIONS: readonly LabAction[] = [
  'validate',
  'plan',
  'deploy',
  'reconcileToEmu',
  'reconcileFromEmu',
  'destroy',
  'status',
  'inspect',
  'open',
  'consoles',
  'start',
  'stop',
  'wipe',
  'consoleExec',
  'consoleAttach',
  'capture',
];

/** Project modes of decisions §6: a lab deployed from its document, or an import copy. */
export type ProjectMode = 'managed' | 'imported';

interface Requirement {
  /** The `features` flag the action needs. */
  feature: string;
  /** The project-mode flags it needs too (none: the feature alone decides). */
  mode?: (keyof Omit<ProjectModeCaps, 'lifecycle'>)[];
  lifecycle?: keyof LifecycleCaps;
  /** What the user would be doing, for messages. */
  verb: string;
}

const REQUIREMENTS: Record<LabAction, Requirement> = {
  validate: { feature: 'validate', verb: 'validate labs' },
  plan: { feature: 'plan', verb: 'plan labs' },
  deploy: { feature: 'deploy', mode: ['topology_mutation'], verb: 'deploy labs' },
  reconcileToEmu: {
    feature: 'reconcile',
    mode: ['reconcile', 'topology_mutation'],
    verb: 'push changes to the emulator',
  },
  reconcileFromEmu: { feature: 'reconcile', mode: ['reconcile'], verb: 'pull changes from the emulator' },
  destroy: { feature: 'destroy', mode: ['destroy'], verb: 'destroy labs' },
  status: { feature: 'status', verb: 'show lab status' },
  inspect: { feature: 'inspect', mode: ['inspect'], verb: 'inspect labs' },
  open: { feature: 'open', mode: ['open'], verb: 'open labs in the emulator' },
  consoles: { feature: 'consoles', mode: ['console'], verb: 'list consoles' },
  start: { feature: 'exec', lifecycle: 'start', verb: 'start nodes' },
  stop: { feature: 'exec', lifecycle: 'stop', verb: 'stop nodes' },
  wipe: { feature: 'exec', lifecycle: 'wipe', verb: 'wipe nodes' },
  consoleExec: { feature: 'console_exec', mode: ['console'], verb: 'run console commands' },
  consoleAttach: { feature: 'console_stream', mode: ['console'], verb: 'attach to consoles' },
  // An added capability (decisions §14): the Linux backend has it, EVE-NG and simulated do not.
  capture: { feature: 'capture', verb: 'capture packets' },
};

/** Why the action is not allowed, or undefined when it is. */
export function labActionDenial(
  caps: CapabilitiesData | undefined,
  action: LabAction,
  mode: ProjectMode,
): string | undefined {
  const need = REQUIREMENTS[action];
  if (caps === undefined) return `Log in to the Lab Agent to ${need.verb}.`;
  if (caps.features?.[need.feature] !== true) {
    return `This agent does not allow you to ${need.verb} (its capability "${need.feature}" is off).`;
  }
  if (need.mode === undefined && need.lifecycle === undefined) return undefined;
  const modeCaps = caps.projectModes?.[mode];
  if (modeCaps === undefined)
    return `This agent does not support ${mode} labs, so it cannot ${need.verb} for this one.`;
  const missing = need.mode?.find((flag) => modeCaps[flag] !== true);
  if (missing !== undefined) {
    return `This agent does not allow you to ${need.verb} for ${mode} labs (projectModes.${mode}.${missing} is off).`;
  }
  if (need.lifecycle !== undefined && modeCaps.lifecycle?.[need.lifecycle] !== true) {
    return `This agent does not allow you to ${need.verb} in ${mode} labs (projectModes.${mode}.lifecycle.${need.lifecycle} is off).`;
  }
  return undefined;
}

export function isLabActionAllowed(caps: CapabilitiesData | undefined, action: LabAction, mode: ProjectMode): boolean {
  return labActionDenial(caps, action, mode) === undefined;
}

/** Why importing is not allowed, or undefined when it is. */
export function importDenial(caps: CapabilitiesData | undefined): string | undefined {
  if (caps === undefined) return 'Log in to the Lab Agent to import labs.';
  return caps.features?.import === true
    ? undefined
    : 'This agent does not allow importing labs (its capability "import" is off).';
}

/**
 * Context keys for `when` clauses of palette, editor and view-title commands:
 * `labAgent.can.<action>` is true when some project mode allows the action, so
 * that the command is offered; running it on a particular lab checks that lab's mode.
 */
export function capabilityContextKeys(caps: CapabilitiesData | undefined): Record<string, boolean> {
  const keys: Record<string, boolean> = { 'labAgent.can.import': importDenial(caps) === undefined };
  const modes: ProjectMode[] = ['managed', 'imported'];
  for (const action of LAB_ACTIONS) {
    keys[`labAgent.can.${action}`] = modes.some((mode) => isLabActionAllowed(caps, action, mode));
  }
  return keys;
}

/**
 * A lab's project mode, from what is stored beside it: an import leaves the
 * agent's `source` there (the source lab it was copied from), a deploy does not.
 */
export function projectModeOf(stored: { source?: unknown } | undefined): ProjectMode {
  return stored?.source !== undefined ? 'imported' : 'managed';
}
