/// <reference types="mocha" />
/**
 * Two agents at once (#32): the simulated agent as "default" and the Linux emulator agent the
 * runner started on another port as "linux". The workspace folder's setting labAgent.agent binds
 * its labs to "linux"; one lab is moved back to "default" with Move Lab (its own choice, kept per
 * file). Each lab completes its own agent's templates (vios on the simulated one, frr on Linux),
 * deploys to its own agent and opens its own console; the Labs view groups them by agent
 * (`two-agents-labs.png`). Stopping the simulated agent marks only its lab unreachable (plan lens,
 * Labs view: `two-agents-one-down.png`) while the Linux lab keeps working.
 * Runs last in the extension host; leaves both labs destroyed and the settings as found.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { ALL_AGENT_LOGS, loggedCalls } from './agent-log';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { completionLabels } from './completions';
import { eventually } from './eventually';
import { linuxAgentOrSkip } from './frr-lab';

const LINUX = 'linux';
const VIOS_IMAGE = 'vios-adventerprisek9-m.SPA.159-3.M6';
const EVE_LAB = `name: two-agents-eve
nodes:
  v1:
    template: vios
    image: ${VIOS_IMAGE}
    ethernet: 4
  v2:
    template: vios
    image: ${VIOS_IMAGE}
    ethernet: 4
links:
  - endpoints: [v1:Gi0/0, v2:Gi0/0]
`;
const FRR_LAB = `name: two-agents-frr
nodes:
  f1:
    template: frr
    ethernet: 1
  f2:
    template: frr
    ethernet: 1
links:
  - endpoints: [f1:eth0, f2:eth0]
`;

/** The calls of one kind both agents have logged so far (the simulated agent's and the Linux agent's logs). */
function statusReads(call = 'getProjectStatus'): number {
  return loggedCalls(call, ALL_AGENT_LOGS);
}

/**
 * The count of `call` once loads already under way have ended: unchanged for 2.5 s, waited for up
 * to 30 s. A load started before a collapse still reads what it started to read.
 */
async function settledReads(call?: string): Promise<number> {
  const until = Date.now() + 30_000;
  let last = statusReads(call);
  let stillSince = Date.now();
  while (Date.now() - stillSince < 2500) {
    assert.ok(Date.now() < until, `the agents are still asked (${call ?? 'getProjectStatus'}) 30 s after the collapse`);
    await pause(250);
    const now = statusReads(call);
    if (now !== last) [last, stillSince] = [now, Date.now()];
  }
  return last;
}

