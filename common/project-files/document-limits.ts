/**
 * What bounds the work a lab document causes, shared by the agent (which
 * refuses such a document with a diagnostic naming the limit) and the language
 * server (which then does not send it). The length of a document is not one of
 * them: any document within the contract's 32 MiB body is read, on a worker
 * whose heap and time are bounded (agent/http/validate-workers.ts). What is
 * checked here costs one pass over the text and stops what a worker's limits
 * would only stop late: brackets nested deep enough to overflow the YAML
 * parser's stack, and aliases, which the lab format does not read and which a
 * hostile document fans out by the hundred thousand.
 */
import type { ProjectDiagnostic } from '../api/contract';

/** Lab documents nest a few levels; no lab needs brackets this deep. */
export const MAX_FLOW_NESTING = 64;
/** The lab format reads no aliases (each one is an error); past this many, the document is not read at all. The yaml package's own default. */
export const MAX_ALIASES = 100;
/**
 * Diagnostics in one reply or publish at most, the summary included: a badly
 * broken file can have hundreds of thousands (megabytes per reply), and the
 * first ones are the ones to fix.
 */
export const MAX_DIAGNOSTICS = 1000;

/** The diagnostic of a document over MAX_FLOW_NESTING or MAX_ALIASES, or undefined. */
export function documentLimitProblem(text: string): ProjectDiagnostic | undefined {
  const { deepest, aliases } = scan(text);
  if (deepest > MAX_FLOW_NESTING)
    return {
      path: [],
      severity: 'error',
      code: 'nesting-too-deep',
      message: `The lab document nests [ ] or { } more than ${MAX_FLOW_NESTING} levels deep (the agent's limit); lab documents need only a few. Check for unclosed or repeated brackets.`,
    };
  if (aliases > MAX_ALIASES)
    return {
      path: [],
      severity: 'error',
      code: 'too-many-aliases',
      message: `The lab document has ${aliases} aliases (*name); the agent reads documents with up to ${MAX_ALIASES}, and lab files take none. Write the values out (use defaults for values every node shares).`,
    };
  return undefined;
}

/**
 * The deepest nesting of flow brackets and the number of aliases outside
 * quotes and comments: upper bounds, as YAML is not fully tokenised here (an
 * alias is a `*` where a value starts, followed by a name).
 */
function scan(text: string): { deepest: number; aliases: number } {
  let depth = 0;
  let deepest = 0;
  let aliases = 0;
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
    else if (c === '*' && (i === 0 || /[\s[{,]/.test(text[i - 1])) && /[^\s,[\]{}]/.test(text[i + 1] ?? ' ')) aliases++;
  }
  return { deepest, aliases };
}

/**
 * At most MAX_DIAGNOSTICS of `diagnostics`, errors first (so the status the
 * reply gives is visible in it), the last one a warning that says how many
 * more there are.
 */
export function cappedDiagnostics(diagnostics: readonly ProjectDiagnostic[]): ProjectDiagnostic[] {
  const total = diagnostics.length;
  if (total <= MAX_DIAGNOSTICS) return [...diagnostics];
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const shown = [...errors, ...diagnostics.filter((d) => d.severity !== 'error')].slice(0, MAX_DIAGNOSTICS - 1);
  shown.push({
    path: [],
    severity: 'warning',
    code: 'more-problems',
    message: `${total - shown.length} more problems in this lab are not listed (at most ${MAX_DIAGNOSTICS} are); fix the ones listed first.`,
  });
  return shown;
}
