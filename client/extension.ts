/**
 * The extension host entry: wires the features together. Activation is quick
 * and makes no network call; the stored session is restored right after it
 * returns, and the language server starts with the first lab document.
 */
import * as vscode from 'vscode';
import { PlanRequest } from '../common/protocol';
import { registerCaptureCommands } from './capture/commands';
import { registerConnectionCommands } from './commands/connection';
import { registerExecCommands } from './commands/lifecycle';
import { registerImportCommand } from './commands/import-lab';
import { PlanDocuments } from './commands/plan-document';
import { registerProjectCommands } from './commands/project';
import { Reports } from './commands/reports';
import { registerSampleCommand } from './commands/sample';
import { Agents } from './connection/agents';
import { LabAgents } from './labs/lab-agents';
import { DEFAULT_AGENT } from './model/agent-list';
import { registerMoveLabCommand } from './commands/move-lab';
import { registerConsoleExec } from './consoles/exec';
import { registerConsoleTerminals } from './consoles/terminal';
import { trackContextKeys } from './context-keys';
import { LabLanguageClient } from './language-client';
import { LabParses } from './labs/lab-parses';
import { createLog } from './log';
import type { Services } from './services';
import { StatusBar } from './status-bar';
import { LabTestsController } from './testing/lab-tests-controller';
import { registerTopologyView } from './topology/register';
import { NodeStatesFollower } from './labs/node-states';
import { AwayReport } from './labs/away-report';
import { registerConsolesView } from './views/consoles-tree';
import { registerLabsView } from './views/labs-tree';
import { registerNetworkTypesView } from './views/network-types-tree';
import { registerTemplatesView } from './views/templates-tree';

export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  const agents = new Agents(context.secrets, log);
  const session = agents.defaultSession;
  const labAgents = new LabAgents(context.workspaceState, agents);
  const labViewsStale = new vscode.EventEmitter<void>();
  // Filled in below; the services only reach it from commands, which run after activate.
  const server: { client?: LabLanguageClient } = {};
  const shown: { plans?: PlanDocuments; tests?: LabTestsController } = {};

  const labParses = new LabParses();
  const away = new AwayReport(labAgents, labParses, log);
  const nodeStatesSeen = (uri: vscode.Uri, states: Record<string, string> | undefined) => {
    server.client?.nodeStates(uri, states);
    away.seen(uri, states);
  };
  const nodeStates = new NodeStatesFollower((uri) => labAgents.sessionIfAny(uri), labParses, log, nodeStatesSeen);

  const services: Services = {
    agents,
    session,
    labAgents,
    log,
    labParses,
    labStateChanged: (uri, change) => {
      server.client?.labStateChanged(uri);
      nodeStates.follow(uri);
      void shown.plans?.labStateChanged(uri);
      shown.tests?.labChanged(uri, change);
      labViewsStale.fire();
    },
    nodeStatesSeen,
    takeStatusReading: (uri) => nodeStates.takeReading(uri),
    onLabViewsStale: labViewsStale.event,
    refreshCatalogue: () => server.client?.refreshCatalogue(),
  };

  const statusBar = new StatusBar(services);
  server.client = new LabLanguageClient(
    context,
    log,
    () => new Map(agents.all().map((s) => [s.name, s.serverSettings()])),
    (uri) => labAgents.bindingOf(uri).agent,
    (status) => {
      statusBar.setServerStatus(status);
      const reporter = agents.get(status.agent ?? DEFAULT_AGENT);
      if (status.state === 'error')
        log.warn(
          `Language server, agent "${reporter?.name ?? status.agent}": ${status.message ?? 'agent calls fail'}${status.code ? ` [${status.code}]` : ''}`,
        );
      if (status.state === 'error') reporter?.serverReported(status.code, status.message);
    },
  );
  const plans = new PlanDocuments(services, (uri) =>
    Promise.resolve(server.client?.request(PlanRequest, { uri: uri.toString() })),
  );
  shown.plans = plans;
  const reports = new Reports(services);
  shown.tests = new LabTestsController(services);

  context.subscriptions.push(
    log,
    agents,
    labAgents,
    nodeStates,
    labViewsStale,
    statusBar,
    server.client,
    plans,
    reports,
    shown.tests,
    trackContextKeys(agents, labAgents),
    agents.onDidChange((session) =>
      session ? server.client?.agentChanged(session.name, session.current.state) : server.client?.sessionChanged(),
    ),
    // The agent is back, or the session renewed: the server checks again what it shows, even with the same token.
    agents.onDidResync((s) => server.client?.sessionChanged({ force: s.name })),
    labAgents.onDidChange(() => server.client?.bindingsChanged()),
    agents.onDidResync(() => void away.resynced()),
    ...registerConnectionCommands(services),
    ...registerProjectCommands(services),
    ...plans.register(),
    ...reports.register(),
    ...registerExecCommands(services),
    registerImportCommand(services),
    registerMoveLabCommand(services),
    ...registerConsoleTerminals(services),
    ...registerConsoleExec(services),
    registerSampleCommand(services, context),
    ...registerTemplatesView(services),
    ...registerNetworkTypesView(services),
    ...registerLabsView(services),
    ...registerConsolesView(services),
    ...registerTopologyView(services, server.client, context.extensionUri),
    ...registerCaptureCommands(services, context.extensionUri),
  );

  setTimeout(() => agents.restoreAll(), 0);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
