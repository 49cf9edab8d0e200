/// <reference types="mocha" />
/**
 * Lab tests in VS Code's Testing UI, against the Linux emulator agent the runner started: deploy
 * and start samples/ospf/ospf.lab.yaml and its failing twin (samples/ospf/failing.lab.yaml),
 * see the Test Explorer list each lab's tests, run the OSPF sample's from the run button in the
 * gutter of its `tests:` line and see all six pass in the gutter and in the Test Explorer
 * (`lab-tests-passed.png`), run the failing sample's the same way and see its one failure at the
 * test's line (`lab-tests-failure.png` shows expected != actual beside it) and in the
 * failure peek (`lab-tests-peek.png`), and destroy both labs. Between the two: stopping a node marks
 * the OSPF sample's results outdated (VS Code's `retired` class on the Test Explorer's icons,
 * `lab-tests-stale.png`), and with labAgent.tests.runAfter on, starting it runs the
 * tests again with no click (fresh results, `lab-tests-rerun.png`); the same with the setting off
 * and the Testing view's own continuous run turned on with the eye in the lab's row
 * (`lab-tests-continuous.png`), and no rerun once the eye turned it off.
 * Runs in the same extension host as frr.ts, after it; it logs in itself so that it runs alone too.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { logInToLinuxAgent } from './log-in';

const PASSING = 'ospf/ospf.lab.yaml';
const FAILING = 'ospf/failing.lab.yaml';
const PASSING_TESTS = [
  'h1 reaches h2',
  'h2 reaches h1',
  'r1 has its OSPF neighbour',
  'r2 has two OSPF neighbours',
  'r3 has its OSPF neighbour',
  "r1 has an OSPF route to h2's network",
];
const FAILING_TEST = 'r1 has two OSPF neighbours';
/** Convergence (40 s at most with the sample's timers) plus the failing test's 20 s of retries. */
const RUN_MS = 120_000;

const TREE = '.test-explorer-tree';
/** The Test Explorer's row of a test or lab (its label is the row's text). */
const row = (label: string) => `${TREE} .monaco-list-row:has-text(${JSON.stringify(label)})`;

function labUri(file: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, file);
}

/** Opens the lab with its `tests:` line at the top, where the gutter shows the lab's run button. */
async function showTests(uri: vscode.Uri): Promise<vscode.TextEditor> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  const line = editor.document.getText().split('\n').indexOf('tests:');
  assert.ok(line >= 0, `${uri.fsPath} has no tests: line`);
  editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
  editor.selection = new vscode.Selection(line, 0, line, 0);
  return editor;
}

/** VS Code's icons of the continuous-run toggle in a test row: off (click to turn on) and on. */
const CONTINUOUS_OFF = '.action-label.codicon-testing-turn-continuous-run-on';
const CONTINUOUS_ON = '.action-label.codicon-testing-continuous-is-on';

async function stopH1(): Promise<void> {
  const stopped = await vscode.commands.executeCommand<{ stopped?: number }>(LabCommand.stopNode, {
    uri: labUri(PASSING).toString(),
    node: 'h1',
    stopmode: 1,
  });
  assert.ok(stopped, 'stop of h1 failed');
  for (const name of PASSING_TESTS)
    await seen(`${row(name)} .codicon-testing-passed-icon.retired`, `${name} marked outdated`);
}

async function startH1(): Promise<void> {
  const started = await vscode.commands.executeCommand<{ started?: number }>(LabCommand.startNode, {
    uri: labUri(PASSING).toString(),
    node: 'h1',
  });
  assert.strictEqual(started?.started, 1, `start of h1: ${JSON.stringify(started)}`);
}

/** How many test runs the Test Results view lists: the newest, and "N older results" below it. */
async function testRuns(): Promise<number> {
  await vscode.commands.executeCommand('workbench.panel.testResults.view.focus');
  const shown = await askRunner({ action: 'text', selector: '.test-output-peek-tree', match: 'older result' });
  const older = /(\d+) older results|(1) older result/.exec(shown.text ?? '');
  assert.ok(older, `the Test Results view does not count older runs: ${shown.text ?? shown.error}`);
  await vscode.commands.executeCommand('workbench.view.testing.focus');
  return 1 + Number(older[1] ?? older[2]);
}

