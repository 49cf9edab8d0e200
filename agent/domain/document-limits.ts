/**
 * A document the agent does not read, because it is over one of the limits
 * that bound the work it causes (common/project-files/document-limits.ts, or a
 * validate worker's heap and time): refused at once with a diagnostic that
 * names the limit, instead of stalling the agent or reporting a stack overflow.
 */
import type { ProjectDiagnostic } from '../../common/api/contract';
import { DomainError } from './domain-error';

/** An invalid document on calls that need it; validate answers the diagnostic instead. */
export class DocumentRefused extends DomainError {
  constructor(readonly diagnostic: ProjectDiagnostic) {
    super('invalid_document', `The lab document is not read: ${diagnostic.message}`, { diagnostics: [diagnostic] });
  }
}
