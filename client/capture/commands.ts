/**
 * "Capture Packets…": asks the agent for a capture of one or more
 * `node:interface` targets (a link of the topology view, a node's interfaces in
 * the Labs view, or several links picked at once: the agent merges them into
 * one pcapng timeline), writes it to a file under labAgent.capture.folder, and
 * shows it live in Wireshark when asked and installed, else in the packet list
 * (rows from the agent's tshark when it sends them, else from a local tshark).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CapturePayload } from '../../common/api/contract';
import { LabCommand } from '../../common/commands';
import { registerGuarded } from '../commands/guard';
import { allowedClient } from '../labs/gate';
import { consolePayload, PromptCancelled, resolveLab, type LabContext } from '../labs/lab-context';
import type { Services } from '../services';
import { captureFileName, captureFolder } from './capture-file';
import { endingText } from './ending';
import { packetListColumn } from './list-placement';
import { PacketPanel } from './packet-panel';
import { CaptureRecording } from './recording';
import { captureChoices, type CaptureChoice } from './targets';
import { findProgram } from './tools';

const VIEW_TYPE = 'labAgent.packets';

/** What the topology view passes: the lab, and the targets of the link (or the ones to preselect). */
interface CaptureArg {
  uri?: string;
  node?: string;
  targets?: string[];
  /** Ask which links, with `targets` preselected (the "with other links" item). */
  pick?: boolean;
}

export function registerCaptureCommands(services: Services, extensionUri: vscode.Uri): vscode.Disposable[] {
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  const openLists = new Set<vscode.WebviewPanel>();
  const capture = async (arg: unknown): Promise<boolean> => {
    const given = (typeof arg === 'object' && arg !== null ? arg : {}) as CaptureArg;
    const { lab, node } = await resolveLab(arg, services.labParses);
    const session = services.labAgents.sessionOf(lab.uri);
    const client = allowedClient(session, 'capture', lab);
    const targets =
      given.targets !== undefined && given.targets.length > 0 && given.pick !== true
        ? given.targets
        : await pickTargets(lab, node, given.targets ?? []);
    const viewer = await pickViewer();
    const config = vscode.workspace.getConfiguration('labAgent.capture');
    const workspace = vscode.workspace.getWorkspaceFolder(lab.uri)?.uri.fsPath ?? join(lab.labPath, '..');
    const file = join(
      captureFolder(config.get<string>('folder') ?? '', workspace),
      captureFileName(lab.name, targets, new Date()),
    );
    // The lab fields of a console request (decisions §14), with the targets in place of the console's.
    const payload: CapturePayload = { ...(await consolePayload(lab, {})), targets };
    const filter = (config.get<string>('filter') ?? '').trim();
    if (filter !== '') payload.filter = filter;
    // The packet list takes its rows from the agent's tshark when it offers them (decisions §14).
    const summaries = viewer.kind === 'list' && session.capabilities?.features?.capture_summaries === true;
    const recording = await CaptureRecording.start(client, payload, file, { summaries });
    const title = `${lab.name}: ${targets.join(', ')}`;
    services.log.info(`Capture ${title} started, writing ${file}`);
    void recording.ended.then((ending) => services.log.info(`Capture ${title}: ${endingText(ending)}`));
    if (viewer.kind === 'wireshark') showInWireshark(viewer.path, recording, title);
    else {
      const panel = vscode.window.createWebviewPanel(
        VIEW_TYPE,
        `Packets: ${targets.join(', ')}`,
        { viewColumn: await packetListColumn(openLists) },
        { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [dist] },
      );
      openLists.add(panel);
      panel.onDidDispose(() => openLists.delete(panel));
      panel.iconPath = new vscode.ThemeIcon('pulse');
      new PacketPanel(panel, recording, title, findProgram('tshark', config.get<string>('tsharkPath') ?? ''), dist);
    }
    return true;
  };
  return [registerGuarded(services, LabCommand.capture, 'Capture packets', capture)];
}

async function pickTargets(lab: LabContext, node: string | undefined, preselected: string[]): Promise<string[]> {
  const choices = captureChoices(lab.doc.links, node);
  if (choices.length === 0) {
    throw new Error(
      node !== undefined
        ? `${node} has no interface on a link of ${lab.name}: there is nothing to capture on.`
        : `${lab.name} has no link with a node interface: there is nothing to capture on.`,
    );
  }
  const items = choices.map((choice: CaptureChoice) => ({
    label: choice.target,
    description: choice.link,
    picked: preselected.includes(choice.target),
    target: choice.target,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: node !== undefined ? `Capture on ${node}` : `Capture on ${lab.name}`,
    placeHolder: 'The interfaces to capture on (several are merged into one timeline)',
    canPickMany: true,
  });
  if (picked === undefined || picked.length === 0) throw new PromptCancelled();
  return picked.map((item) => item.target);
}

/** Wireshark when the user wants it and it is installed; else the packet list. */
async function pickViewer(): Promise<{ kind: 'list' } | { kind: 'wireshark'; path: string }> {
  const config = vscode.workspace.getConfiguration('labAgent.capture');
  const setting = config.get<string>('viewer') ?? 'ask';
  if (setting === 'list') return { kind: 'list' };
  const path = findProgram('wireshark', config.get<string>('wiresharkPath') ?? '');
  if (path === undefined) {
    if (setting === 'wireshark')
      void vscode.window.showWarningMessage(
        'Wireshark was not found on PATH (set labAgent.capture.wiresharkPath): showing the packets in VS Code.',
      );
    return { kind: 'list' };
  }
  if (setting === 'wireshark') return { kind: 'wireshark', path };
  const choice = await vscode.window.showQuickPick(
    [
      {
        label: 'Open in Wireshark',
        detail: `Wireshark follows the capture live (${path})`,
        viewer: 'wireshark' as const,
      },
      { label: 'Show in VS Code', detail: 'A live packet list below the lab', viewer: 'list' as const },
    ],
    { title: 'Where to show the capture?' },
  );
  if (choice === undefined) throw new PromptCancelled();
  return choice.viewer === 'wireshark' ? { kind: 'wireshark', path } : { kind: 'list' };
}

/**
 * Wireshark reads the capture from its standard input (`-k -i -`), fed from the file; the capture
 * runs until Stop in the notification (closing Wireshark does not stop the file).
 */
function showInWireshark(path: string, recording: CaptureRecording, title: string): void {
  const child = spawn(path, ['-k', '-i', '-'], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('error', (err) => void vscode.window.showErrorMessage(`Cannot run Wireshark (${path}): ${err.message}`));
  recording.follow(child.stdin);
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Capturing ${title}`, cancellable: true },
    async (progress, cancel) => {
      progress.report({ message: `to ${recording.file} (Cancel stops it)` });
      cancel.onCancellationRequested(() => recording.stop());
      const ending = await recording.ended;
      await recording.close();
      void vscode.window.showInformationMessage(`${title}: ${endingText(ending)} The file: ${recording.file}`);
    },
  );
}
