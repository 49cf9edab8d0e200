/**
 * What the topology webview shows: the lab as the language server reads it,
 * with what is known of the live lab, sent as the changes since the drawing
 * the page has (graph-delta.ts).
 */
import * as vscode from 'vscode';
import { TopologyRequest, type TopologyData } from '../../common/protocol';
import type { LabLanguageClient } from '../language-client';
import type { Services } from '../services';
import { GraphSender } from './graph-delta';
import { buildGraph, type LiveInfo } from './graph-model';
import type { GraphData, HostMessage } from './messages';

export class LabDrawing {
  private lab: TopologyData | undefined;
  private liveInfo: LiveInfo | undefined;
  /** The page has said it is ready (it has no drawing before). */
  private ready = false;
  /** What the webview has, so that an update sends only what changed. */
  private readonly sender = new GraphSender();

  constructor(
    private readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly server: LabLanguageClient,
    private readonly isDisposed: () => boolean,
  ) {}

  /** The lab as last read (undefined before the first read). */
  get topology(): TopologyData | undefined {
    return this.lab;
  }

  get live(): LiveInfo | undefined {
    return this.liveInfo;
  }

  get pageReady(): boolean {
    return this.ready;
  }

  /** A new page (the first, or the webview was loaded again): it has no drawing. */
  pageLoaded(): void {
    this.ready = true;
    this.sender.reset();
  }

  /** Asks the language server for the lab as it reads it now, and redraws. */
  async reload(): Promise<void> {
    let topology = await this.server.request(TopologyRequest, { uri: this.uri.toString() });
    if (topology === null) {
      // The server reads open documents only: open it (without showing it) and ask again.
      await vscode.workspace.openTextDocument(this.uri);
      topology = await this.server.request(TopologyRequest, { uri: this.uri.toString() });
    }
    if (this.isDisposed()) return;
    if (!topology) {
      this.send({
        title: this.uri.path.split('/').pop() ?? 'lab',
        nodes: [],
        links: [],
        notes: ['The language server is not running, so the lab cannot be read. See the Lab Agent log.'],
        liveSummary: '',
      });
      return;
    }
    this.lab = topology;
    const name = topology.name ?? this.uri.path.split('/').pop();
    // With several agents, the title says whose live state it shows.
    const agent =
      this.services.agents.names().length > 1 ? ` (${this.services.labAgents.bindingOf(this.uri).agent})` : '';
    this.panel.title = `Topology: ${name}${agent}`;
    this.draw();
  }

  showLive(live: LiveInfo): void {
    this.liveInfo = live;
    this.draw();
  }

  /** Puts the webview's drawing back as the document has it (a node dragged where an edit was refused). */
  redrawWhole(): void {
    this.sender.reset();
    this.draw();
  }

  post(message: HostMessage): void {
    if (this.ready && !this.isDisposed()) void this.panel.webview.postMessage(message);
  }

  private draw(): void {
    if (!this.lab) return;
    const live: LiveInfo = this.liveInfo ?? {
      connected: this.services.labAgents.sessionIfAny(this.uri)?.current.state === 'connected',
      mode: 'managed',
    };
    this.send(buildGraph(this.lab, live));
  }

  /** Sends what changed since the drawing the webview has (nothing when nothing did). */
  private send(graph: GraphData): void {
    if (!this.ready || this.isDisposed()) return;
    const message = this.sender.message(graph);
    if (message) this.post(message);
  }
}
