/**
 * The language services of one server, built apart from the LSP handlers that
 * call them (handlers/), as yaml-language-server keeps its languageservice/
 * apart from its languageserver/handlers/.
 */
import type { Connection } from 'vscode-languageserver/node';
import { AgentPool } from './agent-pool';
import { ConfigFiles } from './config-files';
import { LabDocuments } from './documents';
import { LabPlans } from './lab-plans';
import { Log } from './log';
import { examplesFromCatalogue } from './message-examples';
import { CodeActionService } from './services/code-actions';
import { CodeLensService } from './services/code-lens';
import { CompletionService } from './services/completion';
import { DiagnosticsService } from './services/diagnostics';
import { HoverService } from './services/hover';

/** What the client said it supports; known once it has sent initialize. */
export interface ClientSupports {
  codeLensRefresh: boolean;
  completionEditRangeDefault: boolean;
  /** Workspace edits may create files (documentChanges with the `create` resource operation). */
  createFiles: boolean;
}

export class LabLanguageServices {
  readonly log: Log;
  /** Every agent, its catalogue, and which one each document is bound to. */
  readonly agents: AgentPool;
  readonly documents: LabDocuments;
  readonly completion: CompletionService;
  readonly hover: HoverService;
  readonly codeActions: CodeActionService;
  readonly configs: ConfigFiles;
  readonly diagnostics: DiagnosticsService;
  readonly plans: LabPlans;
  readonly codeLens: CodeLensService;

  constructor(connection: Connection, supports: ClientSupports) {
    this.log = new Log(connection);
    this.agents = new AgentPool(connection, this.log);
    const agentOf = (uri: string) => this.agents.of(uri).agent;
    const catalogueOf = (uri: string) => this.agents.of(uri).catalogue;
    // Models and config files change only after every service below exists, so their listeners may name them.
    this.documents = new LabDocuments(this.log, (file, edits) => this.diagnostics.documentChanged(file, edits));
    this.completion = new CompletionService(catalogueOf, () => supports.completionEditRangeDefault);
    this.hover = new HoverService(catalogueOf);
    this.codeActions = new CodeActionService(catalogueOf, () => supports.createFiles);
    // A config a lab names changed on disk: its agent diagnostics and its plan are asked for again.
    this.configs = new ConfigFiles((uri) => {
      const file = this.documents.get(uri);
      if (!file) return;
      this.diagnostics.configsChanged(file);
      this.codeLens.labStateChanged(uri);
    }, this.log);
    this.diagnostics = new DiagnosticsService(connection, this.documents, agentOf, this.configs, this.log);
    // One plan per lab version and state, for the lens and the client's views alike.
    this.plans = new LabPlans(agentOf, this.configs, (uri, plan) => this.codeLens.planned(uri, plan));
    this.codeLens = new CodeLensService(
      connection,
      this.documents,
      agentOf,
      this.plans,
      this.log,
      () => supports.codeLensRefresh,
    );
    // One agent's new session concerns its own documents only.
    this.agents.onDidChangeSession((name) => {
      this.diagnostics.revalidate((uri) => this.agents.nameOf(uri) === name);
      this.codeLens.sessionChanged(name);
      this.refreshExamples(name);
    });
  }

  /** The document is now bound to another agent: its agent findings, plan and lenses are made again. */
  agentChanged(uri: string): void {
    this.diagnostics.revalidate((u) => u === uri);
    this.codeLens.agentChanged(uri);
  }

  /** Local messages of an agent's documents give its examples once its catalogue says what they are. */
  refreshExamples(name: string): void {
    void examplesFromCatalogue(this.agents.named(name).catalogue)
      .then((examples) => this.diagnostics.useExamples(name, examples))
      .catch((error: unknown) => this.log.error('message examples failed', error));
  }
}
