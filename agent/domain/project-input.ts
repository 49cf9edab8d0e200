/**
 * A ProjectPayload as the domain reads it (agent/http/project-payload.ts reads it off
 * the wire): the lab it is about, its document parsed and validated.
 */
import { cappedDiagnostics } from '../../common/project-files/document-limits';
import type { ProjectDiagnostic } from '../../common/api/contract';
import type { LabDocument } from '../../common/lab/model/types';
import type { Catalogue } from './catalogue';
import type { DocumentCache } from './document-cache';
import { DomainError } from './domain-error';
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

export interface CheckedDocument {
  doc: LabDocument;
  diagnostics: ProjectDiagnostic[];
  desired: Topology;
  lab: string;
  /** Document features the emulator ignores, as `nodes.<name>.<field>: why`. */
  unsupported: string[];
}

export function requireYaml(input: ProjectInput): string {
  if (input.yaml === undefined) throw new DomainError('invalid_input', '"yaml" is required: send the lab document.');
  return input.yaml;
}

/** Parses (with the session's cache, or the worker's) and validates the document; one that does not validate is an invalid document with the diagnostics. */
export function checkedDocument(
  parse: (yaml: string) => LabDocument,
  input: ProjectInput,
  catalogue: Catalogue,
): CheckedDocument {
  const doc = parse(requireYaml(input));
  const diagnostics = validateDocument(doc, input.files, catalogue);
  if (hasErrors(diagnostics)) {
    const first = diagnostics.find((d) => d.severity === 'error');
    throw new DomainError('invalid_document', `The lab document does not validate: ${first?.message}`, {
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

/** The lab of a request that may come without a document to validate; `documents` is the caller's parse cache. */
export function labOf(documents: DocumentCache, input: ProjectInput): string {
  const yaml = input.yaml;
  return resolveLabPath({
    lab: input.lab,
    state: input.state,
    docName: yaml !== undefined ? () => documents.parse(yaml).name?.value : undefined,
  });
}
