/**
 * Hover text in a lab's tests: section, from the checks table: on a check's
 * key (`ping`) what it does, its settings and the console families that run
 * it; on a setting, what it holds.
 */
import { CHECKS, FAMILY_CHECKS, FAMILY_NAMES, isCheckKind, type ConsoleFamily } from '../common/lab/rules/test-checks';
import type { LabDocument, Range } from '../common/lab/model/types';

export function labTestHover(doc: LabDocument, offset: number): { range: Range; markdown: string } | undefined {
  const at = doc.pathAt(offset);
  if (!at || at.on !== 'key' || at.path[0] !== 'tests' || at.path.length < 3) return undefined;
  const kind = String(at.path[2]);
  if (!isCheckKind(kind)) return undefined;
  const spec = CHECKS[kind];
  if (at.path.length === 3) {
    const families = (Object.keys(FAMILY_CHECKS) as ConsoleFamily[]).filter((f) => FAMILY_CHECKS[f].includes(kind));
    const settings = Object.entries(spec.params).map(
      ([name, param]) => `- \`${name}\`${param.required ? ' (required)' : ''}: ${param.doc}`,
    );
    const markdown = [
      `**${kind}** check: ${spec.summary}`,
      '',
      ...settings,
      '',
      `Runs on ${families.map((f) => FAMILY_NAMES[f]).join(', ')}. Example: \`${spec.example}\``,
    ].join('\n');
    return { range: at.range, markdown };
  }
  const param = spec.params[String(at.path[3])];
  return param ? { range: at.range, markdown: `\`${String(at.path[3])}\` (${kind}): ${param.doc}` } : undefined;
}
