/**
 * The live packet list of one capture: a webview panel with the newest rows
 * (time, interface, source, destination, protocol, summary), Stop, Pause
 * scrolling and a filter. The rows come from the agent's tshark when the agent
 * sends summaries beside the bytes (no Wireshark needed here), else from a
 * local tshark reading the capture's file.
 *
 * The filter: with a local tshark it is a Wireshark display filter, run by that
 * tshark over the file from its first packet; without one, over the agent's
 * rows, it is a text match (rows whose columns hold the text, among the newest
 * ROW_CAP held and those that come). The filter box says which.
 * At any rate of packets the host sends rows in batches, at most ROW_CAP a
 * batch, and the page keeps the newest ROW_CAP: every packet stays in the file.
 * Closing the panel stops the capture; the file is kept.
 */
import * as vscode from 'vscode';
import { readAgentSummaries } from './agent-summaries';
import { decodeCapture } from './decoder';
import type { PacketHostMessage, PacketWebviewMessage } from './messages';
import { NewestRows, rowMatches, type PacketRow } from './packet-rows';
import type { CaptureEnding, CaptureRecording } from './recording';
import { endingText } from './ending';
import { webviewHtml } from '../webview-html';

/** Rows are sent to the page at most this often: a batch per frame is all a person can read. */
const FLUSH_MS = 200;

export class PacketPanel {
  private rows = new NewestRows<PacketRow>();
  private decoder: { stop(): void } | undefined;
  /** The agent's summaries while they come: the newest rows are kept for a new text filter. */
  private agent: { reader: { stop(): void }; held: NewestRows<PacketRow> } | undefined;
  /** The filter over the agent's rows; undefined while a local tshark makes the rows. */
  private textFilter: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  private disposed = false;
  private status: PacketHostMessage = { type: 'status', text: '', running: true };
  private problem = '';

  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly recording: CaptureRecording,
    title: string,
    /** tshark's path; undefined: not found, the list says how to get it. */
    private readonly tshark: string | undefined,
    dist: vscode.Uri,
  ) {
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = pageHtml(panel.webview, dist);
    this.status = { type: 'status', text: `Capturing ${title} to ${recording.file}`, running: true };
    panel.onDidDispose(() => this.dispose());
    panel.webview.onDidReceiveMessage((message: PacketWebviewMessage) => this.onMessage(message));
    void recording.ended.then((ending) => this.ended(ending));
    if (recording.summaries) this.agent = this.readAgent(recording.summaries);
    this.decode('');
  }

  /** What the filter box does, said in its placeholder. */
  private get filterHint(): string {
    return this.agent !== undefined && this.tshark === undefined
      ? "Text filter over the agent's rows (e.g. ospf or 10.0.1.1), Enter to apply; a local tshark gives Wireshark display filters"
      : 'Display filter (Wireshark syntax, e.g. ospf or icmp), Enter to apply';
  }

  private readAgent(body: NonNullable<CaptureRecording['summaries']>) {
    const held = new NewestRows<PacketRow>();
    const reader = readAgentSummaries(body, {
      row: (row) => {
        held.push(row);
        if (this.textFilter === undefined || !rowMatches(row, this.textFilter)) return;
        this.rows.push(row);
        this.schedule();
      },
      ended: (problem) => {
        this.flush();
        if (problem === undefined) return;
        // The agent's summaries stopped (too far behind, tshark failed): the local tshark takes over, or the list says why.
        this.agent = undefined;
        const filter = this.textFilter;
        if (this.tshark !== undefined) {
          if (filter !== undefined) this.decode(filter);
        } else
          this.setProblem(`The agent's packet summaries stopped: ${problem} The capture file: ${this.recording.file}`);
        this.post({ type: 'filterHint', text: this.filterHint });
      },
    });
    return { reader, held };
  }

  private onMessage(message: PacketWebviewMessage): void {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'filterHint', text: this.filterHint });
        this.post(this.status);
        this.post({ type: 'problem', text: this.problem });
        this.flush();
        return;
      case 'stop':
        this.recording.stop();
        return;
      case 'filter':
        this.post({ type: 'clear', filter: message.filter });
        this.decode(message.filter);
        return;
      case 'revealFile':
        void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(this.recording.file));
        return;
    }
  }

  /**
   * Applies a filter: over the agent's rows when they come and no local tshark is needed (no
   * filter) or there is none (a text filter); else (re)starts the local tshark with it as a
   * display filter, reading the file from its first packet.
   */
  private decode(filter: string): void {
    this.decoder?.stop();
    this.decoder = undefined;
    this.rows = new NewestRows<PacketRow>();
    this.setProblem('');
    if (this.agent !== undefined && (filter.trim() === '' || this.tshark === undefined)) {
      this.textFilter = filter;
      for (const row of this.agent.held.peek()) if (rowMatches(row, filter)) this.rows.push(row);
      this.flush();
      return;
    }
    this.textFilter = undefined;
    if (this.tshark === undefined) {
      this.setProblem(
        `tshark was not found: install Wireshark/tshark (or set labAgent.capture.tsharkPath) to see packets here. The capture is still written to ${this.recording.file}.`,
      );
      return;
    }
    const rows = this.rows;
    const decoder = decodeCapture(this.tshark, this.recording, filter, {
      row: (row) => {
        rows.push(row);
        this.schedule();
      },
      ended: (problem) => {
        if (this.decoder !== decoder) return;
        this.flush();
        if (problem !== undefined) this.setProblem(`tshark: ${problem}`);
      },
    });
    this.decoder = decoder;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  private flush(): void {
    if (!this.ready) return;
    const rows = this.rows.take();
    if (rows.length > 0) this.post({ type: 'rows', rows, total: this.rows.total });
  }

  private setProblem(text: string): void {
    this.problem = text;
    this.post({ type: 'problem', text });
  }

  private ended(ending: CaptureEnding): void {
    this.status = { type: 'status', text: `${endingText(ending)} The file: ${this.recording.file}`, running: false };
    this.post(this.status);
  }

  private post(message: PacketHostMessage): void {
    if (this.ready && !this.disposed) void this.panel.webview.postMessage(message);
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.decoder?.stop();
    this.agent?.reader.stop();
    this.recording.stop();
    void this.recording.ended.then(() => this.recording.close());
  }
}

/** The live list's page (client/webview-html.ts). */
function pageHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  return webviewHtml(webview, dist, {
    bundle: 'packets',
    title: 'Packets',
    body: `<header>
<button type="button" id="stop" title="Stop the capture (the file is kept)">Stop</button>
<label><input type="checkbox" id="pause"> Pause scrolling</label>
<input type="text" id="filter" aria-label="Filter" spellcheck="false">
<button type="button" id="file" title="Show the capture file">File</button>
</header>
<div id="status" role="status" aria-live="polite"></div>
<div id="problem" role="alert" hidden></div>
<main id="scroller">
<table id="packets" aria-label="Packets">
<thead><tr><th>No.</th><th>Time</th><th>Interface</th><th>Source</th><th>Destination</th><th>Protocol</th><th>Info</th></tr></thead>
<tbody></tbody>
</table>
</main>`,
  });
}
