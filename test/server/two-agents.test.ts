/**
 * Two agents in one workspace, over stdio: the bundled server is given the
 * default agent's session (the simulated EVE-NG agent: vios, Gi0/0) and a
 * named one's ("ws", a Linux agent: frr, eth0), both real agents over HTTPS
 * on 127.0.0.1. Each document is bound to one (LabAgent notification, sent
 * before it opens, as the client does) and completes, validates and plans
 * against its own agent's catalogue; the named agent going down shows on its
 * document's plan lens only, not as diagnostics, and not on the other document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeLens, CompletionList, Diagnostic } from 'vscode-languageserver-protocol';
import { LabAgentNotification, SessionChangedNotification } from '../../common/protocol';
import { LspClient, messageOf } from '../support/lsp';
import { fileUri, positionOf, startAgentSession, type AgentFixture } from './fixture';

let eve: AgentFixture;
let ws: AgentFixture;
let client: LspClient;
let eveUri: string;
let wsUri: string;

/** A node whose template each agent lacks in the other's catalogue: frr on EVE-NG, vios on Linux. */
const lab = (name: string, template: string): string => `name: ${name}
nodes:
  r1:
    template: ${template}
  r2:
    template: 
`;

const agentFindings = (list: Diagnostic[]): string[] => list.filter((d) => d.source === 'lab-agent').map(messageOf);

async function templatesAt(uri: string, text: string): Promise<string[]> {
  const list = await client.request<CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(text, 'template: \n', 'template: '.length),
  });
  return list.items.map((i) => i.label);
}

async function planLens(uri: string): Promise<string | undefined> {
  const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  return (await client.request<CodeLens>('codeLens/resolve', plan)).command?.title;
}

before(async () => {
  [eve, ws] = await Promise.all([startAgentSession(), startAgentSession({ emulator: 'linux' })]);
  client = await LspClient.start({ initializationOptions: { session: eve.session, agents: { ws: ws.session } } });
  eveUri = fileUri(eve.labDir, 'eve.lab.yaml');
  wsUri = fileUri(ws.labDir, 'ws.lab.yaml');
  await client.notify(LabAgentNotification, { uri: wsUri, agent: 'ws' });
  await client.open(eveUri, lab('on-eve', 'frr'));
  await client.open(wsUri, lab('on-ws', 'vios'));
});

after(async () => {
  await client.stop();
  await Promise.all([eve.close(), ws.close()]);
});

test("each document completes its own agent's templates", async () => {
  const onEve = await templatesAt(eveUri, lab('on-eve', 'frr'));
  const onWs = await templatesAt(wsUri, lab('on-ws', 'vios'));
  assert.ok(onEve.includes('vios') && !onEve.includes('frr'), `EVE-NG document: ${onEve.join(', ')}`);
  assert.ok(onWs.includes('frr') && !onWs.includes('vios'), `Linux document: ${onWs.join(', ')}`);
});

test("each document is validated by its own agent, with its own agent's messages", async () => {
  const eveFindings = agentFindings(
    await client.waitForDiagnostics(eveUri, (d) => agentFindings(d).length > 0, { timeoutMs: 20_000 }),
  );
  const wsFindings = agentFindings(
    await client.waitForDiagnostics(wsUri, (d) => agentFindings(d).length > 0, { timeoutMs: 20_000 }),
  );
  assert.ok(
    eveFindings.some((m) => m.includes('Template "frr" does not exist')),
    `EVE-NG: ${eveFindings.join(' | ')}`,
  );
  assert.ok(
    wsFindings.some((m) => m.includes('Template "vios" does not exist')),
    `Linux: ${wsFindings.join(' | ')}`,
  );
  // The local message's example is the document's agent's: frr on the Linux one, not EVE-NG's.
  const wsAll = (
    await client.waitForDiagnostics(wsUri, (d) => d.map(messageOf).some((m) => m.includes('template: frr')))
  )
    .map(messageOf)
    .join('\n');
  assert.doesNotMatch(wsAll, /template: vios /);
});

test('a named agent that stops: its document says so on the plan lens only; the other plans on', async () => {
  const wsOk = fileUri(ws.labDir, 'ws-ok.lab.yaml');
  const eveOk = fileUri(eve.labDir, 'eve-ok.lab.yaml');
  await client.notify(LabAgentNotification, { uri: wsOk, agent: 'ws' });
  await client.open(wsOk, 'name: ws-ok\nnodes:\n  r1:\n    template: frr\n');
  await client.open(eveOk, 'name: eve-ok\nnodes:\n  r1:\n    template: vios\n');
  // Planned by each document's own agent (the lab and its node): each template exists only there.
  assert.equal(await planLens(wsOk), 'Plan: +2 ~0 −0');
  assert.equal(await planLens(eveOk), 'Plan: +2 ~0 −0');
  await ws.agent.close();
  // The client resends a session when it sees its agent again; here, resending it makes the server check at once.
  await client.notify(SessionChangedNotification, { agent: 'ws', session: null });
  await client.notify(SessionChangedNotification, { agent: 'ws', session: ws.session });
  const status = await client.waitUntil(
    'the named agent reported unreachable',
    () => client.statuses.find((s) => s.agent === 'ws' && s.state === 'error'),
    20_000,
  );
  assert.equal(status.code, 'agent_unreachable');
  assert.equal(await planLens(wsOk), 'Plan on "ws": agent unreachable');
  // No diagnostic floods its documents: their agent findings are gone, and none says the agent is down.
  for (const uri of [wsUri, wsOk]) {
    const now = await client.waitForDiagnostics(uri, (d) => agentFindings(d).length === 0, { timeoutMs: 20_000 });
    assert.ok(
      !now.map(messageOf).some((m) => /could not validate|unreachable/i.test(m)),
      now.map(messageOf).join(' | '),
    );
  }
  // The default agent is untouched: its documents still plan and keep their findings.
  assert.equal(await planLens(eveOk), 'Plan: +2 ~0 −0');
  assert.ok(agentFindings(await client.waitForDiagnostics(eveUri, (d) => agentFindings(d).length > 0)).length > 0);
  assert.ok(client.statuses.every((s) => s.agent !== undefined || s.state !== 'error'));
});
