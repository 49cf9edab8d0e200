/**
 * A node's console in an integrated terminal: a Pseudoterminal on the agent's
 * console stream, through the telnet layer. Typing goes to the node (with the
 * Ctrl-A / Ctrl-] guard); closing the terminal closes the stream; a dropped
 * stream says so and reconnects with a fresh ticket when the user presses R.
 */
import * as vscode from 'vscode';
import { openConsole } from '../../common/api/client';
import { attachTelnet, type TelnetConnection } from '../../common/telnet';
import { registerGuarded } from '../commands/guard';
import { logFailure } from '../log';
import { ConsoleInputGuard, keyWhileDisconnected } from '../model/console-input';
import { ConsoleOutput, disconnectedBanner } from '../model/console-output';
import { describeError } from '../model/errors';
import { allowedClient } from '../labs/gate';
import { consolePayload, loadLab, resolveLab, pickNodeName } from '../labs/lab-context';
import type { Services } from '../services';
import { LabCommand } from '../../common/commands';

type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'closed';

/** Keystrokes kept while connecting; more is a paste gone wrong, not typing. */
const TYPE_AHEAD_LIMIT = 4096;

class ConsolePty implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writeEmitter.event;
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  readonly onDidClose = this.closeEmitter.event;

  private state: ConnectionState = 'connecting';
  private telnet: TelnetConnection | undefined;
  private readonly input = new ConsoleInputGuard();
  private output = new ConsoleOutput();
  /** Numbers connection attempts, so that events of an old connection are ignored. */
  private attempt = 0;
  private pending: AbortController | undefined;
  /** What the user typed while the console was connecting; sent once it is up. */
  private typedAhead = '';

  constructor(
    private readonly services: Services,
    private readonly labUri: vscode.Uri,
    private readonly node: string,
    private readonly title: string,
  ) {}

  open(): void {
    void this.connect();
  }

  close(): void {
    this.state = 'closed';
    this.pending?.abort();
    this.telnet?.close();
    this.telnet = undefined;
    this.services.log.info(`Console ${this.title} closed`);
  }

  handleInput(data: string): void {
    if (this.state === 'connected' || this.state === 'connecting') {
      const mapped = this.input.map(data);
      for (const notice of mapped.notices) this.write(notice);
      if (mapped.send === '') return;
      if (this.state === 'connected') this.telnet?.send(mapped.send);
      else this.typedAhead = (this.typedAhead + mapped.send).slice(-TYPE_AHEAD_LIMIT);
      return;
    }
    if (this.state !== 'disconnected') return;
    const key = keyWhileDisconnected(data);
    if (key === 'reconnect') void this.connect();
    else if (key === 'close') this.closeEmitter.fire();
  }

  /** Opening the console again on a dropped one: connect again rather than show a dead terminal. */
  reconnectIfDropped(): void {
    if (this.state === 'disconnected') void this.connect();
  }

  private write(text: string): void {
    this.writeEmitter.fire(text);
  }

  private async connect(): Promise<void> {
    const attempt = ++this.attempt;
    this.state = 'connecting';
    this.write(`\x1b[2m[Lab Agent] Connecting to ${this.title}…\x1b[0m\r\n`);
    const controller = new AbortController();
    this.pending = controller;
    try {
      const lab = await loadLab(this.labUri, this.services.labParses);
      const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'consoleAttach', lab);
      const payload = await consolePayload(lab, { node: this.node });
      const { socket } = await openConsole(client, payload, { signal: controller.signal });
      if (this.superseded(attempt)) {
        socket.destroy();
        return;
      }
      this.output = new ConsoleOutput();
      this.telnet = attachTelnet(socket, {
        onText: (text) => {
          if (attempt === this.attempt) this.write(this.output.write(text));
        },
        onClose: (reason) => this.dropped(attempt, reason),
      });
      this.state = 'connected';
      this.services.log.info(`Console ${this.title} attached`);
      this.write('\x1b[2m[Lab Agent] Connected. Press Enter for a prompt.\x1b[0m\r\n');
      if (this.typedAhead !== '') this.telnet.send(this.typedAhead);
      this.typedAhead = '';
    } catch (err) {
      if (this.superseded(attempt)) return;
      logFailure(this.services.log, `Console ${this.title}`, err);
      const described = describeError(err);
      this.state = 'disconnected';
      this.typedAhead = '';
      this.write(`\r\n\x1b[31m[Lab Agent] Cannot open the console: ${described.message}\x1b[0m\r\n`);
      this.write('Press R to try again, or Q to close this terminal.\r\n');
    } finally {
      if (this.pending === controller) this.pending = undefined;
    }
  }

  /** Whether a newer attempt replaced this one, or the terminal was closed meanwhile. */
  private superseded(attempt: number): boolean {
    return attempt !== this.attempt || this.state === 'closed';
  }

  private dropped(attempt: number, reason: string | undefined): void {
    if (this.superseded(attempt)) return;
    this.telnet = undefined;
    this.state = 'disconnected';
    this.services.log.info(`Console ${this.title} disconnected${reason ? `: ${reason}` : ''}`);
    this.write(disconnectedBanner(reason));
  }
}

/** The open console terminals, one per lab node, so that opening a console again shows the one already open. */
class ConsoleTerminals implements vscode.Disposable {
  private readonly open = new Map<string, { terminal: vscode.Terminal; pty: ConsolePty }>();
  private readonly closing: vscode.Disposable;

  constructor(private readonly services: Services) {
    this.closing = vscode.window.onDidCloseTerminal((closed) => {
      for (const [key, entry] of this.open) if (entry.terminal === closed) this.open.delete(key);
    });
  }

  async show(arg: unknown): Promise<string> {
    const { lab, node: given } = await resolveLab(arg, this.services.labParses);
    allowedClient(this.services.labAgents.sessionOf(lab.uri), 'consoleAttach', lab);
    const node = await pickNodeName(lab, given, 'Open the console of which node?');
    const name = `${lab.name}/${node}`;
    const key = `${lab.uri.toString()}#${node}`;
    const existing = this.open.get(key);
    if (existing !== undefined) {
      existing.pty.reconnectIfDropped();
      existing.terminal.show();
      return existing.terminal.name;
    }
    const pty = new ConsolePty(this.services, lab.uri, node, name);
    const terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('terminal') });
    this.open.set(key, { terminal, pty });
    terminal.show();
    return name;
  }

  dispose(): void {
    this.closing.dispose();
    this.open.clear();
  }
}

export function registerConsoleTerminals(services: Services): vscode.Disposable[] {
  const terminals = new ConsoleTerminals(services);
  return [terminals, registerGuarded(services, LabCommand.openConsole, 'Open console', (arg) => terminals.show(arg))];
}
