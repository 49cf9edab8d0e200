/**
 * `lab-agent test LAB.lab.yaml`: runs a lab's tests from a terminal or CI with
 * the same runner as the Test Explorer (common/testing/runner.ts). Logs in from
 * environment variables (the password never on the command line), optionally
 * deploys and starts the lab first, writes TAP or JUnit XML, and exits 0 only
 * when every test passed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentClient, AgentError } from '../common/api/client';
import type { ProjectPayload } from '../common/api/contract';
import { parseLab } from '../common/lab/parse/parse';
import { LineIndex } from '../common/lab/model/positions';
import { buildProjectPayload } from '../common/project-files/payload';
import { writeLabState } from '../common/project-files/state-file';
import { toJUnit, toTap } from '../common/testing/report';
import { runLabTests } from '../common/testing/runner';
import { validateLab } from '../common/lab/rules/validate';

const USAGE = `Usage: lab-agent test LAB.lab.yaml [options]

Runs the tests of a lab file (its tests: section) against the deployed lab
and writes the results; exits 0 only when every test passed.

Options:
  --deploy          deploy the lab first, start its nodes and wait until they run
  --replace         with --deploy: rebuild the lab if the emulator has it already
                    (its nodes are stopped and wiped)
  --format FORMAT   tap (default) or junit
  --output FILE     write the results to FILE instead of standard output
  --test NAME       run only this test (repeatable)
  --help            show this help

Environment:
  LAB_AGENT_URL            the agent, https://host:port
  LAB_AGENT_USER           the user to log in as
  LAB_AGENT_PASSWORD       the password (or LAB_AGENT_PASSWORD_FILE, a file holding it)
  LAB_AGENT_PIN            SHA-256 fingerprint of the agent's certificate, and/or
  LAB_AGENT_CA_FILE        a PEM file with the CA that signed it

Exit codes: 0 all passed, 1 a test failed, 2 usage or setup error (login, file, deploy).`;

/** Exit codes: a failed test and a run that could not happen are told apart in CI. */
const EXIT = { passed: 0, failed: 1, error: 2 } as const;
/** How long --deploy waits for every node to run. */
const START_TIMEOUT_MS = 120_000;

class SetupError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      deploy: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
      format: { type: 'string', default: 'tap' },
      output: { type: 'string' },
      test: { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.passed;
  }
  const [command, labFile, ...extra] = positionals;
  if (values.replace && !values.deploy) throw new SetupError('--replace goes with --deploy');
  if (command !== 'test' || !labFile || extra.length > 0)
    throw new SetupError(`expected: lab-agent test LAB.lab.yaml\n\n${USAGE}`);
  if (values.format !== 'tap' && values.format !== 'junit')
    throw new SetupError(`--format is tap or junit, not ${values.format}`);

  const labPath = resolve(labFile);
  const text = await readFile(labPath, 'utf8').catch((error: Error) => {
    throw new SetupError(`cannot read ${labFile}: ${error.message}`);
  });
  const doc = parseLab(text);
  if (doc.tests.length === 0) throw new SetupError(`${labFile} has no tests: section (docs/lab-format.md "Tests")`);
  const unknown = (values.test ?? []).filter((name) => !doc.tests.some((t) => t.name === name));
  if (unknown.length > 0)
    throw new SetupError(`${labFile} has no test named ${unknown.map((n) => `"${n}"`).join(', ')}`);
  const lines = new LineIndex(text);
  for (const finding of validateLab(doc).filter((d) => d.severity === 'error')) {
    const { line, character } = lines.positionAt(finding.range.start);
    process.stderr.write(`${labFile}:${line + 1}:${character + 1}: error: ${finding.message}\n`);
  }

  const client = await logIn();
  try {
    let payload: ProjectPayload = await buildProjectPayload(labPath, text, doc);
    if (values.deploy) payload = await deployAndStart(client, labPath, payload, values.replace);
    const results = await runLabTests(doc, {
      client,
      payload,
      only: values.test,
      onResult: (result) => process.stderr.write(`${result.passed ? 'PASS' : 'FAIL'} ${result.message}\n`),
    });
    const report = values.format === 'junit' ? toJUnit(doc.name?.value ?? labFile, results) : toTap(results);
    if (values.output) await writeFile(values.output, report);
    else process.stdout.write(report);
    const failed = results.filter((r) => !r.passed).length;
    process.stderr.write(`${results.length - failed} passed, ${failed} failed\n`);
    return failed === 0 ? EXIT.passed : EXIT.failed;
  } finally {
    await client.logout().catch(() => undefined);
  }
}

