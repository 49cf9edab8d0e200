/// <reference types="mocha" />
/**
 * A running FRR lab keeps what the user does (#28's walk), on the Linux emulator agent: a copy of
 * the OSPF sample is deployed and started; r3's config gains an OSPF cost and a new router r4 is
 * linked to r3; Plan shows it (`frr-plan.png`) and Apply This Plan pushes it: the cost is in r3's
 * running config without a restart and r4 reaches Full with r3. Then a change typed into r1's
 * console is pulled as a one-line change of r1.conf (then pushed, as the plan offers), and after
 * a crash of the agent the nodes still run with the pulled change (`frr-after-restart.png`).
 * Runs after frr.ts, in the same extension host.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';
import { askRunner, hasRunnerChannel, recordFailure, screenshot } from './channel';
import { eventually } from './eventually';
import { copyOspfSample, deployAndStart, execOn, linuxAgentOrSkip, waitForFull } from './frr-lab';
import { logInToLinuxAgent } from './log-in';

const FOLDER = 'ospf-walk';
const R4_CONF = `hostname r4
!
interface lo
 ip address 10.255.0.4/32
!
interface eth0
 description to r3
 ip address 10.0.34.2/30
 ip ospf network point-to-point
 ip ospf hello-interval 1
 ip ospf dead-interval 4
!
router ospf
 ospf router-id 10.255.0.4
 network 10.0.0.0/8 area 0
!
`;
const R3_ETH2 = `interface eth2
 description to r4
 ip address 10.0.34.1/30
 ip ospf network point-to-point
 ip ospf hello-interval 1
 ip ospf dead-interval 4
!
`;

describe('A running FRR lab keeps what the user changes (Linux emulator agent)', function () {
  this.timeout(180_000);
  let folder: vscode.Uri;
  let labUri: vscode.Uri;
  let deployed = false;

  const fileIn = (...parts: string[]) => vscode.Uri.joinPath(folder, ...parts);
  const read = async (uri: vscode.Uri) => new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const write = (uri: vscode.Uri, text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const lensTitles = async () =>
    (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', labUri, 20)).map(
      (l) => l.command?.title ?? '',
    );

  /** How long r2's OSPF adjacency with r3 has been up, in ms (FRR's JSON). */
  const r3UpOnR2 = async (): Promise<number> => {
    const output = await execOn(labUri, 'r2', 'show ip ospf neighbor json');
    const up = (JSON.parse(output) as { neighbors?: Record<string, { upTimeInMsec?: number }[]> }).neighbors?.[
      '10.255.0.3'
    ]?.[0]?.upTimeInMsec;
    assert.ok(typeof up === 'number', `r2 has no adjacency with r3:\n${output}`);
    return up;
  };

  before(async function () {
    linuxAgentOrSkip(this, 'the FRR walk');
    const root = vscode.workspace.workspaceFolders?.[0];
    assert.ok(root, 'no workspace folder is open');
    // A lab of its own, so the walk neither depends on nor disturbs the sample.
    folder = vscode.Uri.joinPath(root.uri, FOLDER);
    labUri = await copyOspfSample(vscode.Uri.joinPath(root.uri, 'ospf', 'ospf.lab.yaml'), folder, 'ospf-walk');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    if (deployed) await vscode.commands.executeCommand(LabCommand.destroy, { uri: labUri.toString(), confirmed: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('deploys and starts its own copy of the OSPF sample', async () => {
    assert.strictEqual(await logInToLinuxAgent(), true, 'login failed');
    await deployAndStart(labUri, () => (deployed = true));
    await waitForFull(labUri, { r2: 2 });
  });

  it('applies a changed config and a new router to the running lab, without a restart', async () => {
    const adjacencyBefore = { up: await r3UpOnR2(), at: Date.now() };
    // The user's edits: a cost on r3's link to r2, a third interface on r3, and r4 behind it.
    const r3 = fileIn('configs', 'r3.conf');
    await write(
      r3,
      (await read(r3))
        .replace(
          ' ip ospf dead-interval 4\n!\ninterface eth1',
          ' ip ospf dead-interval 4\n ip ospf cost 33\n!\ninterface eth1',
        )
        .replace('router ospf', `${R3_ETH2}router ospf`),
    );
    await write(fileIn('configs', 'r4.conf'), R4_CONF);
    const lab = await vscode.workspace.openTextDocument(labUri);
    const edit = new vscode.WorkspaceEdit();
    const text = lab.getText();
    const r3Node = text.indexOf('  r3:\n') + '  r3:\n'.length;
    edit.insert(labUri, lab.positionAt(r3Node), '    ethernet: 3\n');
    const h2Node = text.indexOf('  h2:\n');
    edit.insert(labUri, lab.positionAt(h2Node), '  r4:\n    config: configs/r4.conf\n    position: {x: 540, y: 340}\n');
    const lastLink = text.indexOf('  - endpoints: [r3:eth1, h2:eth0]\n') + '  - endpoints: [r3:eth1, h2:eth0]\n'.length;
    edit.insert(labUri, lab.positionAt(lastLink), '  - endpoints: [r3:eth2, r4:eth0]\n');
    assert.ok(await vscode.workspace.applyEdit(edit), 'the lab file could not be edited');
    await lab.save();

    const plan = await vscode.commands.executeCommand<{ summary?: { create?: number; update?: number } }>(
      LabCommand.plan,
      { uri: labUri.toString(), quiet: true },
    );
    assert.strictEqual(plan?.summary?.create, 2, `r4 and its link: ${JSON.stringify(plan?.summary)}`);
    assert.ok((plan?.summary?.update ?? 0) >= 1, `r3 changes: ${JSON.stringify(plan?.summary)}`);
    // Once the lenses are of the edited version: the plan's, and r4's (the only node not running offers Start).
    // The plan opening beside the lab took its focus, and VS Code drops the lens request an edit scheduled when
    // its editor loses focus: the server's refresh after the plan brings them.
    if (hasRunnerChannel())
      await screenshot(
        'frr-plan',
        '.monaco-editor:has(.view-lines:has-text("r4"))' +
          ':has(.codelens-decoration:has-text("Plan: +2")):has(.codelens-decoration:has-text("Start"))',
      );
    const applied = await vscode.commands.executeCommand(LabCommand.applyPlan, { uri: labUri.toString() });
    assert.ok(applied, 'Apply This Plan did nothing');
    await vscode.commands.executeCommand(LabCommand.startNode, { uri: labUri.toString(), node: 'r4' });

    await waitForFull(labUri, { r3: 2, r4: 1 });
    // The node lenses follow the live lab without the Labs view open: every node runs, none offers Start.
    await eventually('node lenses that know every node runs', async () =>
      (await lensTitles()).includes('Start') ? undefined : true,
    );
    const running = await execOn(labUri, 'r3', 'show running-config');
    assert.match(running, /ip ospf cost 33/, `r3's running config:\n${running}`);
    assert.match(running, /interface eth2\n description to r4/, `r3's running config:\n${running}`);
    // r2's adjacency with r3 stayed up all along: r3 took the change live, it was not restarted.
    const up = await r3UpOnR2();
    const elapsed = Date.now() - adjacencyBefore.at;
    assert.ok(
      up >= adjacencyBefore.up + elapsed - 5000,
      `r2's adjacency with r3 is up for ${up} ms, ${elapsed} ms after it was up for ${adjacencyBefore.up} ms`,
    );
    await eventually('a plan lens with no changes', async () =>
      (await lensTitles()).includes('Plan: no changes') ? true : undefined,
    );
  });

  it('pulls a change typed into the console as one added line of the config file', async () => {
    const name = await vscode.commands.executeCommand<string>(LabCommand.openConsole, {
      uri: labUri.toString(),
      node: 'r1',
    });
    const terminal = vscode.window.terminals.find((t) => t.name === name);
    assert.ok(terminal, `no console terminal for r1 (${name})`);
    for (const line of ['configure terminal', 'interface eth1', 'ip ospf cost 77', 'end'])
      terminal.sendText(line, true);
    await eventually(
      "the cost in r1's running config",
      async () => ((await execOn(labUri, 'r1', 'show running-config')).includes('ip ospf cost 77') ? true : undefined),
      30_000,
    );
    terminal.dispose();

    const r1 = fileIn('configs', 'r1.conf');
    const before = (await vscode.workspace.openTextDocument(r1)).getText().split('\n');
    const pulled = await vscode.commands.executeCommand(LabCommand.reconcileFromEmu, { uri: labUri.toString() });
    assert.ok(pulled, 'the pull failed (the log says why)');
    const after = (await vscode.workspace.openTextDocument(r1)).getText().split('\n');
    const added = after.filter((line) => !before.includes(line));
    const removed = before.filter((line) => !after.includes(line));
    assert.deepStrictEqual({ added, removed }, { added: [' ip ospf cost 77'], removed: [] });
    await vscode.workspace.saveAll(false);
    // decisions §4: the file now differs from the startup config the agent holds, so the plan offers
    // to push it; pushing changes nothing on r1, which has it already, and then nothing is left.
    await eventually('a plan lens with the pulled config to push', async () =>
      (await lensTitles()).includes('Plan: +0 ~1 −0') ? true : undefined,
    );
    await vscode.commands.executeCommand(LabCommand.plan, { uri: labUri.toString(), quiet: true });
    assert.ok(await vscode.commands.executeCommand(LabCommand.applyPlan, { uri: labUri.toString() }), 'push failed');
    await eventually('a plan lens with no changes after the push', async () =>
      (await lensTitles()).includes('Plan: no changes') ? true : undefined,
    );
    assert.match(await execOn(labUri, 'r1', 'show running-config'), /ip ospf cost 77/);
  });

  it('keeps every node running, with the pulled change, across a crash of the agent', async function () {
    if (!hasRunnerChannel()) this.skip();
    const restarted = await askRunner({ action: 'agent', op: 'crash-restart-linux', timeoutMs: 60_000 });
    assert.ok(restarted.ok, `restarting the agent failed: ${restarted.error}`);
    assert.strictEqual(await logInToLinuxAgent(), true, 'login after the restart failed');
    // Right after the login, as a user would: the login is done only once the commands can act.
    const status = await vscode.commands.executeCommand<{ nodes?: { name?: string; state?: string }[] }>(
      LabCommand.status,
      { uri: labUri.toString(), quiet: true },
    );
    assert.strictEqual(status?.nodes?.length, 6, `status: ${JSON.stringify(status)}`);
    const stopped = (status?.nodes ?? []).filter((n) => n.state !== 'running').map((n) => n.name);
    assert.deepStrictEqual(stopped, [], `nodes not running after the restart: ${JSON.stringify(status)}`);
    assert.match(await execOn(labUri, 'r1', 'show running-config'), /ip ospf cost 77/);
    await waitForFull(labUri, { r2: 2, r3: 2 });
    const name = await vscode.commands.executeCommand<string>(LabCommand.openConsole, {
      uri: labUri.toString(),
      node: 'r3',
    });
    const terminal = vscode.window.terminals.find((t) => t.name === name);
    assert.ok(terminal, `no console terminal for r3 (${name})`);
    terminal.show();
    terminal.sendText('show ip ospf neighbor', true);
    const rows = '.terminal-wrapper.active .xterm-rows';
    const shown = await askRunner({
      action: 'text',
      selector: rows,
      match: '10\\.255\\.0\\.4.*Full/',
      timeoutMs: 20_000,
    });
    assert.match(shown.text ?? '', /10\.255\.0\.4\s+\d+\s+Full\//, `r3's console shows:\n${shown.text ?? shown.error}`);
    await screenshot('frr-after-restart', `${rows}:has-text("Full/")`);
    terminal.dispose();
  });
});
