/** Logging in to the run's agents, with the runner's user, each pinned to its certificate. */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LabCommand } from '../../../common/commands';

/** The simulated agent (through the runner's link proxy when it has one). */
async function logInToSimulatedAgent(): Promise<boolean | undefined> {
  return vscode.commands.executeCommand<boolean>(LabCommand.login, {
    url: process.env.LAB_AGENT_E2E_LINK_URL ?? process.env.LAB_AGENT_E2E_URL,
    username: process.env.LAB_AGENT_E2E_USER,
    password: process.env.LAB_AGENT_E2E_PASSWORD,
    pin: process.env.LAB_AGENT_E2E_FINGERPRINT,
  });
}

/** The Linux emulator agent. */
export async function logInToLinuxAgent(): Promise<boolean | undefined> {
  return vscode.commands.executeCommand<boolean>(LabCommand.login, {
    url: process.env.LAB_AGENT_E2E_LINUX_URL,
    username: process.env.LAB_AGENT_E2E_USER,
    password: process.env.LAB_AGENT_E2E_PASSWORD,
    pin: process.env.LAB_AGENT_E2E_LINUX_FINGERPRINT,
  });
}

/** Logs in to the simulated agent (failing the suite if it cannot) and gives the workspace folder its labs go in. */
export async function simulatedAgentWorkspace(): Promise<vscode.WorkspaceFolder> {
  assert.strictEqual(await logInToSimulatedAgent(), true, 'login failed');
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open');
  return folder;
}
