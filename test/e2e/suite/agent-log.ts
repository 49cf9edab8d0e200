/** What the reference agents of the run logged: the calls of one kind, counted (test/e2e/run.mjs writes the logs beside the results). */
import * as assert from 'assert';
import { readdirSync, readFileSync } from 'fs';
import * as path from 'path';

/** Agents' log files: the simulated agent's (a restart starts another file), and with `linux` the Linux agent's too. */
export const SIMULATED_AGENT_LOGS = /^agent(-\d+)?\.log$/;
export const ALL_AGENT_LOGS = /^agent(-linux)?(-\d+)?\.log$/;

/** How many `call`s the agents whose log files match `logs` have answered so far. */
export function loggedCalls(call: string, logs: RegExp): number {
  const results = process.env.LAB_AGENT_E2E_RESULTS;
  assert.ok(results, 'LAB_AGENT_E2E_RESULTS is not set: run the suite with test/e2e/run.mjs');
  const run = path.dirname(results);
  return readdirSync(run)
    .filter((name) => logs.test(name))
    .flatMap((name) => readFileSync(path.join(run, name), 'utf8').split('\n'))
    .filter((line) => line.includes(`[agent] ${call} -> `)).length;
}
