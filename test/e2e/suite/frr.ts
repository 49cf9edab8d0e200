/// <reference types="mocha" />
/**
 * Real routers from VS Code: against the second agent the runner started with `--emulator linux`,
 * Open the Sample Lab opens the FRR sample, which plans without an error; deploy
 * samples/ospf/ospf.lab.yaml (three FRR routers, two hosts) with the extension's commands, see
 * Start All stay on the file, start every node, wait until OSPF is Full, see the topology at its
 * default size name every node readably (`topology-ospf.png`), type `show ip ospf neighbor` into
 * r1's console terminal and keep a screenshot of it (`frr-console.png`), destroy the lab.
 * Runs after scenario.ts, in the same extension host: it logs in to the other agent.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { eventually } from './eventually';
import { linuxAgentOrSkip, waitForFull } from './frr-lab';
import { logInToLinuxAgent } from './log-in';
import { onScreen, topologyAttributes, topologyViewport } from './topology-page';

const LAB_FILE = 'ospf/ospf.lab.yaml';
/** r1 has one OSPF neighbour (r2; its side towards h1 is passive), r2 two. */
const EXPECTED_FULL = { r1: 1, r2: 2 } as const;

describe('Real FRR routers from VS Code (Linux emulator agent)', function () {
  this.timeout(120_000);
  let labUri: vscode.Uri;
  let deployed = false;

  before(function () {
    linuxAgentOrSkip(this, 'the FRR scenario');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    // Leave the machine as found even when a step failed; the runner then stops the agent.
    if (deployed) await vscode.commands.executeCommand(LabCommand.destroy, { uri: labUri.toString(), confirmed: true });
  });

  it('logs in to the Linux emulator agent', async () => {
    const loggedIn = await logInToLinuxAgent();
    assert.strictEqual(loggedIn, true, 'login failed');
  });

  it('Open the Sample Lab on this agent opens the FRR sample, which it plans without an error', async () => {
    const opened = await vscode.commands.executeCommand<string>(LabCommand.openSample);
    assert.ok(opened?.endsWith('/samples/ospf/ospf.lab.yaml'), `opened ${opened}, not the FRR sample`);
    const sample = vscode.Uri.parse(opened);
    // A plan summary on the lens means the agent read the lab with its catalogue: the errors are in by then.
    const title = await eventually('a resolved plan lens', async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
        'vscode.executeCodeLensProvider',
        sample,
        20,
      );
      return lenses.map((l) => l.command?.title ?? '').find((t) => /^Plan: (\+\d+|no changes)/.test(t));
    });
    const errors = vscode.languages
      .getDiagnostics(sample)
      .filter((d) => d.severity === vscode.DiagnosticSeverity.Error)
      .map((d) => `${d.range.start.line + 1}: ${d.message}`);
    assert.deepStrictEqual(errors, [], `the sample has errors on this agent (lens: ${title})`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('deploys the OSPF sample and starts every node', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    labUri = vscode.Uri.joinPath(folder.uri, LAB_FILE);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(labUri));
    const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    assert.ok(result?.lab, 'deploy failed');
    deployed = true;
    // The next step stays on the file once the deploy's notification is gone.
    await eventually('a Start All lens on the deployed, stopped lab', async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', labUri);
      return lenses.some((l) => l.command?.title === 'Start All') ? true : undefined;
    });
    const started = await vscode.commands.executeCommand<{ started?: number; failed?: number }>(LabCommand.startLab, {
      uri: labUri.toString(),
    });
    assert.strictEqual(started?.started, 5, `start: ${JSON.stringify(started)}`);
  });

  it('forms OSPF adjacencies (show ip ospf neighbor through console exec)', async () => {
    await waitForFull(labUri, EXPECTED_FULL);
  });

  it('shows the topology at its default size with every node named readably', async function () {
    if (!hasRunnerChannel()) this.skip();
    // The only webview open: the runner looks into one.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.window.showTextDocument(labUri);
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: labUri.toString() });
    await topologyAttributes('#elements button[data-id="node:r1"][data-state="running"]', 60_000);
    const page = await topologyAttributes('body[data-name-pixels][data-drawing-size]');
    const pixels = Number(page['data-name-pixels']);
    const [width, height] = page['data-drawing-size'].split('x').map(Number);
    assert.ok(pixels >= 9, `at Fit in a ${width}×${height} view, names are drawn ${pixels} px high`);
    const view = await topologyViewport();
    for (const name of ['r1', 'r2', 'r3', 'h1', 'h2']) {
      const button = await topologyAttributes(`#elements button[data-id="node:${name}"]`);
      const [x, y] = (button['data-position'] ?? '').split(',').map(Number);
      const at = onScreen({ x, y }, view);
      const inside = at.x >= 0 && at.y >= 0 && at.x <= width && at.y <= height;
      assert.ok(
        inside,
        `${name} is drawn at ${Math.round(at.x)},${Math.round(at.y)}, outside the ${width}×${height} view`,
      );
    }
    const shot = await askRunner({
      action: 'screenshot',
      name: 'topology-ospf',
      waitFor: '#elements button',
      frame: 'webview',
    });
    assert.ok(shot.ok, `screenshot topology-ospf failed: ${shot.error}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it("shows r1's neighbours Full in its console terminal", async function () {
    const name = await vscode.commands.executeCommand<string>(LabCommand.openConsole, {
      uri: labUri.toString(),
      node: 'r1',
    });
    assert.ok(name, 'opening the console of r1 failed');
    const terminal = vscode.window.terminals.find((t) => t.name === name);
    assert.ok(terminal, `no terminal named ${name}`);
    terminal.show();
    if (!hasRunnerChannel()) this.skip();
    const rows = '.terminal-wrapper.active .xterm-rows';
    terminal.sendText('', true);
    const prompt = await askRunner({ action: 'text', selector: rows, match: 'r1#', timeoutMs: 20_000 });
    assert.match(prompt.text ?? '', /r1#/, `the console shows:\n${prompt.text ?? prompt.error}`);
    terminal.sendText('show ip ospf neighbor', true);
    const shown = await askRunner({ action: 'text', selector: rows, match: 'Full/', timeoutMs: 20_000 });
    assert.match(shown.text ?? '', /10\.255\.0\.2\s+\d+\s+Full\//, `the console shows:\n${shown.text ?? shown.error}`);
    await screenshot('frr-console', `${rows}:has-text("Full/")`);
  });

  it('destroys the lab', async () => {
    const destroyed = await vscode.commands.executeCommand<{ status?: string }>(LabCommand.destroy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    assert.strictEqual(destroyed?.status, 'destroyed');
    deployed = false;
  });
});
