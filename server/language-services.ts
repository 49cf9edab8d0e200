/**
 * The language services of one server, built apart from the LSP handlers that
 * call them (handlers/), as yaml-language-server keeps its languageservice/
 * apart from its languageserver/handlers/.
 */
import type { Connection } from 'vscode-languageserver/node';
import { Catalogue } from './catalogue';
import { ConfigFiles } from './config-files';
import { LabDocuments } from './documents';
import { LabPlans } from './lab-plans';
import { Log } from './log';
import { examplesFromCatalogue } from './message-examples';
import { RemoteAgent } from './remote-agent';
import { CodeActionService } from './services/code-actions';
import { CodeLensService } from './services/code-lens';
import { CompletionService } from './services/completion';
import { DiagnosticsService } from './services/diagnostics';
import { HoverService } from './services/hover';

/** What the client said it supports; known once it has sent initialize. */
export interface ClientSupports {
  codeLensRefresh: boolean;
  completionEditRangeDefault: boolean;
}

export class LabLanguageServices {
  readonly log: Log;
  readonly agent: RemoteAgent;
  readonly documents: LabDocuments;
  readonly catalogue: Catalogue;
  readonly completion: CompletionService;
  readonly hover: HoverService;
  readonly codeActions: CodeActionService;
  readonly configs: ConfigFiles;
  readonly diagnostics: DiagnosticsService;
  readonly plans: LabPlans;
  readonly codeLens: CodeLensService;

  constructor(connection: Connection, supports: ClientSupports) {
    this.log = new Log(connection);
    this.agent = new RemoteAgent(connection, this.log);
    // Models and config files change only after every service below exists, so their listeners may name them.
    this.documents = new LabDocuments(this.log, (file, edits) => this.diagnostics.documentChanged(file, edits));
    this.catalogue = new Catalogue(this.agent);
    this.completion = new CompletionService(this.catalogue, () => supports.completionEditRangeDefault);
    this.hover = new HoverService(this.catalogue);
    this.codeActions = new CodeActionService(this.catalogue);
    // A config a lab names changed on disk: its agent diagnostics and its plan are asked for again.
    this.configs = new ConfigFiles((uri) => {
      const file = this.documents.get(uri);
      if (!file) return;
      this.diagnostics.configsChanged(file);
      this.codeLens.labStateChanged(uri);
    }, this.log);
    this.diagnostics = new DiagnosticsService(connection, this.documents, this.agent, this.configs, this.log);
    // One plan per lab version and state, for the lens and the client's views alike.
    this.plans = new LabPlans(this.agent, this.configs, (uri, plan) => this.codeLens.planned(uri, plan));
    this.codeLens = new CodeLensService(
      connection,
      this.documents,
      this.agent,
      this.plans,
      this.log,
      () => supports.codeLensRefresh,
    );
    this.agent.onDidChange(() => {
      this.diagnostics.revalidateAll();
      this.codeLens.sessionChanged();
      this.refreshExamples();
    });
  }

  /** Local messages give the connected agent's examples once its catalogue says what they are. */
  refreshExamples(): void {
    void examplesFromCatalogue(this.catalogue)
      .then((examples) => this.diagnostics.useExamples(examples))
      .catch((error: unknown) => this.log.error('message examples failed', error));
  }
}