/** Waits until `selector` is in the page; fails with what the Test Explorer shows otherwise. */
async function seen(selector: string, what: string, timeoutMs = 15_000): Promise<void> {
  const found = await askRunner({ action: 'attributes', selector, timeoutMs });
  if (found.ok) return;
  const tree = await askRunner({ action: 'text', selector: TREE, timeoutMs: 1000 });
  assert.fail(`${what}: not shown (${found.error})\nThe Test Explorer shows:\n${tree.text ?? tree.error}`);
}

describe('Lab tests in the Test Explorer (Linux emulator agent)', function () {
  this.timeout(RUN_MS + 60_000);
  const deployed: vscode.Uri[] = [];

  before(function () {
    const problem = process.env.LAB_AGENT_E2E_LINUX_PROBLEM;
    if (process.env.LAB_AGENT_E2E_LINUX_URL && hasRunnerChannel()) return;
    const why = process.env.LAB_AGENT_E2E_LINUX_URL
      ? 'there is no runner channel to read the Test Explorer through'
      : `the Linux emulator agent cannot run here: ${problem ?? 'the runner started none (LAB_AGENT_E2E_LINUX_URL is not set)'}`;
    if (process.env.CI) throw new Error(why);
    console.log(`skipping the lab tests scenario: ${why}`);
    this.skip();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    for (const uri of deployed)
      await vscode.commands.executeCommand(LabCommand.destroy, { uri: uri.toString(), confirmed: true });
  });

  it('logs in to the Linux emulator agent', async () => {
    const loggedIn = await logInToLinuxAgent();
    assert.strictEqual(loggedIn, true, 'login failed');
    // What the earlier suites left: the run's log shows where the Problems view's count comes from.
    const problems = vscode.languages.getDiagnostics().filter(([, d]) => d.length > 0);
    console.log(
      `Problems as this suite starts: ${problems.map(([uri, d]) => `${vscode.workspace.asRelativePath(uri)} ${d.length}`).join(', ') || 'none'}`,
    );
  });

  it("lists each lab's tests in the Test Explorer", async () => {
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    await seen(row(PASSING), 'the OSPF sample in the Test Explorer', 30_000);
    await seen(row(FAILING), 'the failing sample in the Test Explorer');
  });

  it('deploys and starts the OSPF sample and its failing twin', async () => {
    for (const file of [PASSING, FAILING]) {
      const uri = labUri(file);
      const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
        uri: uri.toString(),
        confirmed: true,
      });
      assert.ok(result?.lab, `deploy of ${file} failed`);
      deployed.push(uri);
      const started = await vscode.commands.executeCommand<{ started?: number }>(LabCommand.startLab, {
        uri: uri.toString(),
      });
      assert.strictEqual(started?.started, 5, `start of ${file}: ${JSON.stringify(started)}`);
    }
  });

  it("runs the OSPF sample's tests from the gutter and sees all six pass", async () => {
    await showTests(labUri(PASSING));
    await askRunner({ action: 'click', selector: '.monaco-editor .testing-run-glyph.codicon-testing-run-all-icon' });
    // The lab's own glyph turns green once every one of its tests passed.
    await seen('.monaco-editor .testing-run-glyph.codicon-testing-passed-icon', 'a passed glyph in the gutter', RUN_MS);
    const failed = await askRunner({
      action: 'attributes',
      selector: '.monaco-editor .testing-run-glyph.codicon-testing-failed-icon',
      timeoutMs: 500,
    });
    assert.ok(!failed.ok, 'a test of the OSPF sample failed: see failed-*.png');
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    // The Test Explorer lists labs collapsed: open the lab's row to see its tests.
    await askRunner({ action: 'click', selector: `${row(PASSING)} .monaco-tl-twistie` });
    for (const name of PASSING_TESTS) await seen(`${row(name)} .codicon-testing-passed-icon`, `${name} passed`);
    await screenshot('lab-tests-passed', `${row(PASSING_TESTS[0])} .codicon-testing-passed-icon`);
  });

  it("marks the OSPF sample's results stale when one of its nodes stops (lab-tests-stale.png)", async () => {
    // VS Code marks retired (outdated) results with the class `retired` on the Test Explorer's state
    // icon and draws them faded. (Its gutter glyphs in code-server kept their look: not checked.)
    await stopH1();
    await screenshot('lab-tests-stale', `${row(PASSING_TESTS[0])} .codicon-testing-passed-icon.retired`);
  });

  it('with labAgent.tests.runAfter on, starting the node runs the tests again by itself (lab-tests-rerun.png)', async () => {
    const settings = vscode.workspace.getConfiguration('labAgent');
    await settings.update('tests.runAfter', true, vscode.ConfigurationTarget.Global);
    try {
      await startH1();
      // No click: fresh (not outdated) results can only come from a run the start began.
      await vscode.commands.executeCommand('workbench.view.testing.focus');
      for (const name of PASSING_TESTS)
        await seen(`${row(name)} .codicon-testing-passed-icon:not(.retired)`, `${name} passed again`, RUN_MS);
      await screenshot('lab-tests-rerun', `${row(PASSING_TESTS[0])} .codicon-testing-passed-icon:not(.retired)`);
    } finally {
      await settings.update('tests.runAfter', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("with the Testing view's own continuous run on for the OSPF sample, starting a node reruns its tests; off, it does not (lab-tests-continuous.png)", async () => {
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    // The eye in the lab's row (VS Code's testing.toggleContinuousRunForTest, drawn while the row is
    // hovered or focused because the profile supports continuous run).
    await askRunner({ action: 'hover', selector: row(PASSING) });
    await askRunner({ action: 'click', selector: `${row(PASSING)} ${CONTINUOUS_OFF}` });
    try {
      await seen(`${row(PASSING)} ${CONTINUOUS_ON}`, 'the lab row with continuous run on');
      await screenshot('lab-tests-continuous', `${row(PASSING)} ${CONTINUOUS_ON}`);
      await stopH1();
      await startH1();
      // labAgent.tests.runAfter is off: fresh results can only come from the continuous run.
      for (const name of PASSING_TESTS)
        await seen(`${row(name)} .codicon-testing-passed-icon:not(.retired)`, `${name} passed again`, RUN_MS);
    } finally {
      // Turned off as a user does, with the same eye (now drawn as "Turn off Continuous Run").
      await askRunner({ action: 'hover', selector: row(PASSING) });
      await askRunner({ action: 'click', selector: `${row(PASSING)} ${CONTINUOUS_ON}` });
    }
    await seen(`${row(PASSING)} ${CONTINUOUS_OFF}`, 'the lab row with continuous run off again');
    const runs = await testRuns();
    await stopH1();
    await startH1();
    // A run would begin before the start command returned (labChanged is called in it) and show in
    // the Test Results view at once: after 10 s there is still no new one.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    assert.strictEqual(await testRuns(), runs, 'the tests ran again with continuous run off');
  });

  it("runs the failing sample's tests and sees exactly its one failure (the message at the line: lab-tests-failure.png)", async () => {
    const editor = await showTests(labUri(FAILING));
    // Test: Run Tests in Current File (the gutter's run button is proven on the OSPF sample above; after
    // the continuous-run step the Test Results panel is open and the `tests:` line can sit under it).
    await vscode.commands.executeCommand('testing.runCurrentFile');
    await seen(`${row(FAILING)} .codicon-testing-failed-icon`, `${FAILING} failed`, RUN_MS);
    await askRunner({ action: 'click', selector: `${row(FAILING)} .monaco-tl-twistie` });
    await seen(`${row(FAILING_TEST)} .codicon-testing-failed-icon`, `${FAILING_TEST} failed`, RUN_MS);
    await seen(`${row('h1 reaches h2')} .codicon-testing-passed-icon`, 'h1 reaches h2 passed');
    // VS Code draws the message at the end of the test's line as CSS content, not in the page's
    // text: the screenshot shows it (expected != actual beside the line), the checks above its state.
    const line = editor.document.getText().split('\n').indexOf(`  ${FAILING_TEST}:`);
    assert.ok(line >= 0, `${FAILING_TEST} is not in the file`);
    await screenshot('lab-tests-failure', '.monaco-editor .view-lines');
    // The failure's peek (expected against actual), opened as the message's hover link does:
    // vscode.peekTestError with the test's id in VS Code's form (controller, lab, test, joined by NUL).
    const labId = labUri(FAILING).toString();
    await vscode.commands.executeCommand(
      'vscode.peekTestError',
      ['labAgent.labTests', labId, `${labId}#${FAILING_TEST}`].join('\0'),
    );
    await seen('.monaco-editor .peekview-widget', 'the failure peek');
    await screenshot('lab-tests-peek', '.monaco-editor .peekview-widget');
  });

  it('destroys both labs', async () => {
    while (deployed.length > 0) {
      const uri = deployed[0];
      const destroyed = await vscode.commands.executeCommand<{ status?: string }>(LabCommand.destroy, {
        uri: uri.toString(),
        confirmed: true,
      });
      assert.strictEqual(destroyed?.status, 'destroyed', `destroy of ${uri.fsPath}`);
      deployed.shift();
    }
  });
});
