/**
 * The extension's own messages (common/protocol.ts): the topology view's
 * requests, and what the client tells the server of the session, the
 * catalogue and the labs' states. Parameters are typed, but what arrives is
 * still checked: a client may send anything.
 */
import type { Connection } from 'vscode-languageserver/node';
import {
  FreeInterfacesRequest,
  LabAgentNotification,
  LabStateChangedNotification,
  NodeStatesNotification,
  PlanRequest,
  RefreshCatalogueRequest,
  SessionChangedNotification,
  TopologyEditRequest,
  TopologyRequest,
} from '../../common/protocol';
import type { LabLanguageServices } from '../language-services';
import { freeInterfaces, topologyEdit, topologyOf } from '../services/topology';
import type { Guard } from './guard';

export function registerLabAgentMessages(connection: Connection, services: LabLanguageServices, guard: Guard): void {
  const { agents, diagnostics, codeLens, documents, plans } = services;
  connection.onRequest(TopologyRequest, (params) =>
    guard.withFile('topology', params?.uri, null, (file) => topologyOf(file)),
  );
  connection.onRequest(TopologyEditRequest, (params) =>
    guard.withFile('topologyEdit', params?.uri, { error: 'The lab file is not open.' }, (file) =>
      topologyEdit(file, params.version, params.change),
    ),
  );
  connection.onRequest(FreeInterfacesRequest, (params) =>
    guard.withFile('freeInterfaces', params?.uri, { error: 'The lab file is not open.' }, (file) =>
      freeInterfaces(file, params.node, agents.of(file.uri).catalogue, agents.of(file.uri).agent),
    ),
  );

  connection.onNotification(
    SessionChangedNotification,
    (params) =>
      void guard.run('sessionChanged', undefined, () => agents.update(params?.agent, params?.session ?? null)),
  );
  connection.onNotification(
    LabAgentNotification,
    (params) =>
      void guard.run('labAgent', undefined, () => {
        if (typeof params?.uri !== 'string') return;
        if (agents.bind(params.uri, params.agent)) services.agentChanged(params.uri);
      }),
  );
  connection.onRequest(RefreshCatalogueRequest, () =>
    guard.run('refreshCatalogue', null, () => {
      for (const scope of agents.all()) scope.catalogue.clear();
      // The agent's checks use the catalogue too (images, templates): ask again.
      diagnostics.revalidateAll();
      for (const scope of agents.all()) {
        services.refreshExamples(scope.agent.name);
        // A plan the agent refused (a template it lacked) is kept until then.
        codeLens.catalogueChanged(scope.agent.name);
      }
      return null;
    }),
  );
  connection.onNotification(
    LabStateChangedNotification,
    (params) =>
      void guard.run('labStateChanged', undefined, () => {
        if (typeof params?.uri === 'string') codeLens.labStateChanged(params.uri);
      }),
  );
  connection.onRequest(PlanRequest, (params) =>
    guard.run('plan', null, () => {
      const file = typeof params?.uri === 'string' ? documents.get(params.uri) : undefined;
      return file ? plans.of(file) : null;
    }),
  );
  connection.onNotification(
    NodeStatesNotification,
    (params) =>
      void guard.run('nodeStates', undefined, () => {
        if (typeof params?.uri !== 'string') return;
        const states = params.states;
        const valid =
          states !== null &&
          typeof states === 'object' &&
          Object.values(states as Record<string, unknown>).every((s) => typeof s === 'string');
        codeLens.nodeStatesChanged(params.uri, valid ? states : null);
      }),
  );
}
