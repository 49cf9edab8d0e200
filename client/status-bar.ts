/**
 * The status bar item: connection state, agent version and whether the
 * emulator is reachable, for the active agent (the active lab file's, else
 * the default one; named once there are several). Clicking it logs in when
 * logged out, else opens a quick pick with the details and the connection actions.
 */
import * as vscode from 'vscode';
import type { SessionStatusParams } from '../common/protocol';
import { registerGuarded } from './commands/guard';
import { DEFAULT_AGENT } from './model/agent-list';
import { agentLabel } from './model/lab-binding';
import { agentStatusView, statusView, type ServerStatus } from './model/status-text';
import type { Services } from './services';
import { LabCommand } from '../common/commands';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('labAgent.connection', vscode.StatusBarAlignment.Left, 10);
  private server: ServerStatus | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly services: Services) {
    this.item.name = 'Lab Agent';
    this.item.command = LabCommand.showConnection;
    this.subscriptions = [
      services.session.onDidChange(() => {
        // The server's report was about the previous session; it reports again on its next call.
        this.server = undefined;
        this.render();
      }),
      services.labAgents.onDidChangeActive(() => this.render()),
      registerGuarded(services, LabCommand.showConnection, 'Connection details', () => this.showDetails()),
    ];
    this.render();
    this.item.show();
  }

  /** The language server's report on its own use of the session. */
  setServerStatus(status: SessionStatusParams): void {
    this.server = status;
    this.render();
  }

  private render(): void {
    const view = this.view();
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor =
      view.tone === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : view.tone === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  private view(): ReturnType<typeof statusView> {
    const { labAgents, agents } = this.services;
    const lab = labAgents.activeLab();
    const session = labAgents.activeSession();
    // The language server works for the default agent's session.
    const server = session?.name === DEFAULT_AGENT ? this.server : undefined;
    const view = session === undefined ? undefined : statusView(session.current, server);
    const binding = lab === undefined ? undefined : labAgents.bindingOf(lab);
    const count = agents.names().length;
    const name = binding === undefined ? (count > 1 ? DEFAULT_AGENT : undefined) : agentLabel(binding, count);
    if (name === undefined && view !== undefined) return view;
    const why =
      binding === undefined
        ? 'no lab file is active'
        : binding.source === 'file'
          ? 'chosen for this lab file'
          : binding.source === 'folder'
            ? "the folder's setting labAgent.agent"
            : 'the default agent';
    return agentStatusView(view, name ?? binding?.agent ?? DEFAULT_AGENT, why, binding?.problem);
  }

  private async showDetails(): Promise<void> {
    const session = this.services.labAgents.activeSession();
    if (session === undefined) {
      await vscode.commands.executeCommand(LabCommand.moveLab);
      return;
    }
    const state = session.current.state;
    const agentArg = { agent: session.name };
    if (state === 'loggedOut') {
      await vscode.commands.executeCommand(LabCommand.login, agentArg);
      return;
    }
    if (state === 'expired') {
      await session.logInAgain();
      return;
    }
    // Unreachable: probe now rather than at the next back-off step.
    if (state === 'connected' || state === 'unreachable') await session.refresh();
    if (state === 'unreachable' && session.current.state === 'connected') return;
    const info = session.current;
    type Item = vscode.QuickPickItem & { run?: () => unknown };
    const detail = (label: string, value: string | undefined): Item => ({ label, description: value ?? '—' });
    const items: Item[] = [
      { label: 'Connection', kind: vscode.QuickPickItemKind.Separator },
      ...(this.services.agents.names().length > 1 ? [detail('$(server) Agent', session.name)] : []),
      detail('$(globe) Agent', info.baseUrl),
      detail('$(account) User', info.username),
      detail('$(info) State', info.problem ? `${info.state}: ${info.problem}` : info.state),
      detail('$(versions) Agent version', info.version),
      detail(
        '$(server-environment) Emulator',
        info.emuReachable === undefined
          ? undefined
          : `${info.emuReachable ? 'reachable' : 'NOT reachable'}${info.emuBaseUrl ? ` (${info.emuBaseUrl})` : ''}`,
      ),
      detail('$(lock) Pinned certificate', info.pin),
      detail(
        '$(symbol-keyword) Editor features',
        this.server ? `${this.server.state}${this.server.message ? `: ${this.server.message}` : ''}` : undefined,
      ),
      { label: 'Actions', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(refresh) Refresh', run: () => session.refresh() },
      {
        label: '$(account) Log In Again or as Another User',
        run: () => vscode.commands.executeCommand(LabCommand.login, agentArg),
      },
      { label: '$(sign-out) Log Out', run: () => vscode.commands.executeCommand(LabCommand.logout, agentArg) },
      ...(this.services.labAgents.activeLab() !== undefined && this.services.agents.names().length > 1
        ? [
            {
              label: '$(arrow-swap) Move Lab to Another Agent',
              run: () => vscode.commands.executeCommand(LabCommand.moveLab),
            },
          ]
        : []),
      { label: '$(output) Show Log', run: () => this.services.log.show() },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Lab Agent',
      placeHolder: 'Connection details and actions',
    });
    await picked?.run?.();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
