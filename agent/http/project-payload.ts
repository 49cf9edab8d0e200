/**
 * Reading a ProjectPayload off the wire: typed fields (wrong types are 400s
 * naming the field) into the domain's ProjectInput.
 */
import type { Direction } from '../../common/api/contract';
import type { ProjectInput } from '../domain/project-input';
import { ApiError, invalidRequest } from './api-error';
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  optionalStringMap,
  rejectLocalPaths,
  type Body,
} from './fields';

export function readProjectInput(body: Body): ProjectInput {
  rejectLocalPaths(body);
  optionalString(body, 'manifest');
  optionalInteger(body, 'id');
  return {
    lab: optionalString(body, 'lab') || undefined,
    yaml: optionalString(body, 'yaml'),
    files: optionalStringMap(body, 'files') ?? {},
    state: body.state,
    source: body.source,
    prune: optionalBoolean(body, 'prune') ?? false,
    wipe: optionalBoolean(body, 'wipe') ?? true,
    node: optionalString(body, 'node') || undefined,
    refresh: optionalBoolean(body, 'refresh') ?? false,
    replace: optionalBoolean(body, 'replace') ?? false,
    planIdentity: optionalString(body, 'plan_identity') || undefined,
  };
}

/** Omitted or empty is to_emu; anything but the two valid values is 400 invalid_direction. */
export function readDirection(body: Body): Direction {
  const value = body.direction;
  if (value === undefined || value === '') return 'to_emu';
  if (value === 'to_emu' || value === 'from_emu') return value;
  throw new ApiError(
    'invalid_direction',
    `"direction" must be "to_emu" (document to emulator) or "from_emu" (emulator to document), not ${JSON.stringify(value)}.`,
  );
}

export function readStopmode(body: Body): number {
  const stopmode = optionalInteger(body, 'stopmode') ?? 3;
  if (stopmode < 0 || stopmode > 3)
    throw invalidRequest('"stopmode" must be 0 (graceful), 1 (poweroff), 2 (hibernate) or 3 (auto).');
  return stopmode;
}
