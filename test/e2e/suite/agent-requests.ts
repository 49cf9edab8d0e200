/// <reference types="mocha" />
/**
 * How many requests an action costs, counted in the reference agent's own log (one
 * `[agent] <operation> -> <status>` line per request): a deploy asks no status before it (the
 * deploy answers lab_exists itself), and with the Labs view open an action's status is read once
 * for the node lenses and the view together. A lab of its own is written to the workspace,
 * deployed and destroyed. It logs in itself so that it can run alone (--grep requests).
 */
import * as assert from 'assert';
import { writeFileSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { loggedCalls, SIMULATED_AGENT_LOGS } from './agent-log';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure } from './channel';
import { eventually } from './eventually';
import { closeTopologyViews, topologyAttributes } from './topology-page';
import { removeFromWorkspace } from './workspace-files';
import { simulatedAgentWorkspace } from './log-in';

const LAB_FILE = 'requests.lab.yaml';
const LAB_TEXT = `name: requests
nodes:
  ra:
    template: vios
    image: vios-adventerprisek9-m.SPA.159-3.M6
    ethernet: 4
  rb:
    template: vios
    image: vios-adventerprisek9-m.SPA.159-3.M6
    ethernet: 4
links:
  - endpoints: [ra:Gi0/0, rb:Gi0/0]
`;

/** The status requests the simulated agent has logged so far (a restart, in scenario.ts, starts another log file). */
function statusReads(): number {
  return loggedCalls('getProjectStatus', SIMULATED_AGENT_LOGS);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('Requests to the agent per action', function () {
  this.timeout(120_000);
  let labUri: vscode.Uri;
  let deployed = false;

  before(async function () {
    if (!hasRunnerChannel()) this.skip();
    const folder = await simulatedAgentWorkspace();
    // A visible view's idle loads wait the interval (and longer while nothing changes): none comes while this counts.
    await vscode.workspace
      .getConfiguration()
      .update('labAgent.refresh.intervalSeconds', 600, vscode.ConfigurationTarget.Global);
    labUri = vscode.Uri.file(path.join(folder.uri.fsPath, LAB_FILE));
    writeFileSync(labUri.fsPath, LAB_TEXT);
    // No view that reads the lab's status is visible: the explorer instead of the Lab Agent views,
    // no topology view.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await closeTopologyViews();
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(labUri), vscode.ViewColumn.One);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration()
      .update('labAgent.refresh.intervalSeconds', undefined, vscode.ConfigurationTarget.Global);
    if (deployed) await vscode.commands.executeCommand(LabCommand.destroy, { uri: labUri.toString(), confirmed: true });
    if (labUri) await removeFromWorkspace(labUri.fsPath);
  });

  it('asks the agent no status before a deploy: the question comes first, the deploy is the one request', async () => {
    // Earlier actions' reads (a node settling, in scenario.ts) are over before this counts.
    await pause(3000);
    const before = statusReads();
    // The workbench refuses modal dialogs under test: the deploy's question is answered "cancel".
    const cancelled = await vscode.commands.executeCommand<unknown>(LabCommand.deploy, { uri: labUri.toString() });
    assert.strictEqual(cancelled, undefined, 'the deploy went ahead without its question');
    const asked = statusReads() - before;
    assert.strictEqual(asked, 0, `the deploy read the lab's status ${asked} time(s) before asking`);
    const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    deployed = result?.lab !== undefined;
    assert.ok(deployed, 'the deploy failed');
  });

  it("reads an action's status once for the node lenses and the Labs view together", async () => {
    const extension = vscode.extensions.all.find((e) => e.id.toLowerCase() === 'lab-agent.lab-agent');
    assert.ok(extension, 'the extension is not installed');
    const views = (extension.packageJSON.contributes?.views ?? {}) as Record<string, { id: string }[]>;
    const container = Object.entries(views).find(([, list]) => list.some((v) => v.id === 'labAgent.labs'))?.[0];
    assert.ok(container, 'no container holds the Labs view');
    await vscode.commands.executeCommand(`workbench.view.extension.${container}`);
    await vscode.commands.executeCommand('labAgent.labs.focus');
    // What one load of the view costs: one status per lab file (every lab of the workspace is read).
    const labs = (await vscode.workspace.findFiles('**/*.{lab.yaml,lab.yml}', '**/{node_modules,.git,.lab-agent}/**'))
      .length;
    // The deploy's follow-up loads (every 2 s for 20 s after an action) are over.
    await pause(22_000);
    const before = statusReads();
    // A push of an unchanged lab: an action that leaves every node as it was (nothing settles).
    await vscode.commands.executeCommand(LabCommand.reconcileToEmu, { uri: labUri.toString(), prune: false });
    // The view's load after the action, and the lenses' read; the view's next load waits 2 s after its load.
    await eventually('the Labs view to load after the push', () => (statusReads() - before >= labs ? true : undefined));
    await pause(1000);
    const reads = statusReads() - before;
    assert.strictEqual(reads, labs, `${reads} status reads after a push with ${labs} lab files in the Labs view`);
  });

  it('shows the topology in a narrow view: the list under the drawing, no overlapping interface names at Fit', async () => {
    const campus = vscode.Uri.file(path.join(path.dirname(labUri.fsPath), 'campus.lab.yaml'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(campus), vscode.ViewColumn.One);
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: campus.toString() });
    // Shown again: the view takes the focus, and its editor group is made as narrow as the workbench allows.
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: campus.toString() });
    for (let i = 0; i < 12; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
    const fit = await askRunner({ action: 'click', selector: '#fit', frame: 'webview' });
    assert.ok(fit.ok, `could not press Fit: ${fit.error}`);
    const size = await eventually('the drawing narrowed', async () => {
      const shown = (await topologyAttributes('body[data-drawing-size]'))['data-drawing-size'];
      const [width] = shown.split('x').map(Number);
      return width < 400 ? shown : undefined;
    });
    console.log(`narrow topology: the drawing is ${size} px`);
    const shot = await askRunner({
      action: 'screenshot',
      name: 'topology-narrow',
      waitFor: '#elements button',
      frame: 'webview',
    });
    assert.ok(shot.ok, `screenshot failed: ${shot.error}`);
    await vscode.commands.executeCommand('workbench.action.evenEditorWidths');
  });
});
