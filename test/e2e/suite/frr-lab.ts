/** What the FRR suites do with an OSPF lab of their own: copy the sample, deploy and start it, ask it through the console exec. */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';

/**
 * A copy of the OSPF sample (`sampleLab`, its lab file) in `folder`, named `name`: its configs and
 * lab file without its tests, not the sample's stored state (which names the sample's lab). The copy's lab file.
 */
export async function copyOspfSample(sampleLab: vscode.Uri, folder: vscode.Uri, name: string): Promise<vscode.Uri> {
  await vscode.workspace.fs.copy(
    vscode.Uri.joinPath(sampleLab, '..', 'configs'),
    vscode.Uri.joinPath(folder, 'configs'),
    {
      overwrite: true,
    },
  );
  const labUri = vscode.Uri.joinPath(folder, 'ospf.lab.yaml');
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(sampleLab));
  await vscode.workspace.fs.writeFile(
    labUri,
    new TextEncoder().encode(text.replace(/^name: ospf$/m, `name: ${name}`).replace(/\ntests:[\s\S]*$/, '\n')),
  );
  return labUri;
}

/** Deploys the copy from its open file and starts its five nodes; `deployed` is told once there is a lab to destroy. */
export async function deployAndStart(labUri: vscode.Uri, deployed: () => void): Promise<void> {
  await vscode.window.showTextDocument(labUri);
  const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
    uri: labUri.toString(),
    confirmed: true,
  });
  assert.ok(result?.lab, 'deploy failed');
  deployed();
  const started = await vscode.commands.executeCommand<{ started?: number }>(LabCommand.startLab, {
    uri: labUri.toString(),
  });
  assert.strictEqual(started?.started, 5, `start: ${JSON.stringify(started)}`);
}

/** Long enough for 1 s hellos to bring every adjacency to Full on a loaded machine. */
export const CONVERGE_MS = 60_000;

/** Runs one command on a node's console (the contract's execConsole) and returns its output. */
export async function execOn(labUri: vscode.Uri, node: string, command: string): Promise<string> {
  const result = await vscode.commands.executeCommand<{ output?: string }>(LabCommand.execConsole, {
    uri: labUri.toString(),
    node,
    command,
  });
  return result?.output ?? '';
}

function fullNeighbours(output: string): number {
  return output.split('\n').filter((l) => /\bFull\//.test(l)).length;
}

/** Waits until each router has at least its expected number of Full OSPF neighbours; fails with the last outputs. */
export async function waitForFull(labUri: vscode.Uri, expected: Record<string, number>): Promise<void> {
  const deadline = Date.now() + CONVERGE_MS;
  const last: Record<string, string> = {};
  for (;;) {
    let done = true;
    for (const [node, count] of Object.entries(expected)) {
      last[node] = await execOn(labUri, node, 'show ip ospf neighbor');
      if (fullNeighbours(last[node]) < count) done = false;
    }
    if (done) return;
    if (Date.now() > deadline)
      throw new Error(`no full adjacency after ${CONVERGE_MS / 1000} s:\n${JSON.stringify(last, null, 2)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The Linux emulator agent the runner started, or why there is none (then CI fails and a desktop run skips). */
export function linuxAgentOrSkip(context: Mocha.Context, suite: string): void {
  const problem = process.env.LAB_AGENT_E2E_LINUX_PROBLEM;
  if (process.env.LAB_AGENT_E2E_LINUX_URL) return;
  const why = `the Linux emulator agent cannot run here: ${problem ?? 'the runner started none (LAB_AGENT_E2E_LINUX_URL is not set)'}`;
  // CI installs FRR and runs as root: there, not running is a failure, never a skip.
  if (process.env.CI) throw new Error(why);
  console.log(`skipping ${suite}: ${why}`);
  context.skip();
}