async function logIn(): Promise<AgentClient> {
  const env = process.env;
  const baseUrl = env.LAB_AGENT_URL ?? '';
  const username = env.LAB_AGENT_USER ?? '';
  if (!baseUrl.startsWith('https://'))
    throw new SetupError('set LAB_AGENT_URL to the agent, e.g. https://127.0.0.1:8787');
  if (!username) throw new SetupError('set LAB_AGENT_USER to the user to log in as');
  let password = env.LAB_AGENT_PASSWORD;
  if (password === undefined && env.LAB_AGENT_PASSWORD_FILE)
    password = (
      await readFile(env.LAB_AGENT_PASSWORD_FILE, 'utf8').catch((error: Error) => {
        throw new SetupError(`cannot read LAB_AGENT_PASSWORD_FILE: ${error.message}`);
      })
    ).replace(/\r?\n$/, '');
  if (password === undefined)
    throw new SetupError('set LAB_AGENT_PASSWORD, or LAB_AGENT_PASSWORD_FILE to a file holding it');
  const pin = env.LAB_AGENT_PIN || undefined;
  const ca = env.LAB_AGENT_CA_FILE
    ? await readFile(env.LAB_AGENT_CA_FILE, 'utf8').catch((error: Error) => {
        throw new SetupError(`cannot read LAB_AGENT_CA_FILE: ${error.message}`);
      })
    : undefined;
  if (!pin && !ca)
    throw new SetupError(
      "set LAB_AGENT_PIN to the agent certificate's SHA-256 fingerprint, or LAB_AGENT_CA_FILE to its CA",
    );
  const client = new AgentClient({ baseUrl, pin, ca });
  await client.login({ username, password }).catch((error: Error) => {
    throw new SetupError(`cannot log in to ${baseUrl} as ${username}: ${error.message}`);
  });
  return client;
}

/** Deploys, keeps the new state beside the lab file (as the extension does), starts every node and waits until they run. */
async function deployAndStart(
  client: AgentClient,
  labPath: string,
  payload: ProjectPayload,
  replace: boolean,
): Promise<ProjectPayload> {
  const deployed = await client.deployProject(replace ? { ...payload, replace } : payload).catch((error: unknown) => {
    const exists = error instanceof AgentError && error.code === 'lab_exists';
    throw new SetupError(`deploy failed: ${(error as Error).message}${exists ? ' (add --replace to rebuild it)' : ''}`);
  });
  const next: ProjectPayload = { ...payload, state: deployed.state };
  await writeLabState(labPath, { lab: deployed.lab, state: deployed.state });
  process.stderr.write(
    `deployed ${deployed.lab ?? 'the lab'}: ${deployed.nodes ?? 0} nodes, ${deployed.links ?? 0} links\n`,
  );
  const started = await client.execProject({ ...next, action: 'start' }).catch((error: Error) => {
    throw new SetupError(`start failed: ${error.message}`);
  });
  if ((started.failed ?? 0) > 0) throw new SetupError(`${started.failed} node(s) failed to start`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const status = await client.getProjectStatus(next);
    const nodes = status.nodes ?? [];
    const waiting = nodes.filter((n) => n.state !== 'running').map((n) => n.name);
    if (nodes.length > 0 && waiting.length === 0) break;
    if (Date.now() > deadline)
      throw new SetupError(`nodes still not running after ${START_TIMEOUT_MS / 1000} s: ${waiting.join(', ')}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.stderr.write('every node runs\n');
  return next;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`lab-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT.error;
  },
);
