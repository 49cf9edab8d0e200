/**
 * A document the agent does not read, because it is over one of the limits
 * that bound the work it causes (common/project-files/document-limits.ts, or a
 * validate worker's heap and time): refused at once with a diagnostic that
 * names the limit, instead of stalling the agent or reporting a stack overflow.
 */
import type { ProjectDiagnostic } from '../../common/api/contract';
import { ApiError } from '../http/api-error';

/** invalid_lab on calls that need the document; validate answers the diagnostic instead. */
export class DocumentRefused extends ApiError {
  constructor(readonly diagnostic: ProjectDiagnostic) {
    super('invalid_lab', `The lab document is not read: ${diagnostic.message}`, { diagnostics: [diagnostic] });
  }
}
