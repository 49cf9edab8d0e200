/**
 * Start, stop and wipe a whole lab or one node (execProject), with a choice of
 * stop mode, and one sentence about the BulkResult afterwards.
 * Automation: `{ uri, node?, stopmode?, confirmed? }` skips the prompts.
 */
import * as vscode from 'vscode';
import type { BulkResult, ProjectPayload } from '../../common/api/contract';
import { summarizeBulk, type LifecycleAction } from '../model/bulk-summary';
import { fieldOf, STOP_MODES, stopModeOf, type StopMode } from '../model/command-args';
import { allowedClient } from '../labs/gate';
import { labPayload, PromptCancelled, resolveLab, pickNodeName } from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

async function chooseStopMode(arg: unknown, what: string): Promise<StopMode> {
  const given = stopModeOf(fieldOf(arg, 'stopmode'));
  if (given !== undefined) return given;
  const picked = await vscode.window.showQuickPick(
    STOP_MODES.map((m) => ({ label: m.label, detail: m.detail, value: m.value })),
    { title: `Stop ${what}`, placeHolder: 'How should the nodes stop?' },
  );
  if (picked === undefined) throw new PromptCancelled();
  return picked.value;
}

async function confirmWipe(arg: unknown, what: string): Promise<void> {
  if (fieldOf(arg, 'confirmed') === true) return;
  const wipe = 'Wipe';
  const choice = await vscode.window.showWarningMessage(
    `Wipe ${what}?`,
    {
      modal: true,
      detail: 'Wiping stops the nodes if needed and resets their disks: changes made since they first booted are lost.',
    },
    wipe,
  );
  if (choice !== wipe) throw new PromptCancelled();
}

async function execute(
  services: Services,
  arg: unknown,
  action: LifecycleAction,
  scope: 'lab' | 'node',
): Promise<BulkResult> {
  const { lab, node: given } = await resolveLab(arg, services.labParses);
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), action, lab);
  const node =
    scope === 'node'
      ? await pickNodeName(lab, given, `${action[0].toUpperCase()}${action.slice(1)} which node?`)
      : undefined;
  const what = node !== undefined ? `${lab.name}/${node}` : `all nodes of ${lab.name}`;
  const request: ProjectPayload & { action: LifecycleAction } = { ...(await labPayload(lab)), action };
  if (node !== undefined) request.node = node;
  if (action === 'stop') request.stopmode = await chooseStopMode(arg, what);
  if (action === 'wipe') await confirmWipe(arg, what);

  const verb = { start: 'Starting', stop: 'Stopping', wipe: 'Wiping' }[action];
  const result = await withCancellableProgress(`${verb} ${what}…`, (signal) => client.execProject(request, { signal }));
  services.labStateChanged(lab.uri, action === 'start' ? 'start' : undefined);
  const summary = summarizeBulk(result, action, node !== undefined ? `${lab.name}/${node}` : lab.name);
  services.log.info(summary.text);
  const show =
    summary.severity === 'error'
      ? vscode.window.showErrorMessage
      : summary.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  void show(summary.text);
  return result;
}

export function registerExecCommands(services: Services): vscode.Disposable[] {
  return [
    registerGuarded(services, LabCommand.startLab, 'Start lab', (arg) => execute(services, arg, 'start', 'lab')),
    registerGuarded(services, LabCommand.stopLab, 'Stop lab', (arg) => execute(services, arg, 'stop', 'lab')),
    registerGuarded(services, LabCommand.wipeLab, 'Wipe lab', (arg) => execute(services, arg, 'wipe', 'lab')),
    registerGuarded(services, LabCommand.startNode, 'Start node', (arg) => execute(services, arg, 'start', 'node')),
    registerGuarded(services, LabCommand.stopNode, 'Stop node', (arg) => execute(services, arg, 'stop', 'node')),
    registerGuarded(services, LabCommand.wipeNode, 'Wipe node', (arg) => execute(services, arg, 'wipe', 'node')),
  ];
}
