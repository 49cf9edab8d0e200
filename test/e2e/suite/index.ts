/**
 * Entry of the end-to-end suite, loaded by VS Code's extension host as extensionTestsPath
 * (by test/e2e/run.mjs through code-server, or by test/e2e/electron.mjs on a desktop).
 * It runs mocha in that host, where the tests can use the real `vscode` API.
 */
import { appendFileSync } from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000 });
  mocha.addFile(path.join(__dirname, 'scenario.js'));
  mocha.addFile(path.join(__dirname, 'canvas-topology.js'));
  mocha.addFile(path.join(__dirname, 'agent-requests.js'));
  mocha.addFile(path.join(__dirname, 'frr.js'));
  mocha.addFile(path.join(__dirname, 'frr-changes.js'));
  mocha.addFile(path.join(__dirname, 'typing.js'));
  mocha.addFile(path.join(__dirname, 'lab-tests.js'));
  mocha.addFile(path.join(__dirname, 'capture.js'));
  mocha.addFile(path.join(__dirname, 'two-agents.js'));
  // test/e2e/run.mjs --grep: only the tests whose full title matches.
  const grep = process.env.LAB_AGENT_E2E_GREP;
  if (grep) mocha.grep(new RegExp(grep));
  // One line per outcome, so the runner can count them even if the host dies mid-run.
  const results = process.env.LAB_AGENT_E2E_RESULTS;
  const record = (state: 'passed' | 'failed', title: string): void => {
    if (results) appendFileSync(results, `${JSON.stringify({ state, title })}\n`);
  };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) =>
      failures > 0 ? reject(new Error(`${failures} end-to-end test(s) failed`)) : resolve(),
    );
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, (test) => record('passed', test.fullTitle()));
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test) => record('failed', test.fullTitle()));
  });
}
