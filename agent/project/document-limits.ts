/**
 * What the agent refuses to parse: documents far larger than any lab needs,
 * and flow collections nested so deeply that the YAML parser would run out of
 * stack. Both are refused at once with a diagnostic that says so, instead of
 * stalling the agent or reporting a stack overflow.
 */
import type { ProjectDiagnostic } from '../../common/api/contract';
import { ApiError } from '../http/api-error';

/** About 10,000 nodes of a typical lab; parsing takes seconds and hundreds of MB beyond this. */
export const MAX_DOCUMENT_CHARS = 2 * 1024 * 1024;
/** Lab documents nest a few levels; no lab needs brackets this deep. */
export const MAX_FLOW_NESTING = 64;

export function documentLimitProblem(text: string): ProjectDiagnostic | undefined {
  if (text.length > MAX_DOCUMENT_CHARS)
    return {
      path: [],
      severity: 'error',
      code: 'document-too-large',
      message: `The lab document has ${text.length} characters; the agent reads lab documents of up to ${MAX_DOCUMENT_CHARS} (about 10,000 nodes). Split the lab.`,
    };
  if (flowNesting(text) > MAX_FLOW_NESTING)
    return {
      path: [],
      severity: 'error',
      code: 'nesting-too-deep',
      message: `The lab document nests [ ] or { } more than ${MAX_FLOW_NESTING} levels deep; lab documents need only a few. Check for unclosed or repeated brackets.`,
    };
  return undefined;
}

/** The deepest nesting of flow brackets outside quotes and comments (an upper bound: YAML is not fully tokenised). */
function flowNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote || c === '\n') quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return deepest;
}

/** A document the agent does not parse: invalid_lab on calls that need it, a diagnostic from validate. */
export class DocumentRefused extends ApiError {
  constructor(readonly diagnostic: ProjectDiagnostic) {
    super('invalid_lab', `The lab document is not read: ${diagnostic.message}`, { diagnostics: [diagnostic] });
  }
}
