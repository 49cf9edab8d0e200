/**
 * Project commands that change or check a lab: validate, deploy, reconcile
 * (both directions) and destroy. Each confirms what it is about to do, runs
 * under cancellable progress, stores the state the agent returns and refreshes
 * the views. Automation can pass answers in the argument object
 * (`confirmed`, `replace`, `direction`, `prune`, `wipe`) to skip the prompts.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../common/api/client';
import type { DeployData, ReconcileData, ValidateData } from '../../common/api/contract';
import { LineIndex } from '../../common/lab/model/positions';
import { isLabActionAllowed } from '../model/capabilities';
import { booleanArg, directionOf, fieldOf } from '../model/command-args';
import { validationLines } from '../model/report-text';
import { applyPulledContent } from '../labs/apply-pulled';
import { allowedClient } from '../labs/gate';
import {
  observationPayload,
  labPayload,
  PromptCancelled,
  resolveLab,
  storeLabState,
  type LabContext,
} from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import { pushLab } from '../labs/push';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

async function confirm(arg: unknown, message: string, detail: string, action: string): Promise<void> {
  if (fieldOf(arg, 'confirmed') === true) return;
  const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
  if (choice !== action) throw new PromptCancelled();
}

export async function validateOnAgent(services: Services, arg: unknown): Promise<ValidateData> {
  const { lab } = await resolveLab(arg, services.labParses);
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), 'validate', lab);
  const payload = await labPayload(lab);
  const data = await withCancellableProgress(`Validating ${lab.name}…`, (signal) =>
    client.validateProject(payload, { signal }),
  );
  const lines = validationLines(data);
  for (const line of lines) services.log.info(`validate ${lab.name}: ${line}`);
  if (data.status === 'valid') {
    const note =
      lines.length > 0 ? ` (${lines.length} warning${lines.length === 1 ? '' : 's'}; see the Problems view)` : '';
    void vscode.window.showInformationMessage(`${lab.name} is valid${note}.`);
  } else {
    const first = lines[0] ?? 'no details given';
    const more = lines.length > 1 ? ` (+${lines.length - 1} more)` : '';
    void vscode.window.showWarningMessage(`${lab.name} is not valid: ${first}${more}`, 'Show Log').then((c) => {
      if (c === 'Show Log') services.log.show();
    });
  }
  return data;
}

/**
 * Whether the lab is on the emulator already, so the one question asked
 * before a deploy is the right one. Unknown (the agent cannot tell, or the
 * status is not allowed) counts as absent; the deploy then refuses with lab_exists.
 */
async function labExists(services: Services, lab: LabContext): Promise<boolean> {
  if (!isLabActionAllowed(services.labAgents.sessionOf(lab.uri).capabilities, 'status', lab.mode))
    return lab.stored?.lab !== undefined;
  try {
    const status = await services.labAgents.sessionOf(lab.uri).agent().getProjectStatus(observationPayload(lab));
    return status.exists !== false;
  } catch (err) {
    if (err instanceof AgentError && err.code === 'lab_not_found') return false;
    return lab.stored?.lab !== undefined;
  }
}

async function confirmReplace(lab: LabContext): Promise<void> {
  const replace = 'Replace';
  const choice = await vscode.window.showWarningMessage(
    `${lab.name} already exists on the emulator. Replace it?`,
    {
      modal: true,
      detail: `Replacing stops, wipes and deletes the existing lab and its nodes, then deploys the document again (${lab.doc.nodes.length} node(s)). To change the live lab in place, use Reconcile instead.`,
    },
    replace,
  );
  if (choice !== replace) throw new PromptCancelled();
}

