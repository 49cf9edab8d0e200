/**
 * The one runner of a lab's tests, for the Test Explorer and the command line
 * alike: each test's check runs through the agent's console exec (so it works
 * on every backend with consoles), retried until it passes or its timeout runs
 * out, and ends in a structured result with what was expected, what was seen
 * and the last output. Tests the editor would mark (unknown node, a check the
 * node's console cannot run, a pattern that does not compile) are not run:
 * their result says why.
 */
import { AgentError, type AgentClient } from '../api/client';
import type { ProjectPayload } from '../api/contract';
import { findNode } from '../lab/model/lookup';
import {
  CHECKS,
  DEFAULT_TEST_TIMEOUT_S,
  consoleFamilyOf,
  parsePingTarget,
  type CheckKind,
  type ConsoleFamily,
} from '../lab/rules/test-checks';
import type { LabDocument, LabTest } from '../lab/model/types';
import { validateTests } from '../lab/rules/validate-tests';
import {
  addressCommand,
  checkCommand,
  commandVerdict,
  frrAddress,
  frrBgpVerdict,
  frrOspfVerdict,
  frrRouteVerdict,
  linuxAddress,
  linuxRouteVerdict,
  pingVerdict,
  type CheckSettings,
  type Verdict,
} from './check-outputs';

export interface TestResult {
  name: string;
  check?: CheckKind;
  /** The node the check ran on. */
  node?: string;
  passed: boolean;
  /** One paragraph naming the node, the check, expected and actual, for people. */
  message: string;
  expected: string;
  actual: string;
  /** The command of the last attempt and what it printed (empty when nothing ran). */
  command: string;
  output: string;
  attempts: number;
  durationMs: number;
}

export interface RunTestsOptions {
  client: Pick<AgentClient, 'execConsole'>;
  /** What identifies the deployed lab (yaml, files, state), as every console call sends it. */
  payload: ProjectPayload;
  /** Names of the tests to run; all when absent. */
  only?: readonly string[];
  /** Pause between attempts of a failing check (default 2 s). */
  retryIntervalMs?: number;
  /** Tests run side by side, at most this many (default 4). */
  parallel?: number;
  signal?: AbortSignal;
  onStart?: (test: LabTest) => void;
  onResult?: (result: TestResult, test: LabTest) => void;
}

/** What one console command may take; a ping's replies arrive within 5 s at the counts allowed. */
const EXEC_TIMEOUT_MS = 10_000;
/** Answers that are worth another attempt: the node is not (yet) running, the agent or lab is busy, no answer. */
const RETRIED_STATUSES = new Set([409, 423, 429, 502, 503, 504]);

