/**
 * The topology view of one lab file: a webview beside its editor that draws
 * the lab as the language server reads it, follows the document as the user
 * types and the live lab while it is visible, and turns what the user does
 * in it into commands and undoable, unsaved edits of the lab file.
 */
import * as vscode from 'vscode';
import type { Position as LspPosition, Range as LspRange } from 'vscode-languageserver-protocol';
import {
  FreeInterfacesRequest,
  PlanRequest,
  type LabPlan,
  TopologyEditRequest,
  TopologyRequest,
  type TopologyChange,
  type TopologyData,
} from '../../common/protocol';
import { LabCommand } from '../../common/commands';
import { reportFailure } from '../commands/guard';
import { PromptCancelled } from '../labs/lab-context';
import type { LabLanguageClient } from '../language-client';
import { describeError } from '../model/errors';
import { isSettling } from '../model/lab-rows';
import { PacedRefresh } from '../model/paced-refresh';
import type { Services } from '../services';
import { refreshIntervalMs } from '../views/agent-tree';
import { buildGraph, linkId, networkId, nodeId, type LiveInfo } from './graph-model';
import { GraphSender } from './graph-delta';
import { fetchLiveInfo } from './live-state';
import type { GraphData, HostMessage, NodeAction, WebviewMessage } from './messages';
import { PAGE_BODY } from './page';

/** A typing pause this long redraws the lab. */
const TYPING_DEBOUNCE_MS = 60;
/** The plan asks the agent to compare the whole lab: only after a longer pause. */
const PLAN_DEBOUNCE_MS = 2000;

const NODE_COMMANDS: Record<NodeAction, string> = {
  start: 'labAgent.startNode',
  stop: 'labAgent.stopNode',
  wipe: 'labAgent.wipeNode',
  console: 'labAgent.openConsole',
  consoleExec: 'labAgent.execConsole',
};

