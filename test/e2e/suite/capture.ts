/// <reference types="mocha" />
/**
 * Packet capture from the topology view (#31), on the Linux emulator agent: a copy of the OSPF
 * sample is deployed and started; a right click on the r1–r2 link (r1:eth1 -- r2:eth0) in the view's element list
 * offers "Capture Packets on r1:eth1"; the live packet list shows OSPF hellos as they arrive
 * (`capture-list.png`); Stop ends the capture, and the .pcapng file under captures/ holds them.
 * The list's rows come from the agent's tshark (summaries beside the bytes): the step points
 * labAgent.capture.tsharkPath at a program that does not exist, so no local decoding can fill it.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { eventually } from './eventually';
import { copyOspfSample, deployAndStart, linuxAgentOrSkip } from './frr-lab';
import { logInToLinuxAgent } from './log-in';
import { onScreen, topologyAttributes, topologyViewport } from './topology-page';

const FOLDER = 'ospf-capture';
const ITEM = '#menu [role="menuitem"]:has-text("Capture Packets on r1:eth1")';

describe('Packet capture from the topology view (Linux emulator agent)', function () {
  this.timeout(180_000);
  let folder: vscode.Uri;
  let labUri: vscode.Uri;
  let deployed = false;

  before(async function () {
    linuxAgentOrSkip(this, 'packet capture');
    if (!hasRunnerChannel()) this.skip();
    assert.strictEqual(await logInToLinuxAgent(), true, 'login failed');
    const opened = await vscode.commands.executeCommand<string>(LabCommand.openSample);
    assert.ok(opened, 'the sample did not open');
    const root = vscode.workspace.workspaceFolders?.[0];
    assert.ok(root, 'no workspace folder is open');
    folder = vscode.Uri.joinPath(root.uri, FOLDER);
    labUri = await copyOspfSample(vscode.Uri.parse(opened), folder, 'ospf-capture');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('labAgent.capture')
      .update('tsharkPath', undefined, vscode.ConfigurationTarget.Workspace);
    if (deployed) await vscode.commands.executeCommand(LabCommand.destroy, { uri: labUri.toString(), confirmed: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('deploys and starts its own copy of the OSPF sample', () => deployAndStart(labUri, () => (deployed = true)));

  it("captures from the link's menu in the topology view: the agent's OSPF hellos arrive in the live list, Stop ends it", async () => {
    // No tshark on this side: the rows can only be the agent's.
    await vscode.workspace
      .getConfiguration('labAgent.capture')
      .update('tsharkPath', '/nonexistent/tshark', vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: labUri.toString() });
    // The link r1:eth1 -- r2:eth0 is the lab's second link; its menu offers capture once r1 runs.
    await eventually(
      'an enabled capture item in the link menu',
      async () => {
        const opened = await askRunner({
          action: 'click',
          selector: '#elements [data-id="link:1"]',
          button: 'right',
          frame: 'webview',
        });
        if (!opened.ok) return undefined;
        const item = await askRunner({ action: 'attributes', selector: ITEM, frame: 'webview', timeoutMs: 2000 });
        return item.ok && item.attributes?.['aria-disabled'] === undefined ? true : undefined;
      },
      60_000,
    );
    const clicked = await askRunner({ action: 'click', selector: ITEM, frame: 'webview' });
    assert.ok(clicked.ok, `clicking the capture item failed: ${clicked.error}`);
    // The packet list opens in a full-width group below the topology (two webviews shown; the runner
    // looks in the one whose page holds the selector): OSPF hellos every second.
    const rows = await askRunner({
      action: 'text',
      selector: '#packets tbody',
      match: 'OSPF[^\\n]*Hello Packet[\\s\\S]*OSPF[^\\n]*Hello Packet',
      frame: 'webview',
      timeoutMs: 30_000,
    });
    assert.ok(rows.ok, `the packet list: ${rows.error}`);
    assert.match(rows.text ?? '', /r1:eth1|eth1/, `no interface column:\n${rows.text}`);
    const filter = await askRunner({ action: 'attributes', selector: '#filter', frame: 'webview' });
    assert.match(
      filter.attributes?.placeholder ?? '',
      /^Text filter over the agent's rows/,
      'the filter box says what it does',
    );
    const problem = await askRunner({
      action: 'attributes',
      selector: 'body:has(#packets) #problem',
      frame: 'webview',
    });
    assert.ok(problem.attributes && 'hidden' in problem.attributes, 'no problem is shown (no "tshark was not found")');
    // The topology view, squeezed beside and above the list, still shows the whole lab: Fit follows
    // a new size of its drawing (it used to keep the wide view, which left the narrow area blank).
    await eventually(
      'the five nodes inside the squeezed drawing',
      async () => {
        const size = (await topologyAttributes('body[data-drawing-size]'))['data-drawing-size'];
        const [width, height] = size.split('x').map(Number);
        const view = await topologyViewport();
        const ends = [onScreen({ x: 60, y: 200 }, view), onScreen({ x: 700, y: 200 }, view)];
        return width > 0 && ends.every((p) => p.x >= 0 && p.x <= width && p.y >= 0 && p.y <= height) ? true : undefined;
      },
      15_000,
    );
    await screenshot('capture-list', 'iframe.webview.ready');
    const stopped = await askRunner({ action: 'click', selector: '#stop', frame: 'webview' });
    assert.ok(stopped.ok, `Stop failed: ${stopped.error}`);
    const status = await askRunner({
      action: 'text',
      selector: 'body:has(#packets) #status',
      match: 'Capture stopped',
      frame: 'webview',
      timeoutMs: 15_000,
    });
    assert.match(status.text ?? '', /Capture stopped\. The file: .*captures\/ospf-capture_r1-eth1_.*\.pcapng/);
    const files = await vscode.workspace.findFiles('captures/ospf-capture_r1-eth1_*.pcapng');
    assert.strictEqual(files.length, 1, `capture files: ${files.map((f) => f.fsPath).join(', ')}`);
    const size = (await vscode.workspace.fs.stat(files[0])).size;
    // The section and interface blocks and at least the hellos listed (the run on 2026-11-26 wrote 820 bytes for 4).
    assert.ok(size > 400, `the capture file has ${size} bytes`);
  });
});
