/**
 * Reading a ProjectPayload: typed fields (wrong types are 400s naming the
 * field), the lab it is about, its document parsed and validated.
 */
import { cappedDiagnostics } from '../../common/project-files/document-limits';
import type { Direction, ProjectDiagnostic } from '../../common/api/contract';
import type { LabDocument } from '../../common/lab/model/types';
import { ApiError, invalidRequest } from '../http/api-error';
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  optionalStringMap,
  rejectLocalPaths,
  type Body,
} from '../http/fields';
import type { LoginSession } from '../sessions';
import type { Catalogue } from './catalogue';
import { desiredTopology } from './desired';
import { resolveLabPath } from './lab-path';
import type { Topology } from './topology';
import { hasErrors, validateDocument } from './validate';

export interface ProjectInput {
  lab?: string;
  yaml?: string;
  files: Record<string, string>;
  state?: unknown;
  source?: unknown;
  prune: boolean;
  wipe: boolean;
  node?: string;
  refresh: boolean;
  replace: boolean;
  planIdentity?: string;
}

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

export interface CheckedDocument {
  doc: LabDocument;
  diagnostics: ProjectDiagnostic[];
  desired: Topology;
  lab: string;
  /** Document features the emulator ignores, as `nodes.<name>.<field>: why`. */
  unsupported: string[];
}

export function requireYaml(input: ProjectInput): string {
  if (input.yaml === undefined) throw invalidRequest('"yaml" is required: send the lab document.');
  return input.yaml;
}

/** Parses (with the session's cache, or plainly on a worker) and validates the document; one that does not validate is 422 invalid_lab with the diagnostics. */
export function checkedDocument(
  parse: (yaml: string) => LabDocument,
  input: ProjectInput,
  catalogue: Catalogue,
): CheckedDocument {
  const doc = parse(requireYaml(input));
  const diagnostics = validateDocument(doc, input.files, catalogue);
  if (hasErrors(diagnostics)) {
    const first = diagnostics.find((d) => d.severity === 'error');
    throw new ApiError('invalid_lab', `The lab document does not validate: ${first?.message}`, {
      diagnostics: cappedDiagnostics(diagnostics),
    });
  }
  const lab = resolveLabPath({ lab: input.lab, state: input.state, docName: () => doc.name?.value });
  const fallbackName = lab.replace(/^.*\//, '').replace(/\.unl$/, '');
  const unsupported: string[] = [];
  for (const node of doc.nodes) {
    const template = node.resolved.template ? catalogue.templates.get(node.resolved.template) : undefined;
    if (template && !template.configSupported && node.resolved.config) {
      unsupported.push(`nodes.${node.name}.config: template ${template.id} does not take startup configs`);
    }
  }
  return { doc, diagnostics, desired: desiredTopology(doc, input.files, catalogue, fallbackName), lab, unsupported };
}

/** The lab of a request that may come without a document to validate. */
export function labOf(session: LoginSession, input: ProjectInput): string {
  const yaml = input.yaml;
  return resolveLabPath({
    lab: input.lab,
    state: input.state,
    docName: yaml !== undefined ? () => session.documents.parse(yaml).name?.value : undefined,
  });
}
