/// <reference types="mocha" />
/**
 * A user's first session, run in the real extension host against the reference agent the
 * runner started: log in pinning the agent's certificate, author samples/campus.lab.yaml with
 * the language features, deploy it, start a node and use its console, destroy the lab.
 * The tests run in order and build on each other, as the user's steps do.
 */
import * as assert from 'assert';
import { existsSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { parse } from 'yaml';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { completionLabels } from './completions';
import { eventually } from './eventually';
import { dragNode, topologyAttributes, topologyText, withAutoSave } from './topology-page';
import { LabCommand } from '../../../common/commands';

const EXTENSION_ID = 'lab-agent.lab-agent';
const LAB_FILE = 'campus.lab.yaml';
/** The status bar item of the connection (VS Code gives it the id `<extension id>.<item id>`). */
const STATUS_ITEM = '.statusbar-item[id$="labAgent.connection"]';
/** The input box of a prompt (the password). */
const INPUT_BOX = '.quick-input-widget input';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with test/e2e/run.mjs or electron.mjs`);
  return value;
}

interface ContributedView {
  id: string;
  name: string;
}

/** A view the extension contributes, found by its name, and the container that holds it. */
function contributedView(
  extension: vscode.Extension<unknown>,
  name: RegExp,
): { view: ContributedView; container: string } {
  const views = (extension.packageJSON.contributes?.views ?? {}) as Record<string, ContributedView[]>;
  for (const [container, list] of Object.entries(views)) {
    const view = list.find((v) => name.test(v.name));
    if (view) return { view, container };
  }
  throw new Error(`the extension contributes no view named ${name}`);
}

/** A Playwright selector for the rows of a sidebar view, by the title its pane header shows. */
function viewRows(view: ContributedView): string {
  return `.pane:has(.pane-header:has-text("${view.name}")) .monaco-list-rows`;
}

/** Asks the runner for the text a selector shows, once it matches. */
async function shownText(selector: string, match: RegExp, timeoutMs = 20_000): Promise<string> {
  const response = await askRunner({ action: 'text', selector, match: match.source, flags: match.flags, timeoutMs });
  assert.ok(response.ok, `could not read ${selector}: ${response.error}`);
  return response.text ?? '';
}

async function replaceText(editor: vscode.TextEditor, text: string): Promise<void> {
  const doc = editor.document;
  const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  assert.ok(await editor.edit((e) => e.replace(all, text)), 'the edit was not applied');
}

/** The interface part of every `node:interface` endpoint of `node` in the document. */
function usedInterfaces(lab: LabYaml, node: string): string[] {
  return (lab.links ?? [])
    .flatMap((l) => l.endpoints ?? [])
    .filter((e) => e.startsWith(`${node}:`))
    .map((e) => e.slice(node.length + 1));
}

interface LabYaml {
  name?: string;
  nodes?: Record<string, { template?: string; image?: string; ethernet?: number } | null>;
  networks?: Record<string, unknown>;
  links?: { endpoints?: string[] }[];
}

describe('Lab Agent end to end', function () {
  let extension: vscode.Extension<unknown>;
  let labUri: vscode.Uri;
  let original: string;
  let lab: LabYaml;
  let editor: vscode.TextEditor;
  /** The node whose console the scenario uses: the first one with a link. */
  let node: string;
  /** What the plan of the absent lab creates. */
  let created: number;

  /** The Labs view's text once it matches, with the lab's row expanded to show its nodes. */
  async function labsViewText(match: RegExp): Promise<string> {
    const { view, container } = contributedView(extension, /^labs$/i);
    await vscode.commands.executeCommand(`workbench.view.extension.${container}`);
    await vscode.commands.executeCommand(`${view.id}.focus`);
    const collapsed = `${viewRows(view)} .monaco-list-row[aria-expanded="false"]:has-text("${lab.name ?? LAB_FILE}") .monaco-tl-twistie`;
    // Absent when the row is expanded already.
    await askRunner({ action: 'click', selector: collapsed, timeoutMs: 2000 });
    const text = await shownText(viewRows(view), match);
    assert.match(text, match, `the Labs view shows:\n${text}`);
    return text;
  }

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  it('runs the packaged extension and activates it', async () => {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is not installed`);
    extension = found;
    // The VSIX leaves the sources out; a work-tree copy would have them.
    assert.ok(existsSync(path.join(extension.extensionPath, 'dist', 'client.js')), 'dist/client.js is missing');
    assert.ok(
      !existsSync(path.join(extension.extensionPath, 'tsconfig.json')),
      `${extension.extensionPath} is not the packaged extension`,
    );
    await extension.activate();
    assert.ok(extension.isActive);
  });

  it('contributes and registers the commands the scenario uses', async () => {
    const contributed = ((extension.packageJSON.contributes?.commands ?? []) as { command: string }[]).map(
      (c) => c.command,
    );
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const command of Object.values(LabCommand)) {
      assert.ok(contributed.includes(command), `${command} is not in contributes.commands`);
    }
    for (const command of contributed) {
      assert.ok(registered.has(command), `${command} is contributed but not registered`);
    }
  });

  it('logs in, pinning the agent certificate, and fills the Templates view', async function () {
    const loggedIn = await vscode.commands.executeCommand<boolean>(LabCommand.login, {
      // Through the runner's link when there is one, so that the suite can cut it.
      url: process.env.LAB_AGENT_E2E_LINK_URL ?? env('LAB_AGENT_E2E_URL'),
      username: env('LAB_AGENT_E2E_USER'),
      password: env('LAB_AGENT_E2E_PASSWORD'),
      pin: env('LAB_AGENT_E2E_FINGERPRINT'),
    });
    assert.strictEqual(loggedIn, true, 'login failed');
    if (!hasRunnerChannel()) this.skip();
    const { view, container } = contributedView(extension, /templates/i);
    await vscode.commands.executeCommand(`workbench.view.extension.${container}`);
    await vscode.commands.executeCommand(`${view.id}.focus`);
    // Rows are `<id><description>`, sorted by id; the reference agent's catalogue has IOL and Linux
    // templates among the first ones (the list is virtual: only the rows in view are in the DOM).
    const filled = /^iol[^a-z0-9].*\n(.*\n)*linux[^a-z0-9]/m;
    const text = await shownText(viewRows(view), filled);
    assert.match(text, filled, `the Templates view shows:\n${text}`);
    await screenshot('sidebar', viewRows(view));
  });

  it(`opens ${LAB_FILE} as a lab document`, async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    labUri = vscode.Uri.joinPath(folder.uri, LAB_FILE);
    const doc = await vscode.workspace.openTextDocument(labUri);
    assert.strictEqual(doc.languageId, 'lab-yaml');
    editor = await vscode.window.showTextDocument(doc);
    original = doc.getText();
    lab = parse(original) as LabYaml;
    // A linked node with at least two free interfaces: one for the link the suite adds, one to offer.
    node =
      Object.keys(lab.nodes ?? {}).find((n) => {
        const used = usedInterfaces(lab, n).length;
        return used > 0 && (lab.nodes?.[n]?.ethernet ?? 0) >= used + 2;
      }) ?? '';
    assert.ok(node, `${LAB_FILE} has no node with a link`);
  });

  it("completes a link endpoint with the node's free interfaces", async () => {
    const used = usedInterfaces(lab, node);
    // Only the language server's items: no words picked from the document.
    await vscode.workspace
      .getConfiguration('editor')
      .update('wordBasedSuggestions', 'off', vscode.ConfigurationTarget.Global);
    const { text, position } = withNewLink(original, node);
    await replaceText(editor, text);
    try {
      await completeInterfaces(used, position);
    } finally {
      await replaceText(editor, original);
    }
  });

  async function completeInterfaces(used: string[], position: vscode.Position): Promise<void> {
    const labels = await completionLabels('interface completions', labUri, position);
    for (const iface of used)
      assert.ok(!labels.includes(iface), `${node}:${iface} is used but offered: ${labels.join(', ')}`);
    // The node's interfaces all follow its template's naming (Gi0/0, Gi0/1, …).
    const shape = (name: string): string => name.replace(/\d+/g, '#');
    for (const label of labels)
      assert.strictEqual(shape(label), shape(used[0]), `${label} is offered for ${node}: ${labels.join(', ')}`);
    const next = nextFree(used);
    assert.ok(next && labels.includes(next), `${next} is not offered for ${node}: ${labels.join(', ')}`);
  }

  it('flags an image the template does not have, at its range', async () => {
    const found = /^(\s+image:[ \t]*)(\S+)/m.exec(original);
    assert.ok(found, `${LAB_FILE} has no node with an image`);
    const bad = 'no-such-image-9.9';
    const start = found.index + found[1].length;
    await replaceText(editor, original.slice(0, start) + bad + original.slice(start + found[2].length));
    const range = new vscode.Range(editor.document.positionAt(start), editor.document.positionAt(start + bad.length));
    try {
      const diagnostic = await eventually('a diagnostic on the image', () =>
        vscode.languages.getDiagnostics(labUri).find((d) => d.range.isEqual(range)),
      );
      assert.match(diagnostic.message, /image/i);
    } finally {
      await replaceText(editor, original);
    }
    await eventually('the diagnostic to go', () =>
      vscode.languages.getDiagnostics(labUri).some((d) => d.range.isEqual(range)) ? undefined : true,
    );
    assert.ok(await editor.document.save());
  });

  it('shows what a deploy would create in the plan code lens', async () => {
    const title = await eventually('a resolved plan lens', async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
        'vscode.executeCodeLensProvider',
        labUri,
        20,
      );
      return lenses.map((l) => l.command?.title ?? '').find((t) => /Plan: \+\d+/.test(t));
    });
    created = Number(/Plan: \+(\d+)/.exec(title)?.[1]);
    assert.ok(created > 0, `the plan of a lab that does not exist yet creates nothing: ${title}`);
  });

  it('shows the lab file with its code lenses and a completion list', async function () {
    if (!hasRunnerChannel()) this.skip();
    // A whole new link keeps the document valid, so the plan lens has a summary to show.
    const network = Object.keys(lab.networks ?? {})[0];
    const other = Object.keys(lab.nodes ?? {}).find((n) => n !== node && usedInterfaces(lab, n).length > 0);
    const otherEnd = network ?? `${other}:${nextFree(usedInterfaces(lab, other ?? ''))}`;
    const { text, position } = withNewLink(original, node, `${nextFree(usedInterfaces(lab, node))}, ${otherEnd}`);
    await replaceText(editor, text);
    try {
      await eventually('the plan lens of the edited lab', async () => {
        const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
          'vscode.executeCodeLensProvider',
          labUri,
          20,
        );
        return lenses.find((l) => /Plan: \+\d+/.test(l.command?.title ?? ''));
      });
      editor.selection = new vscode.Selection(position, position);
      // Show the top of the file (the plan lens) and reveal the new link only as far as needed:
      // the viewport is tall enough for both.
      await vscode.commands.executeCommand('revealLine', { lineNumber: 0, at: 'top' });
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.Default);
      await vscode.commands.executeCommand('editor.action.triggerSuggest');
      await screenshot(
        'lab-file',
        '.monaco-editor:has(.codelens-decoration:has-text("Plan: +")) .suggest-widget.visible .monaco-list-row',
      );
      await vscode.commands.executeCommand('hideSuggestWidget');
    } finally {
      await replaceText(editor, original);
    }
    assert.ok(await editor.document.save());
  });

  it('deploys the lab and shows its nodes in the Labs view; the plan shown before follows it', async function () {
    await vscode.commands.executeCommand(LabCommand.plan, { uri: labUri.toString(), quiet: true });
    const planDoc = await eventually('the plan document', () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'lab-agent-plan'),
    );
    assert.doesNotMatch(planDoc.getText(), /OUT OF DATE/);
    const shownBefore = planDoc.getText();
    const deployed = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    assert.ok(deployed?.lab, 'deploy failed');
    // The plan shown before does not stay as it was: it is redrawn from the live lab (#28's shared
    // plan) or, when that cannot be read, marked out of date.
    await eventually('the plan document to follow the deploy', () =>
      planDoc.getText() !== shownBefore ? true : undefined,
    );
    await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    if (!hasRunnerChannel()) this.skip();
    // Node rows read `<name><state> · <template>`.
    const text = await labsViewText(new RegExp(`^${node}\\s*stopped`, 'm'));
    for (const name of Object.keys(lab.nodes ?? {})) {
      assert.match(text, new RegExp(`^${name}\\s*stopped`, 'm'), `the Labs view shows:\n${text}`);
    }
  });

  it('starts a node and shows its console prompt in a terminal', async function () {
    const started = await vscode.commands.executeCommand<unknown>(LabCommand.startNode, {
      uri: labUri.toString(),
      node,
    });
    assert.ok(started, `starting ${node} failed`);
    if (hasRunnerChannel()) await labsViewText(new RegExp(`^${node}\\s*running`, 'm'));
    const name = await vscode.commands.executeCommand<string>(LabCommand.openConsole, {
      uri: labUri.toString(),
      node,
    });
    assert.ok(name, `opening the console of ${node} failed`);
    const terminal = await eventually(`the terminal ${name}`, () =>
      vscode.window.terminals.find((t) => t.name === name),
    );
    terminal.show();
    if (!hasRunnerChannel()) this.skip();
    terminal.sendText('', true);
    const prompt = new RegExp(`${node}#|root@${node}:~# |VPCS> `);
    const text = await shownText('.terminal-wrapper.active .xterm-rows', prompt);
    assert.match(text, prompt, `the console shows:\n${text}`);
    await screenshot('console');
  });

  it('runs a command on the console', async () => {
    const result = await vscode.commands.executeCommand<{ output?: string }>(LabCommand.execConsole, {
      uri: labUri.toString(),
      node,
      command: 'show version',
    });
    assert.ok(result, 'console exec failed');
    assert.match(result.output ?? '', /version/i, `show version printed:\n${result.output}`);
  });

  it('shows the topology with every element and the live node states, in light and dark themes', async function () {
    if (!hasRunnerChannel()) this.skip();
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: labUri.toString() });
    // A small lab is drawn in detail (canvas-topology.ts covers the canvas drawing of large ones).
    await topologyAttributes('body[data-renderer="cytoscape"]');
    const links = lab.links?.length ?? 0;
    // Section titles are upper-cased by CSS, which innerText reflects.
    const text = await topologyText('#elements', new RegExp(`Links \\(${links}\\)`, 'i'));
    for (const name of [...Object.keys(lab.nodes ?? {}), ...Object.keys(lab.networks ?? {})])
      assert.match(text, new RegExp(`^${name}\\b`, 'm'), `${name} is not listed`);
    // The node started above runs; the others are deployed and stopped.
    await topologyAttributes(`#elements button[data-id="node:${node}"][data-state="running"]`);
    for (const other of Object.keys(lab.nodes ?? {}).filter((n) => n !== node))
      await topologyAttributes(`#elements button[data-id="node:${other}"][data-state="stopped"]`);
    await topologyText('#status', /Live: \w+ \(1\/\d+ up\)/);
    const workbench = vscode.workspace.getConfiguration('workbench');
    for (const [theme, name] of [
      ['Default Light Modern', 'topology-light'],
      ['Default Dark Modern', 'topology-dark'],
    ]) {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      const shot = await askRunner({ action: 'screenshot', name, waitFor: '#elements button', frame: 'webview' });
      assert.ok(shot.ok, `screenshot ${name} failed: ${shot.error}`);
    }
  });

  it('drags a node: the edit is exactly its position line, unsaved, marked as drift, and undoable', async function () {
    if (!hasRunnerChannel()) this.skip();
    const doc = await vscode.workspace.openTextDocument(labUri);
    const button = await topologyAttributes(`#elements button[data-id="node:${node}"]`);
    const [x, y] = (button['data-position'] ?? '').split(',').map(Number);
    assert.ok(
      Number.isFinite(x) && Number.isFinite(y),
      `${node} has no position in the view: ${JSON.stringify(button)}`,
    );
    const before = await withAutoSave('off', () => dragNode(doc, { x, y }));
    // The live lab still has the old position: the plan would update the node.
    await topologyAttributes(`#elements button[data-id="node:${node}"][data-drift="update"]`, 40_000);
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand('undo');
    await eventually('the undo', () => (doc.getText() === before ? true : undefined));
    assert.ok(await doc.save());
  });

  /** The Consoles view's text once it matches. */
  async function consolesViewText(match: RegExp, timeoutMs = 20_000): Promise<string> {
    const { view, container } = contributedView(extension, /^consoles$/i);
    await vscode.commands.executeCommand(`workbench.view.extension.${container}`);
    await vscode.commands.executeCommand(`${view.id}.focus`);
    return shownText(viewRows(view), match, timeoutMs);
  }

  it('follows a start in the Consoles view until every console is attachable, without a refresh', async function () {
    if (!hasRunnerChannel()) this.skip();
    const stopped = await vscode.commands.executeCommand<unknown>(LabCommand.stopLab, {
      uri: labUri.toString(),
      stopmode: 1,
    });
    assert.ok(stopped, 'stopping the lab failed');
    const names = Object.keys(lab.nodes ?? {});
    // Rows read `<node><type> · <state>[ · not attachable]`.
    const allStopped = new RegExp(names.map((n) => `(?=[^]*^${n}\\s*\\S+ · stopped)`).join(''), 'm');
    await consolesViewText(allStopped);
    const started = Date.now();
    const ok = await vscode.commands.executeCommand<unknown>(LabCommand.startLab, { uri: labUri.toString() });
    assert.ok(ok, 'starting the lab failed');
    const allRunning = new RegExp(`${names.map((n) => `(?=[^]*^${n}\\s*\\S+ · running$)`).join('')}`, 'm');
    // The agent boots a node in 2.5 s here: the view must follow the start, not wait for its next idle refresh.
    const text = await consolesViewText(allRunning, 8000);
    assert.match(text, allRunning, `the Consoles view shows:\n${text}`);
    assert.doesNotMatch(text, /not attachable|starting/, `the Consoles view shows:\n${text}`);
    console.log(`the Consoles view followed the start in ${Date.now() - started} ms`);
    await screenshot('consoles-after-start', `${viewRows(contributedView(extension, /^consoles$/i).view)}`);
  });

  it('shows within seconds that the agent cannot be reached, and recovers by itself when it can', async function () {
    if (!hasRunnerChannel() || !process.env.LAB_AGENT_E2E_LINK_URL) this.skip();
    assert.ok((await askRunner({ action: 'link', op: 'cut' })).ok, 'the runner could not cut the link');
    try {
      const cutAt = Date.now();
      const down = await shownText(STATUS_ITEM, /unreachable/, 25_000);
      assert.match(down, /unreachable/, `the status bar shows: ${down}`);
      console.log(`the status showed the agent unreachable after ${Date.now() - cutAt} ms`);
      await screenshot('agent-unreachable', STATUS_ITEM);
    } finally {
      // Restored even when the test fails, so that the tests after it find the agent.
      assert.ok((await askRunner({ action: 'link', op: 'restore' })).ok, 'the runner could not restore the link');
    }
    const restoredAt = Date.now();
    const up = await shownText(STATUS_ITEM, /lab@127\.0\.0\.1/, 25_000);
    assert.match(up, /lab@127\.0\.0\.1/, `the status bar shows: ${up}`);
    console.log(`the status recovered ${Date.now() - restoredAt} ms after the link came back`);
    // The views loaded again by themselves: the nodes are still running.
    await labsViewText(new RegExp(`^${node}\\s*running`, 'm'));
  });

  it('renews the session with one password prompt after the agent restarted (a wrong password keeps the box), and everything works again', async function () {
    if (!hasRunnerChannel()) this.skip();
    assert.ok((await askRunner({ action: 'agent', op: 'restart' })).ok, 'the runner could not restart the agent');
    // The user's next action finds the session gone and asks for the password, once.
    const validated = vscode.commands.executeCommand<{ status?: string }>(LabCommand.validate, {
      uri: labUri.toString(),
    });
    // A wrong password first: the box stays open and says the agent refused it (issue 34).
    const wrong = await askRunner({ action: 'fill', selector: INPUT_BOX, text: 'not-the-password', timeoutMs: 30_000 });
    assert.ok(wrong.ok, `no password prompt: ${wrong.error}`);
    const refusal = await askRunner({
      action: 'text',
      selector: '.quick-input-widget',
      match: 'refused',
      timeoutMs: 15_000,
    });
    assert.match(
      refusal.text ?? '',
      /refused/,
      `the box after a wrong password shows: ${refusal.text ?? refusal.error}`,
    );
    await askRunner({ action: 'screenshot', name: 'wrong-password', waitFor: INPUT_BOX });
    const filled = await askRunner({
      action: 'fill',
      selector: INPUT_BOX,
      text: env('LAB_AGENT_E2E_PASSWORD'),
      timeoutMs: 30_000,
    });
    assert.ok(filled.ok, `the password box closed after a wrong password: ${filled.error}`);
    const result = await validated;
    assert.ok(result?.status, 'validate did not run after the password');
    // One log-in reached every part: the status stays connected while the language server
    // plans with the new token, and no other prompt appears.
    await eventually('a plan lens computed with the renewed session', async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
        'vscode.executeCodeLensProvider',
        labUri,
        20,
      );
      return lenses.map((l) => l.command?.title ?? '').find((t) => /^Plan: (\+|no changes)/.test(t));
    });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const status = await shownText(STATUS_ITEM, /lab@127\.0\.0\.1/, 5000);
    assert.match(status, /lab@127\.0\.0\.1/, `the status bar shows: ${status}`);
    const prompt = await askRunner({ action: 'text', selector: INPUT_BOX, timeoutMs: 1000 });
    assert.ok(!prompt.ok, 'a second prompt is open');
    await labsViewText(new RegExp(`^${node}\\s*running`, 'm'));
  });

  it('destroys the lab', async () => {
    const destroyed = await vscode.commands.executeCommand<{ status?: string }>(LabCommand.destroy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    assert.strictEqual(destroyed?.status, 'destroyed');
    // With the lab gone, the plan is the first one again.
    await eventually(`the plan lens to create ${created} again`, async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
        'vscode.executeCodeLensProvider',
        labUri,
        20,
      );
      return lenses.find((l) => l.command?.title.startsWith(`Plan: +${created} `));
    });
  });
});

/**
 * The document with a new last link whose first endpoint is `<node>:` followed by `rest`
 * (nothing: the user is still typing it), and the position right after that colon.
 */
function withNewLink(text: string, node: string, rest = ''): { text: string; position: vscode.Position } {
  const lines = text.split('\n');
  const linksAt = lines.findIndex((l) => /^links:\s*$/.test(l));
  assert.ok(linksAt >= 0, 'the lab has no links: section');
  let last = linksAt;
  for (let i = linksAt + 1; i < lines.length && (lines[i].trim() === '' || /^\s/.test(lines[i])); i++) {
    if (lines[i].trim() !== '') last = i;
  }
  const indent = /^(\s*)-/.exec(lines[linksAt + 1] ?? '')?.[1] ?? '  ';
  const head = `${indent}- endpoints: [${node}:`;
  lines.splice(last + 1, 0, `${head}${rest}]`);
  return { text: lines.join('\n'), position: new vscode.Position(last + 1, head.length) };
}

/** Interfaces are numbered: the one after a used one is free unless it is used too. */
function nextFree(used: string[]): string | undefined {
  return used.map((i) => i.replace(/(\d+)$/, (n) => String(Number(n) + 1))).find((i) => !used.includes(i));
}
