/**
 * Read-only looks at a live lab: status, inspect (the emulator's observation,
 * refreshable past the agent's cache) and open (with the emulator's web page).
 * Each opens as a read-only document (scheme lab-agent-report).
 */
import * as vscode from 'vscode';
import type { InspectionData, OpenData, ProjectStatusData } from '../../common/api/contract';
import { ReadOnlyDocuments } from '../documents/read-only-documents';
import { booleanArg, fieldOf } from '../model/command-args';
import { renderInspection, renderOpen, renderStatus } from '../model/report-text';
import { allowedClient } from '../labs/gate';
import { loadLab, observationPayload, resolveLab, type LabContext } from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

export const REPORT_SCHEME = 'lab-agent-report';
type ReportKind = 'status' | 'inspect' | 'open';

export class Reports implements vscode.Disposable {
  private readonly documents = new ReadOnlyDocuments(REPORT_SCHEME);
  /** What each report document shows, so Refresh can run it again. */
  private readonly shown = new Map<string, { kind: ReportKind; labUri: vscode.Uri }>();

  constructor(private readonly services: Services) {}

  register(): vscode.Disposable[] {
    return [
      registerGuarded(this.services, LabCommand.status, 'Lab status', async (arg) =>
        this.status((await resolveLab(arg, this.services.labParses)).lab),
      ),
      registerGuarded(this.services, LabCommand.inspect, 'Inspect', async (arg) =>
        this.inspect(
          (await resolveLab(arg, this.services.labParses)).lab,
          booleanArg(fieldOf(arg, 'refresh')) ?? false,
        ),
      ),
      registerGuarded(this.services, LabCommand.openLab, 'Open lab', async (arg) =>
        this.open((await resolveLab(arg, this.services.labParses)).lab, arg),
      ),
      registerGuarded(this.services, LabCommand.refreshReport, 'Refresh', (arg) => this.refresh(arg)),
    ];
  }

  private async showReport(lab: LabContext, kind: ReportKind, text: string): Promise<void> {
    const uri = this.documents.uriFor(lab.uri, kind);
    this.shown.set(uri.toString(), { kind, labUri: lab.uri });
    await this.documents.show(uri, text);
  }

  async status(lab: LabContext): Promise<ProjectStatusData> {
    const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'status', lab);
    const data = await withCancellableProgress(`Reading the status of ${lab.name}…`, (signal) =>
      client.getProjectStatus(observationPayload(lab), { signal }),
    );
    await this.showReport(lab, 'status', renderStatus(data, lab.name));
    return data;
  }

  async inspect(lab: LabContext, refresh: boolean): Promise<InspectionData> {
    const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'inspect', lab);
    const payload = refresh ? { ...observationPayload(lab), refresh: true } : observationPayload(lab);
    const data = await withCancellableProgress(`Inspecting ${lab.name}…`, (signal) =>
      client.inspectProject(payload, { signal }),
    );
    await this.showReport(lab, 'inspect', renderInspection(data, lab.name));
    return data;
  }

  async open(lab: LabContext, arg?: unknown): Promise<OpenData> {
    const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'open', lab);
    const data = await withCancellableProgress(`Opening ${lab.name}…`, (signal) =>
      client.openProject(observationPayload(lab), { signal }),
    );
    await this.showReport(lab, 'open', renderOpen(data, lab.name));
    const url = data.url;
    if (typeof url === 'string' && /^https?:\/\//i.test(url) && fieldOf(arg, 'quiet') !== true) {
      const browse = 'Open in Browser';
      void vscode.window.showInformationMessage(`${lab.name} is at ${url}`, browse).then((choice) => {
        if (choice === browse) void vscode.env.openExternal(vscode.Uri.parse(url));
      });
    }
    return data;
  }

  /** Runs the report of the given (or active) report document again; inspect bypasses the agent's cache. */
  private async refresh(arg: unknown): Promise<unknown> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const entry = uri !== undefined ? this.shown.get(uri.toString()) : undefined;
    if (entry === undefined) throw new Error('Nothing to refresh here: open a status, inspect or open report first.');
    const lab = await loadLab(entry.labUri, this.services.labParses);
    if (entry.kind === 'inspect') return this.inspect(lab, true);
    if (entry.kind === 'open') return this.open(lab, { quiet: true });
    return this.status(lab);
  }

  dispose(): void {
    this.documents.dispose();
    this.shown.clear();
  }
}
