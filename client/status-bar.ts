/**
 * The status bar item: connection state, agent version and whether the
 * emulator is reachable. Clicking it logs in when logged out, else opens a
 * quick pick with the details and the connection actions.
 */
import * as vscode from 'vscode';
import type { SessionStatusParams } from '../common/protocol';
import { registerGuarded } from './commands/guard';
import { statusView, type ServerStatus } from './model/status-text';
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
    const view = statusView(this.services.session.current, this.server);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor =
      view.tone === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : view.tone === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  private async showDetails(): Promise<void> {
    const session = this.services.session;
    const state = session.current.state;
    if (state === 'loggedOut') {
      await vscode.commands.executeCommand(LabCommand.login);
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
        run: () => vscode.commands.executeCommand(LabCommand.login),
      },
      { label: '$(sign-out) Log Out', run: () => vscode.commands.executeCommand(LabCommand.logout) },
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