export async function runLabTests(doc: LabDocument, options: RunTestsOptions): Promise<TestResult[]> {
  const wanted = options.only ? new Set(options.only) : undefined;
  const tests = doc.tests.filter((test) => !wanted || wanted.has(test.name));
  const problems = problemsByTest(doc);
  const results: TestResult[] = new Array<TestResult>(tests.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tests.length) {
      const index = next++;
      const test = tests[index];
      options.onStart?.(test);
      const result = await runOne(doc, test, problems.get(test.name), options);
      results[index] = result;
      options.onResult?.(result, test);
    }
  };
  const workers = Math.max(1, Math.min(options.parallel ?? 4, tests.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/** The first error the editor shows on each test (format issues and lab checks). */
function problemsByTest(doc: LabDocument): Map<string, string> {
  const problems = new Map<string, string>();
  const found = [...doc.formatIssues.map((issue) => ({ ...issue, severity: 'error' })), ...validateTests(doc)];
  for (const finding of found) {
    const [section, name] = finding.path ?? [];
    if (section !== 'tests' || typeof name !== 'string' || finding.severity !== 'error') continue;
    if (!problems.has(name)) problems.set(name, finding.message);
  }
  return problems;
}

async function runOne(
  doc: LabDocument,
  test: LabTest,
  problem: string | undefined,
  options: RunTestsOptions,
): Promise<TestResult> {
  const started = Date.now();
  const check = test.check;
  const base = { name: test.name, command: '', output: '', attempts: 0 };
  if (!check || problem) {
    const why = problem ?? 'the test has no check';
    return {
      ...base,
      passed: false,
      expected: 'a test that can run',
      actual: why,
      message: `${test.name}: not run: ${why}`,
      durationMs: 0,
    };
  }
  const settings: CheckSettings = {};
  for (const [key, located] of Object.entries(check.params)) settings[key] = located.value;
  const node = String(settings[CHECKS[check.kind].nodeParam]);
  const family = consoleFamilyOf(findNode(doc, node)?.resolved.template);
  const timeoutMs = (test.timeout?.value ?? DEFAULT_TEST_TIMEOUT_S) * 1000;
  const deadline = started + timeoutMs;
  const interval = options.retryIntervalMs ?? 2000;
  let attempt: Attempt;
  let attempts = 0;
  for (;;) {
    attempts++;
    attempt = await attemptCheck(doc, check.kind, family, node, settings, options);
    if (attempt.verdict.passed || attempt.fatal || options.signal?.aborted) break;
    if (Date.now() + interval >= deadline) break;
    await pause(interval, options.signal);
  }
  const { verdict, command, output } = attempt;
  const durationMs = Date.now() - started;
  const seconds = (durationMs / 1000).toFixed(1);
  const message = verdict.passed
    ? `${test.name}: ${check.kind} on ${node} passed on attempt ${attempts} in ${seconds} s (${verdict.actual})`
    : [
        `${test.name}: ${check.kind} on ${node} failed after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${seconds} s` +
          (options.signal?.aborted ? ' (stopped)' : ''),
        `  expected: ${verdict.expected}`,
        `  actual:   ${verdict.actual}`,
        ...(command ? [`  last output of "${command}" on ${attempt.node}:`, indent(output || '(nothing)')] : []),
      ].join('\n');
  return {
    ...base,
    check: check.kind,
    node,
    passed: verdict.passed,
    message,
    expected: verdict.expected,
    actual: verdict.actual,
    command,
    output,
    attempts,
    durationMs,
  };
}

interface Attempt {
  verdict: Verdict;
  /** The last command run, the node it ran on, and its output. */
  command: string;
  node: string;
  output: string;
  /** No further attempt can help (the session is gone, the lab does not exist, the request is refused). */
  fatal?: boolean;
}

async function attemptCheck(
  doc: LabDocument,
  kind: CheckKind,
  family: ConsoleFamily | undefined,
  node: string,
  settings: CheckSettings,
  options: RunTestsOptions,
): Promise<Attempt> {
  let address: string | undefined;
  if (kind === 'ping') {
    const target = parsePingTarget(String(settings.to));
    if ('address' in target) address = target.address;
    else {
      const targetFamily = consoleFamilyOf(findNode(doc, target.node)?.resolved.template);
      const command = addressCommand(targetFamily, target.interface) ?? '';
      const ran = await exec(options, target.node, command);
      if ('error' in ran) return ran.error;
      const found =
        targetFamily === 'frr' ? frrAddress(ran.output, target.interface) : linuxAddress(ran.output, target.interface);
      if (typeof found !== 'string') return { verdict: found, command, node: target.node, output: ran.output };
      address = found;
    }
  }
  const command = checkCommand(kind, family, settings, address);
  if (command === undefined)
    return {
      verdict: { passed: false, expected: `a console that runs ${kind}`, actual: `${node}'s console cannot run it` },
      command: '',
      node,
      output: '',
      fatal: true,
    };
  const ran = await exec(options, node, command);
  if ('error' in ran) return ran.error;
  return { verdict: verdictOf(kind, family, ran.output, settings), command, node, output: ran.output };

  async function exec(
    opts: RunTestsOptions,
    on: string,
    line: string,
  ): Promise<{ output: string } | { error: Attempt }> {
    try {
      const reply = await opts.client.execConsole(
        { ...opts.payload, node: on, command: line, timeout_ms: EXEC_TIMEOUT_MS },
        { signal: opts.signal, timeoutMs: EXEC_TIMEOUT_MS + 5000 },
      );
      return { output: typeof reply.output === 'string' ? reply.output : '' };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retried = error instanceof AgentError && (error.status === undefined || RETRIED_STATUSES.has(error.status));
      return {
        error: {
          verdict: {
            passed: false,
            expected: `an answer from ${on}'s console`,
            actual: `the agent refused the command: ${message}`,
          },
          command: line,
          node: on,
          output: '',
          fatal: !retried,
        },
      };
    }
  }
}

function verdictOf(
  kind: CheckKind,
  family: ConsoleFamily | undefined,
  output: string,
  settings: CheckSettings,
): Verdict {
  switch (kind) {
    case 'command':
      return commandVerdict(output, settings);
    case 'ping':
      return pingVerdict(output, Number(settings.loss ?? 0));
    case 'ospf-neighbors':
      return frrOspfVerdict(output, settings);
    case 'bgp-sessions':
      return frrBgpVerdict(output, settings);
    case 'route':
      return family === 'frr' ? frrRouteVerdict(output, settings) : linuxRouteVerdict(output, settings);
  }
}

function indent(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  // A failure message stays readable: the last output's first 40 lines.
  const shown = lines.length > 40 ? [...lines.slice(0, 40), `… (${lines.length - 40} more lines)`] : lines;
  return shown.map((line) => `    ${line}`).join('\n');
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