export class TopologyPanel implements vscode.Disposable {
  private topology: TopologyData | undefined;
  private live: LiveInfo | undefined;
  private ready = false;
  /** What the webview has, so that an update sends only what changed. */
  private readonly sender = new GraphSender();
  private readonly timers = new Map<'typing' | 'plan', NodeJS.Timeout>();
  /** Node states load again at the pace of the Labs view (refresh-pacer.ts) while the view is visible. */
  private readonly paced = new PacedRefresh({
    intervalMs: refreshIntervalMs,
    visible: () => this.panel.visible && !this.disposed,
    load: () => void this.refreshLive({ status: true, plan: false }),
  });
  private readonly subscriptions: vscode.Disposable[] = [];
  /** The live fetch in flight, so that polls do not pile up on a slow agent. */
  private fetching: Promise<void> | undefined;
  /** What was asked for while a fetch ran, fetched after it. */
  private pending: { status: boolean; plan: boolean } | undefined;
  private disposed = false;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly server: LabLanguageClient,
    extensionUri: vscode.Uri,
    onDisposed: () => void,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = pageHtml(panel.webview, dist);
    this.subscriptions.push(
      panel.onDidDispose(() => {
        this.dispose();
        onDisposed();
      }),
      panel.webview.onDidReceiveMessage((message: WebviewMessage) => void this.onMessage(message)),
      panel.onDidChangeViewState(() => this.visibilityChanged()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.toString() !== uri.toString() || event.contentChanges.length === 0) return;
        this.later('typing', TYPING_DEBOUNCE_MS, () => void this.refreshTopology());
        this.later('plan', PLAN_DEBOUNCE_MS, () => void this.refreshLive({ status: false, plan: true }));
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor.document.uri.toString() === uri.toString()) this.cursorMoved(event.selections);
      }),
      // An action changed the lab (here or in another view): follow it as the views do.
      services.onLabViewsStale(() => {
        this.paced.followAction();
        void this.refreshLive({ status: true, plan: true });
      }),
      services.agents.onDidChange((session) => {
        if (session === undefined || session === services.labAgents.sessionIfAny(uri))
          void this.refreshLive({ status: true, plan: true });
      }),
      services.labAgents.onDidChange(() => void this.refreshLive({ status: true, plan: true })),
    );
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  private async onMessage(message: WebviewMessage): Promise<void> {
    try {
      switch (message.type) {
        case 'ready':
          // A new page (the first, or the webview was loaded again): it has no drawing.
          this.ready = true;
          this.sender.reset();
          await this.refreshTopology();
          this.visibilityChanged();
          return;
        case 'resync':
          this.redrawWhole();
          return;
        case 'reveal':
          await this.revealElement(message.id);
          return;
        case 'revealEndpoints':
          await this.revealEndpoints(message.index);
          return;
        case 'move':
          await this.edit({ kind: 'position', node: message.node, x: message.x, y: message.y }, true);
          return;
        case 'deleteLink':
          await this.edit({ kind: 'deleteLink', index: message.index }, false);
          return;
        case 'addLink':
          try {
            await this.addLink(message.from, message.to);
          } finally {
            this.post({ type: 'linkDone' });
          }
          return;
        case 'capture':
          await vscode.commands.executeCommand(LabCommand.capture, {
            uri: this.uri.toString(),
            targets: [message.target],
            pick: message.others,
          });
          return;
        case 'nodeAction':
          this.paced.followAction();
          await vscode.commands.executeCommand(NODE_COMMANDS[message.action], {
            uri: this.uri.toString(),
            node: message.node,
          });
          await this.refreshLive({ status: true, plan: false });
          return;
      }
    } catch (err) {
      await reportFailure(this.services, `Topology of ${this.uri.path.split('/').pop()}`, err);
    }
  }

  /** The lab's plan as the language server shares it with the plan lens (the document opened for it if need be). */
  private async sharedPlan(): Promise<LabPlan | null | undefined> {
    const plan = await this.server.request(PlanRequest, { uri: this.uri.toString() });
    if (plan !== null) return plan;
    await vscode.workspace.openTextDocument(this.uri);
    return this.server.request(PlanRequest, { uri: this.uri.toString() });
  }

  /** Asks the language server for the lab as it reads it now, and redraws. */
  private async refreshTopology(): Promise<void> {
    let topology = await this.server.request(TopologyRequest, { uri: this.uri.toString() });
    if (topology === null) {
      // The server reads open documents only: open it (without showing it) and ask again.
      await vscode.workspace.openTextDocument(this.uri);
      topology = await this.server.request(TopologyRequest, { uri: this.uri.toString() });
    }
    if (this.disposed) return;
    if (!topology) {
      this.postGraph({
        title: this.uri.path.split('/').pop() ?? 'lab',
        nodes: [],
        links: [],
        notes: ['The language server is not running, so the lab cannot be read. See the Lab Agent log.'],
        liveSummary: '',
      });
      return;
    }
    this.topology = topology;
    const name = topology.name ?? this.uri.path.split('/').pop();
    // With several agents, the title says whose live state it shows.
    const agent =
      this.services.agents.names().length > 1 ? ` (${this.services.labAgents.bindingOf(this.uri).agent})` : '';
    this.panel.title = `Topology: ${name}${agent}`;
    this.draw();
  }

  private draw(): void {
    if (!this.topology) return;
    const live: LiveInfo = this.live ?? {
      connected: this.services.labAgents.sessionIfAny(this.uri)?.current.state === 'connected',
      mode: 'managed',
    };
    this.postGraph(buildGraph(this.topology, live));
  }

  /** Sends what changed since the drawing the webview has (nothing when nothing did). */
  private postGraph(graph: GraphData): void {
    if (!this.ready || this.disposed) return;
    const message = this.sender.message(graph);
    if (message) this.post(message);
  }

  /** Puts the webview's drawing back as the document has it (a node dragged where an edit was refused). */
  private redrawWhole(): void {
    this.sender.reset();
    this.draw();
  }

  private refreshLive(what: { status: boolean; plan: boolean }): Promise<void> {
    if (!this.panel.visible || this.disposed) return Promise.resolve();
    if (this.fetching) {
      // Its answer may predate what made this ask (a push): fetch once more when it ends.
      this.pending = {
        status: what.status || this.pending?.status === true,
        plan: what.plan || this.pending?.plan === true,
      };
      return this.fetching;
    }
    this.paced.cancel();
    this.fetching = fetchLiveInfo(this.services, this.uri, what, this.live, () => this.sharedPlan())
      .then((live) => {
        this.live = live;
        this.draw();
        if (live.connected && !this.disposed) this.paced.loaded(liveFingerprint(live), isSettling(live));
      })
      .catch((err: unknown) => {
        const message = describeError(err).message;
        this.services.log.warn(`Topology live state: ${message}`);
        // Tried again later, more slowly while it keeps failing the same way.
        if (!this.disposed) this.paced.loaded(`failed: ${message}`, false);
      })
      .finally(() => {
        this.fetching = undefined;
        const next = this.pending;
        this.pending = undefined;
        if (next) void this.refreshLive(next);
      });
    return this.fetching;
  }

  /** Shown for the first time: the live lab is fetched; shown again: at once if a load came due while hidden. */
  private visibilityChanged(): void {
    if (!this.panel.visible || !this.ready) return;
    if (this.live === undefined) void this.refreshLive({ status: true, plan: true });
    else this.paced.shown();
  }

  private cursorMoved(selections: readonly vscode.Selection[]): void {
    const topology = this.topology;
    if (!topology) return;
    const ids = new Set<string>();
    for (const selection of selections) {
      const at = selection.active;
      const link = topology.links.find((l) => contains(l.range, at));
      if (link) {
        ids.add(linkId(link.index));
        continue;
      }
      const node = topology.nodes.find((n) => contains(n.range, at));
      if (node) ids.add(nodeId(node.name));
      const network = topology.networks.find((n) => contains(n.range, at));
      if (network) ids.add(networkId(network.name));
    }
    this.post({ type: 'highlight', ids: [...ids] });
  }

  private async editor(): Promise<vscode.TextEditor> {
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri.toString());
    const column =
      shown?.viewColumn ??
      (this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
    return vscode.window.showTextDocument(this.uri, { viewColumn: column, preserveFocus: false, preview: false });
  }

  private async revealElement(id: string): Promise<void> {
    const range = this.rangeOf(id);
    if (!range) return;
    const editor = await this.editor();
    const selection = toRange(range);
    editor.selection = new vscode.Selection(selection.start, selection.end);
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private rangeOf(id: string): LspRange | undefined {
    const topology = this.topology;
    const [kind, name] = [id.slice(0, id.indexOf(':')), id.slice(id.indexOf(':') + 1)];
    if (kind === 'node') return topology?.nodes.find((n) => n.name === name)?.nameRange;
    if (kind === 'network') return topology?.networks.find((n) => n.name === name)?.nameRange;
    if (kind === 'link') return topology?.links.find((l) => l.index === Number(name))?.range;
    return undefined;
  }

  private async revealEndpoints(index: number): Promise<void> {
    const link = this.topology?.links.find((l) => l.index === index);
    if (!link || link.endpoints.length === 0) return;
    const editor = await this.editor();
    editor.selections = link.endpoints.map((e) => {
      const r = toRange(e.range);
      return new vscode.Selection(r.start, r.end);
    });
    editor.revealRange(toRange(link.range), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private async addLink(from: string, to: string): Promise<void> {
    const end = async (id: string): Promise<string> => {
      const colon = id.indexOf(':');
      const name = id.slice(colon + 1);
      return id.startsWith('network:') ? name : `${name}:${await this.pickInterface(name)}`;
    };
    if (from.startsWith('network:') && to.startsWith('network:'))
      throw new Error('A link cannot join two networks: draw it from a node.');
    const a = await end(from);
    const b = await end(to);
    await this.edit({ kind: 'addLink', endpoints: [a, b] }, false);
  }

  private async pickInterface(node: string): Promise<string> {
    const answer = await this.server.request(FreeInterfacesRequest, { uri: this.uri.toString(), node });
    let picked: string | undefined;
    if (answer && 'interfaces' in answer && answer.interfaces.length > 0) {
      picked = (
        await vscode.window.showQuickPick(answer.interfaces, {
          title: `New link: the interface of ${node}`,
          placeHolder: `A free interface of ${node}`,
        })
      )?.trim();
    } else {
      const why =
        answer && 'error' in answer
          ? answer.error
          : answer
            ? `${node} has no free interface.`
            : 'The language server is not running.';
      picked = (
        await vscode.window.showInputBox({
          title: `New link: the interface of ${node}`,
          prompt: `${why} Type the interface name.`,
          validateInput: (v) => (/^[^\s,[\]{}#:]+$/.test(v.trim()) ? undefined : 'An interface name, e.g. Gi0/1'),
        })
      )?.trim();
    }
    if (!picked) throw new PromptCancelled();
    return picked;
  }

  /** Asks the server for the edit and applies it (undoable, not saved); a refused edit puts the drawing back. */
  private async edit(change: TopologyChange, redrawOnRefusal: boolean): Promise<void> {
    const document = await vscode.workspace.openTextDocument(this.uri);
    const answer = await this.server.request(TopologyEditRequest, {
      uri: this.uri.toString(),
      version: document.version,
      change,
    });
    if (!answer || 'error' in answer) {
      if (redrawOnRefusal) this.redrawWhole();
      throw new Error(answer ? answer.error : 'The language server is not running; the lab file was not changed.');
    }
    if (answer.edits.length === 0) return;
    const edit = new vscode.WorkspaceEdit();
    for (const e of answer.edits) edit.replace(this.uri, toRange(e.range), e.newText);
    if (!(await vscode.workspace.applyEdit(edit))) {
      if (redrawOnRefusal) this.redrawWhole();
      throw new Error('The edit could not be applied to the lab file (is it read-only?).');
    }
  }

  private post(message: HostMessage): void {
    if (this.ready && !this.disposed) void this.panel.webview.postMessage(message);
  }

  private later(key: 'typing' | 'plan', ms: number, run: () => void): void {
    this.clear(key);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        run();
      }, ms),
    );
  }

  private clear(key: 'typing' | 'plan'): void {
    const timer = this.timers.get(key);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(key);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.paced.cancel();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}

/** What a status load showed, to tell change from idleness: the lab's state and each node's. */
function liveFingerprint(live: LiveInfo): string {
  const status = live.status;
  const nodes = (status?.nodes ?? []).map((n) => `${String(n.name)}=${String(n.state)}`);
  return JSON.stringify([live.statusError, status?.state, status?.locked, nodes]);
}

function toPosition(p: LspPosition): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

function toRange(r: LspRange): vscode.Range {
  return new vscode.Range(toPosition(r.start), toPosition(r.end));
}

function contains(range: LspRange, at: vscode.Position): boolean {
  return !at.isBefore(toPosition(range.start)) && !at.isAfter(toPosition(range.end));
}

/** The page: only the bundle and its stylesheet load (strict CSP: no inline script or style, no other origin). */
function pageHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'topology.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'topology-style.css'));
  const source = webview.cspSource;
  // The stylesheet's id is the one Cytoscape.js looks for before inserting an inline <style>, which the CSP would block.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${source}; style-src ${source}; img-src ${source} data:; font-src ${source};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="__________cytoscape_stylesheet" href="${style.toString()}">
<title>Topology</title>
</head>
<body>
${PAGE_BODY}
<script src="${script.toString()}"></script>
</body>
</html>`;
}