async function deployLab(services: Services, arg: unknown): Promise<DeployData | undefined> {
  const { lab } = await resolveLab(arg, services.labParses);
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), 'deploy', lab);
  const replaceArg = booleanArg(fieldOf(arg, 'replace'));
  const confirmed = fieldOf(arg, 'confirmed') === true;
  // One question, with the right words: replace an existing lab, or create it.
  let replace = replaceArg === true;
  if (!confirmed && replaceArg === undefined && (await labExists(services, lab))) {
    await confirmReplace(lab);
    replace = true;
  } else {
    await confirm(
      arg,
      `Deploy ${lab.name} to the emulator?`,
      `Creates the lab with its ${lab.doc.nodes.length} node(s), networks and links on the emulator.`,
      'Deploy',
    );
  }
  const payload = await labPayload(lab);
  const deploy = (replacing: boolean): Promise<DeployData> =>
    withCancellableProgress(`${replacing ? 'Replacing' : 'Deploying'} ${lab.name}…`, (signal) =>
      client.deployProject(replacing ? { ...payload, replace: true } : payload, { signal }),
    );
  let data: DeployData;
  try {
    data = await deploy(replace);
  } catch (err) {
    // Created by someone else meanwhile (or the status could not tell): ask now, the only time.
    if (!(err instanceof AgentError) || err.code !== 'lab_exists' || replaceArg === false || replace) throw err;
    await confirmReplace(lab);
    data = await deploy(true);
  }
  await storeLabState(lab.labPath, { lab: data.lab, state: data.state });
  services.labStateChanged(lab.uri, 'deploy');
  services.log.info(`Deployed ${lab.name} as ${data.lab ?? '?'}: ${data.nodes ?? 0} nodes, ${data.links ?? 0} links`);
  const unsupported =
    data.unsupported && data.unsupported.length > 0
      ? ` Not supported by the emulator: ${data.unsupported.join(', ')}.`
      : '';
  const start = 'Start All Nodes';
  const offerStart =
    isLabActionAllowed(services.labAgents.sessionOf(lab.uri).capabilities, 'start', lab.mode) &&
    fieldOf(arg, 'confirmed') !== true;
  const message = `Deployed ${lab.name}: ${data.nodes ?? 0} node(s), ${data.links ?? 0} link(s).${unsupported}`;
  void (
    unsupported
      ? vscode.window.showWarningMessage(message, ...(offerStart ? [start] : []))
      : vscode.window.showInformationMessage(message, ...(offerStart ? [start] : []))
  ).then((choice) => {
    if (choice === start) void vscode.commands.executeCommand(LabCommand.startLab, { uri: lab.uri.toString() });
  });
  return data;
}

async function chooseDirection(services: Services, lab: LabContext, arg: unknown): Promise<'to_emu' | 'from_emu'> {
  const given = directionOf(fieldOf(arg, 'direction'));
  if (given !== undefined) return given;
  const caps = services.labAgents.sessionOf(lab.uri).capabilities;
  const items = [
    {
      label: '$(cloud-upload) Push to the emulator',
      detail: 'Change the live lab to match the document (to_emu).',
      direction: 'to_emu' as const,
    },
    {
      label: '$(cloud-download) Pull from the emulator',
      detail: 'Update the document from the live lab (from_emu); you review the edit.',
      direction: 'from_emu' as const,
    },
  ].filter((i) => isLabActionAllowed(caps, i.direction === 'to_emu' ? 'reconcileToEmu' : 'reconcileFromEmu', lab.mode));
  if (items.length === 0) allowedClient(services.labAgents.sessionOf(lab.uri), 'reconcileToEmu', lab); // throws the reason
  const picked = await vscode.window.showQuickPick(items, {
    title: `Reconcile ${lab.name}`,
    placeHolder: 'Which way?',
  });
  if (picked === undefined) throw new PromptCancelled();
  return picked.direction;
}

async function choosePrune(arg: unknown, lab: LabContext): Promise<boolean> {
  const given = booleanArg(fieldOf(arg, 'prune'));
  if (given !== undefined) return given;
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Keep extra objects', detail: 'Nodes, networks and links only the emulator has stay.', prune: false },
      {
        label: 'Delete extra objects (prune)',
        detail: 'Nodes, networks and links the document does not have are deleted.',
        prune: true,
      },
    ],
    { title: `Push ${lab.name} to the emulator`, placeHolder: 'What about objects that are not in the document?' },
  );
  if (picked === undefined) throw new PromptCancelled();
  return picked.prune;
}

