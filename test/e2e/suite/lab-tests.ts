/// <reference types="mocha" />
/**
 * Lab tests in VS Code's Testing UI, against the Linux emulator agent the runner started: deploy
 * and start samples/ospf/ospf.lab.yaml and its failing twin (samples/ospf/failing.lab.yaml),
 * see the Test Explorer list each lab's tests, run the OSPF sample's from the run button in the
 * gutter of its `tests:` line and see all six pass in the gutter and in the Test Explorer
 * (`lab-tests-passed.png`), run the failing sample's the same way and see its one failure at the
 * test's line (`lab-tests-failure.png` shows expected != actual beside it), and
 * destroy both labs. (That an edit marks results stale is unit-tested in test/client/run-plan.test.ts;
 * which gutter glyph VS Code then draws is not checked here.)
 * Runs in the same extension host as frr.ts, after it; it logs in itself so that it runs alone too.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';

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
    const loggedIn = await vscode.commands.executeCommand<boolean>(LabCommand.login, {
      url: process.env.LAB_AGENT_E2E_LINUX_URL,
      username: process.env.LAB_AGENT_E2E_USER,
      password: process.env.LAB_AGENT_E2E_PASSWORD,
      pin: process.env.LAB_AGENT_E2E_LINUX_FINGERPRINT,
    });
    assert.strictEqual(loggedIn, true, 'login failed');
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

  it("runs the failing sample's tests and sees exactly its one failure (the message at the line: lab-tests-failure.png)", async () => {
    const editor = await showTests(labUri(FAILING));
    await askRunner({ action: 'click', selector: '.monaco-editor .testing-run-glyph.codicon-testing-run-all-icon' });
    await seen(`${row(FAILING)} .codicon-testing-failed-icon`, `${FAILING} failed`, RUN_MS);
    await askRunner({ action: 'click', selector: `${row(FAILING)} .monaco-tl-twistie` });
    await seen(`${row(FAILING_TEST)} .codicon-testing-failed-icon`, `${FAILING_TEST} failed`, RUN_MS);
    await seen(`${row('h1 reaches h2')} .codicon-testing-passed-icon`, 'h1 reaches h2 passed');
    // VS Code draws the message at the end of the test's line as CSS content, not in the page's
    // text: the screenshot shows it (expected != actual beside the line), the checks above its state.
    const line = editor.document.getText().split('\n').indexOf(`  ${FAILING_TEST}:`);
    assert.ok(line >= 0, `${FAILING_TEST} is not in the file`);
    await screenshot('lab-tests-failure', '.monaco-editor .view-lines');
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
