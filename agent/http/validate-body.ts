import type { ValidateData } from '../../common/api/contract';
import { parseLab } from '../../common/lab/parse/parse';
import type { LabDocument } from '../../common/lab/model/types';
import type { Catalogue } from '../domain/catalogue';
import type { Body } from './fields';
import { cappedDiagnostics, documentLimitProblem } from '../../common/project-files/document-limits';
import { requireYaml } from '../domain/project-input';
import { hasErrors, validateDocument } from '../domain/validate';
import { readProjectInput } from './project-payload';

/**
 * The validate call on a request body. Validate never fails on a bad document (decisions §5):
 * one the agent will not read is a diagnostic. `parse` is the session's cached parser on the
 * main thread, the worker's own in a worker. The reply carries at most MAX_DIAGNOSTICS, with a
 * summary of the rest: its status is that of all of them.
 */
export function validateBody(
  body: Body,
  catalogue: Catalogue,
  parse: (yaml: string) => LabDocument = parseLab,
): ValidateData {
  const input = readProjectInput(body);
  const yaml = requireYaml(input);
  const refused = documentLimitProblem(yaml);
  if (refused) return { status: 'invalid', diagnostics: [refused] };
  const diagnostics = validateDocument(parse(yaml), input.files, catalogue);
  return { status: hasErrors(diagnostics) ? 'invalid' : 'valid', diagnostics: cappedDiagnostics(diagnostics) };
}
