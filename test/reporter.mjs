// A quiet reporter for node's test runner: nothing for a passing test, the name, file and error
// of each failing one as it happens, the names of skipped ones, and one closing line
// `N passed, N failed` (plus skipped and todo counts when there are any).
import { inspect } from 'node:util';

function describeError(error) {
  const cause = error?.cause ?? error;
  if (cause instanceof Error) return cause.stack ?? String(cause);
  return inspect(cause, { depth: 4 });
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export default async function* quietReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  for await (const event of source) {
    const { type, data } = event;
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    // Suites (describe blocks) and file-level wrappers report their children's outcome again.
    if (data.details?.type === 'suite') continue;
    if (data.skip !== undefined) {
      counts.skipped += 1;
      yield `skipped: ${data.name}${typeof data.skip === 'string' ? ` (${data.skip})` : ''} — ${data.file ?? ''}\n`;
    } else if (data.todo !== undefined) {
      counts.todo += 1;
    } else if (type === 'test:pass') {
      counts.passed += 1;
    } else {
      counts.failed += 1;
      yield `\nFAILED: ${data.name}\n  ${data.file ?? ''}\n${indent(describeError(data.details?.error))}\n\n`;
    }
  }
  const extra = [counts.skipped ? `, ${counts.skipped} skipped` : '', counts.todo ? `, ${counts.todo} todo` : ''].join(
    '',
  );
  yield `${counts.passed} passed, ${counts.failed} failed${extra}\n`;
}