async function logInToSimulated(): Promise<void> {
  const loggedIn = await vscode.commands.executeCommand<boolean>(LabCommand.login, {
    agent: 'default',
    url: env('LAB_AGENT_E2E_URL'),
    username: env('LAB_AGENT_E2E_USER'),
    password: env('LAB_AGENT_E2E_PASSWORD'),
    pin: env('LAB_AGENT_E2E_FINGERPRINT'),
  });
  assert.strictEqual(loggedIn, true, 'login to the simulated agent failed');
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with test/e2e/run.mjs`);
  return value;
}

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  // VS Code answers only for a document it has loaded ("Illegal argument" otherwise).
  await vscode.workspace.openTextDocument(uri);
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 20);
  return lenses.map((l) => l.command?.title ?? '');
}

/** The first plan lens title matching `pattern`, waited for. */
function planLens(uri: vscode.Uri, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return eventually(
    `a plan lens matching ${pattern} on ${uri.path}`,
    async () => (await lensTitles(uri)).find((t) => pattern.test(t)),
    timeoutMs,
  );
}

/** The template ids the language server offers at the value of the first `template:` line. */
async function templateCompletions(uri: vscode.Uri): Promise<string[]> {
  const editor = await vscode.window.showTextDocument(uri);
  const doc = editor.document;
  const original = doc.getText();
  const at = /^( {4}template: )\S+$/m.exec(original);
  assert.ok(at, `${uri.path} has no template line`);
  const start = doc.positionAt(at.index + at[1].length);
  const end = doc.positionAt(at.index + at[0].length);
  assert.ok(await editor.edit((e) => e.delete(new vscode.Range(start, end))));
  try {
    return await completionLabels('template completions', uri, start);
  } finally {
    const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
    assert.ok(await editor.edit((e) => e.replace(all, original)));
    // A save can fail while the machine is busy (seen under load): it is tried again.
    await eventually(`saving ${uri.path}`, async () => ((await doc.save()) ? true : undefined), 15_000);
  }
}

/** The Labs view's rows as the workbench shows them, once they match. */
async function labsViewText(match: RegExp): Promise<string> {
  const extension = vscode.extensions.getExtension('lab-agent.lab-agent');
  assert.ok(extension);
  const views = (extension.packageJSON.contributes?.views ?? {}) as Record<string, { id: string; name: string }[]>;
  const [container, list] = Object.entries(views).find(([, l]) => l.some((v) => /^labs$/i.test(v.name))) ?? [];
  const view = list?.find((v) => /^labs$/i.test(v.name));
  assert.ok(container && view, 'the extension contributes no Labs view');
  await vscode.commands.executeCommand(`workbench.view.extension.${container}`);
  await vscode.commands.executeCommand(`${view.id}.focus`);
  const rows = `.pane:has(.pane-header:has-text("${view.name}")) .monaco-list-rows`;
  const response = await askRunner({ action: 'text', selector: rows, match: match.source, flags: match.flags });
  assert.ok(response.ok, `could not read the Labs view: ${response.error}`);
  const text = response.text ?? '';
  assert.match(text, match, `the Labs view shows:\n${text}`);
  return text;
}

/** Starts the node, opens its console and waits for `prompt` in the terminal; returns the terminal. */
async function consolePrompt(uri: vscode.Uri, lab: string, node: string, prompt: RegExp): Promise<void> {
  const started = await vscode.commands.executeCommand<unknown>(LabCommand.startNode, { uri: uri.toString(), node });
  assert.ok(started, `starting ${node} failed`);
  // The console answers once the node runs: the Labs view says so (one of the lab's two nodes up).
  if (hasRunnerChannel()) await labsViewText(new RegExp(`^${lab}\\S*partial \\(1/2 up\\)`, 'm'));
  const name = await vscode.commands.executeCommand<string>(LabCommand.openConsole, { uri: uri.toString(), node });
  assert.ok(name, `opening the console of ${node} failed`);
  const terminal = await eventually(`the terminal ${name}`, () => vscode.window.terminals.find((t) => t.name === name));
  terminal.show();
  if (!hasRunnerChannel()) return;
  terminal.sendText('', true);
  const shown = await askRunner({
    action: 'text',
    selector: '.terminal-wrapper.active .xterm-rows',
    match: prompt.source,
    timeoutMs: 20_000,
  });
  assert.match(shown.text ?? '', prompt, `the console of ${node} shows:\n${shown.text ?? shown.error}`);
}

describe('Two agents at once (simulated and Linux)', function () {
  this.timeout(120_000);
  let eveUri: vscode.Uri;
  let frrUri: vscode.Uri;
  const deployed = new Set<string>();
  let simulatedStopped = false;

  before(async function () {
    linuxAgentOrSkip(this, 'the two-agent scenario');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    eveUri = vscode.Uri.joinPath(folder.uri, 'two-agents', 'eve.lab.yaml');
    frrUri = vscode.Uri.joinPath(folder.uri, 'two-agents', 'frr.lab.yaml');
    await vscode.workspace.fs.writeFile(eveUri, Buffer.from(EVE_LAB));
    await vscode.workspace.fs.writeFile(frrUri, Buffer.from(FRR_LAB));
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    if (simulatedStopped) {
      // The restarted agent has forgotten the session: log in again, or its lab could not be destroyed.
      await askRunner({ action: 'agent', op: 'start' });
      await logInToSimulated();
    }
    for (const uri of [eveUri, frrUri].filter((u) => u && deployed.has(u.toString())))
      await vscode.commands.executeCommand(LabCommand.destroy, { uri: uri.toString(), confirmed: true });
    await vscode.workspace
      .getConfiguration('labAgent', eveUri)
      .update('agent', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    await vscode.commands.executeCommand(LabCommand.removeAgent, { agent: LINUX });
  });

  it('logs in to the simulated agent as "default" and adds the Linux agent as "linux"', async () => {
    await logInToSimulated();
    await vscode.commands.executeCommand(LabCommand.addAgent, {
      name: LINUX,
      url: env('LAB_AGENT_E2E_LINUX_URL'),
      username: env('LAB_AGENT_E2E_USER'),
      password: env('LAB_AGENT_E2E_PASSWORD'),
      pin: env('LAB_AGENT_E2E_LINUX_FINGERPRINT'),
    });
    const agents = vscode.workspace.getConfiguration('labAgent').get<{ name: string; url: string }[]>('agents') ?? [];
    const linux = agents.find((a) => a.name === LINUX);
    assert.ok(linux, `labAgent.agents has no "${LINUX}": ${JSON.stringify(agents)}`);
    assert.ok(!JSON.stringify(agents).includes(env('LAB_AGENT_E2E_PASSWORD')), 'a password reached the settings');
  });

  it('binds the folder to "linux" by its setting and one lab to "default" by Move Lab', async () => {
    await vscode.workspace
      .getConfiguration('labAgent', eveUri)
      .update('agent', LINUX, vscode.ConfigurationTarget.WorkspaceFolder);
    await vscode.window.showTextDocument(eveUri);
    await vscode.commands.executeCommand(LabCommand.moveLab, {
      uri: eveUri.toString(),
      agent: 'default',
      confirmed: true,
    });
    // Each lab plans against its own agent: both create their two nodes, neither has errors.
    await planLens(frrUri, /^Plan( on "linux")?: \+\d+/, 60_000);
    await planLens(eveUri, /^Plan: \+\d+/);
    for (const uri of [eveUri, frrUri]) {
      const errors = vscode.languages
        .getDiagnostics(uri)
        .filter((d) => d.severity === vscode.DiagnosticSeverity.Error)
        .map((d) => `${d.range.start.line + 1}: ${d.message}`);
      assert.deepStrictEqual(errors, [], `${uri.path} has errors on its agent`);
    }
  });

  it("each lab completes its own agent's templates", async () => {
    const eve = await templateCompletions(eveUri);
    const frr = await templateCompletions(frrUri);
    assert.ok(eve.includes('vios'), `the simulated agent's lab is offered: ${eve.join(', ')}`);
    assert.ok(!eve.includes('frr'), `the simulated agent's lab is offered frr: ${eve.join(', ')}`);
    assert.ok(frr.includes('frr'), `the Linux agent's lab is offered: ${frr.join(', ')}`);
    assert.ok(!frr.includes('vios'), `the Linux agent's lab is offered vios: ${frr.join(', ')}`);
  });

  it('deploys each lab to its own agent', async () => {
    for (const uri of [eveUri, frrUri]) {
      await vscode.window.showTextDocument(uri);
      const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
        uri: uri.toString(),
        confirmed: true,
      });
      assert.ok(result?.lab, `deploying ${uri.path} failed`);
      deployed.add(uri.toString());
    }
    await planLens(eveUri, /^Plan: no changes/);
    await planLens(frrUri, /^Plan( on "linux")?: no changes/, 60_000);
  });

  it('opens each lab’s console on its own agent', async () => {
    await consolePrompt(eveUri, 'two-agents-eve', 'v1', /v1[#>]/);
    await consolePrompt(frrUri, 'two-agents-frr', 'f1', /f1#/);
    // Real FRR answers on the Linux lab's console: the simulated agent has no FRR.
    const version = await vscode.commands.executeCommand<{ output?: string }>(LabCommand.execConsole, {
      uri: frrUri.toString(),
      node: 'f1',
      command: 'show version',
    });
    assert.match(version?.output ?? '', /FRRouting/, `show version on f1: ${version?.output}`);
  });

  it('shows both agents as groups of the Labs view, each with its own lab', async function () {
    if (!hasRunnerChannel()) this.skip();
    const text = await labsViewText(/two-agents-eve[\s\S]*two-agents-frr|two-agents-frr[\s\S]*two-agents-eve/);
    // The default group (first) holds the eve lab; the linux group the FRR one.
    const defaultAt = text.search(/^default\S* · /m);
    const linuxAt = text.search(/^linux\S* · /m);
    assert.ok(defaultAt >= 0 && linuxAt > defaultAt, `no default then linux group:\n${text}`);
    assert.ok(text.indexOf('two-agents-eve') < linuxAt, `two-agents-eve is not under default:\n${text}`);
    assert.ok(text.indexOf('two-agents-frr') > linuxAt, `two-agents-frr is not under linux:\n${text}`);
    await screenshot('two-agents-labs');
  });

  it('stopping the simulated agent marks only its lab unreachable; the Linux lab keeps working', async function () {
    if (!hasRunnerChannel()) this.skip();
    const stopped = await askRunner({ action: 'agent', op: 'stop' });
    assert.ok(stopped.ok, `stopping the simulated agent failed: ${stopped.error}`);
    simulatedStopped = true;
    await vscode.commands.executeCommand(LabCommand.refreshLabs);
    await labsViewText(/^default\S* · unreachable/m);
    const eveLens = await planLens(eveUri, /^Plan: agent unreachable/, 60_000);
    const frrLens = await planLens(frrUri, /^Plan( on "linux")?: no changes/, 60_000);
    assert.ok(eveLens && frrLens);
    await labsViewText(/^linux\S* · connected/m);
    const output = await vscode.commands.executeCommand<{ output?: string }>(LabCommand.execConsole, {
      uri: frrUri.toString(),
      node: 'f1',
      command: 'show version',
    });
    assert.match(output?.output ?? '', /FRRouting/, 'the Linux lab stopped working with the other agent');
    await screenshot('two-agents-one-down');
  });

  it('a collapsed agent group is off screen: refreshing the Labs and Consoles views asks no agent for its labs', async function () {
    if (!hasRunnerChannel()) this.skip();
    // Expanded, a refresh reads the Linux lab's status (the simulated agent is down since the step before).
    const expanded = statusReads();
    await vscode.commands.executeCommand(LabCommand.refreshLabs);
    await eventually(
      'a status read for the expanded groups',
      () => (statusReads() > expanded ? true : undefined),
      15_000,
    );
    await vscode.commands.executeCommand('workbench.actions.treeView.labAgent.labs.collapseAll');
    const collapsed = await settledReads();
    await vscode.commands.executeCommand(LabCommand.refreshLabs);
    await labsViewText(/^linux\S* · connected/m);
    await pause(3000);
    assert.strictEqual(statusReads(), collapsed, 'a lab under a collapsed agent was read');
    // The Consoles view the same way: its agents' console lists.
    const listed = statusReads('listProjectConsoles');
    await vscode.commands.executeCommand(LabCommand.refreshConsoles);
    await eventually(
      'a console list for the expanded groups',
      () => (statusReads('listProjectConsoles') > listed ? true : undefined),
      15_000,
    );
    await vscode.commands.executeCommand('workbench.actions.treeView.labAgent.consoles.collapseAll');
    const consolesCollapsed = await settledReads('listProjectConsoles');
    await vscode.commands.executeCommand(LabCommand.refreshConsoles);
    await pause(3000);
    assert.strictEqual(
      statusReads('listProjectConsoles'),
      consolesCollapsed,
      'consoles under a collapsed agent were listed',
    );
    await screenshot('two-agents-collapsed');
  });
});