async function pullLab(services: Services, lab: LabContext): Promise<ReconcileData> {
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), 'reconcileFromEmu', lab);
  const payload = await labPayload(lab);
  const data = await withCancellableProgress(`Pulling ${lab.name} from the emulator…`, (signal) =>
    client.reconcileProject({ ...payload, direction: 'from_emu' }, { signal }),
  );
  await storeLabState(lab.labPath, { lab: data.lab, state: data.state });
  // The views plan again once the pulled text is in the editors, not before (they would plan the old text);
  // configs pulled into unsaved editors are planned again when saved (the language server watches them).
  const outcome = await applyPulledContent(
    lab.uri,
    { yaml: data.yaml, files: data.files },
    `Pull ${lab.name} from the emulator`,
  ).finally(() => services.labStateChanged(lab.uri));
  for (const name of outcome.refused)
    services.log.warn(`Pull ${lab.name}: ignored file ${JSON.stringify(name)}: outside the lab's folder`);
  if (!outcome.applied)
    throw new Error(`The pulled changes of ${lab.name} could not be applied to the workspace (is a file read-only?).`);
  if (outcome.changed.length === 0) {
    void vscode.window.showInformationMessage(`${lab.name} already matches the emulator.`);
    return data;
  }
  // The files that changed, not the lab file: a console change usually lands in a config file alone.
  await vscode.window.showTextDocument(outcome.changed[0], { preview: false });
  const review = 'Review Changes';
  const save = 'Save All';
  const refused =
    outcome.refused.length > 0 ? ` ${outcome.refused.length} file(s) outside the lab's folder were ignored.` : '';
  void vscode.window
    .showInformationMessage(
      `Pulled ${lab.name} from the emulator: ${outcome.changed.length} file(s) updated and not saved yet. Review, then save (Undo reverts).${refused}`,
      review,
      save,
    )
    .then(async (choice) => {
      if (choice === review)
        for (const uri of outcome.changed)
          await vscode.commands.executeCommand('workbench.files.action.compareWithSaved', uri);
      if (choice === save) await vscode.workspace.saveAll(false);
    });
  return data;
}

/** A lab that does not parse is refused before any question is asked: the agent would refuse it after. */
function refuseBrokenLab(lab: LabContext, action: string): void {
  const errors = lab.doc.syntaxErrors;
  if (errors.length === 0) return;
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new Error(
    `Cannot ${action} ${lab.name}: fix the YAML first. Line ${new LineIndex(lab.text).positionAt(first.range.start).line + 1}: ${first.message}${more}`,
  );
}

async function reconcileLab(services: Services, arg: unknown, fixed?: 'to_emu' | 'from_emu'): Promise<ReconcileData> {
  const { lab } = await resolveLab(arg, services.labParses);
  const direction = fixed ?? (await chooseDirection(services, lab, arg));
  if (direction === 'from_emu') return pullLab(services, lab);
  allowedClient(services.labAgents.sessionOf(lab.uri), 'reconcileToEmu', lab);
  refuseBrokenLab(lab, 'push');
  const prune = await choosePrune(arg, lab);
  return pushLab(services, lab, { prune });
}

async function destroyLab(services: Services, arg: unknown): Promise<unknown> {
  const { lab } = await resolveLab(arg, services.labParses);
  const client = allowedClient(services.labAgents.sessionOf(lab.uri), 'destroy', lab);
  let wipe = booleanArg(fieldOf(arg, 'wipe'));
  if (fieldOf(arg, 'confirmed') === true) {
    wipe = wipe ?? true;
  } else {
    const destroy = 'Destroy';
    const keep = 'Destroy, Keep Node Disks';
    const choice = await vscode.window.showWarningMessage(
      `Destroy ${lab.name} on the emulator?`,
      {
        modal: true,
        detail:
          'Deletes the lab, its nodes, networks and links. "Destroy" also wipes the nodes\' disks; the lab file stays.',
      },
      destroy,
      keep,
    );
    if (choice === undefined) throw new PromptCancelled();
    wipe = choice === destroy;
  }
  const payload = await labPayload(lab);
  const data = await withCancellableProgress(`Destroying ${lab.name}…`, (signal) =>
    client.destroyProject(wipe ? payload : { ...payload, wipe: false }, { signal }),
  );
  services.labStateChanged(lab.uri);
  services.log.info(`Destroyed ${lab.name} (${data.lab ?? '?'}), wiped: ${String(data.wiped ?? wipe)}`);
  void vscode.window.showInformationMessage(`Destroyed ${lab.name}${wipe ? '' : ' (node disks kept)'}.`);
  return data;
}

export function registerProjectCommands(services: Services): vscode.Disposable[] {
  return [
    registerGuarded(services, LabCommand.validate, 'Validate', (arg) => validateOnAgent(services, arg)),
    registerGuarded(services, LabCommand.deploy, 'Deploy', (arg) => deployLab(services, arg)),
    registerGuarded(services, LabCommand.reconcile, 'Reconcile', (arg) => reconcileLab(services, arg)),
    registerGuarded(services, LabCommand.reconcileToEmu, 'Push to the emulator', (arg) =>
      reconcileLab(services, arg, 'to_emu'),
    ),
    registerGuarded(services, LabCommand.reconcileFromEmu, 'Pull from the emulator', (arg) =>
      reconcileLab(services, arg, 'from_emu'),
    ),
    registerGuarded(services, LabCommand.destroy, 'Destroy', (arg) => destroyLab(services, arg)),
  ];
}
