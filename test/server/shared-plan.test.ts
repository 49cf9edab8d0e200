/**
 * One plan per lab version and state (issue 28 item 4): after a push, the plan lens, the
 * topology's drift and the plan document (both ask with PlanRequest) come from one fresh plan,
 * which the agent's request log proves by counting. The real bundled language server over stdio,
 * signed in to the reference agent over HTTPS.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CodeLens } from 'vscode-languageserver-protocol';
import {
  LabStateChangedNotification,
  NodeStatesNotification,
  PlanRequest,
  RefreshCatalogueRequest,
  type LabPlan,
} from '../../common/protocol';
import { type LspClient } from '../support/lsp';
import { deployAndStore, fileUri, startServerOnAgent, stopServerOnAgent, type AgentFixture } from './fixture';

let fixture: AgentFixture;
let client: LspClient;
const agentLog: string[] = [];
const plansAsked = () => agentLog.filter((line) => line.startsWith('planProject ->')).length;
const validationsAsked = () => agentLog.filter((line) => line.startsWith('validateProject ->')).length;

before(async () => {
  ({ fixture, client } = await startServerOnAgent({ log: (message) => agentLog.push(message) }));
});
after(() => stopServerOnAgent({ fixture, client }));

const TEXT = 'name: shared\nnodes:\n  s1:\n    template: vios\n  s2:\n    template: iol\n';

test('after a push, the lens, the topology and the plan document show one fresh plan, asked for once', async () => {
  const uri = fileUri(fixture.labDir, 'shared.lab.yaml');
  await client.open(uri, TEXT);
  const lensTitle = async () => {
    const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    return (await client.request<CodeLens>('codeLens/resolve', plan)).command?.title;
  };
  const viewPlan = () => client.request<LabPlan | null>(PlanRequest.method, { uri });

  // Before: the three views ask at once, and the agent plans once.
  let asked = plansAsked();
  const [title, topology, document] = await Promise.all([lensTitle(), viewPlan(), viewPlan()]);
  assert.equal(title, 'Plan: +3 ~0 −0', 'the lab and its two nodes');
  assert.ok(topology?.ok && document?.ok);
  assert.deepEqual(topology.plan, document.plan);
  assert.equal(plansAsked() - asked, 1, 'one plan for the lens and both views');

  // A push (as the client's pushLab does it: apply, store the state beside the lab, LabStateChanged).
  await deployAndStore(fixture, uri, TEXT);
  asked = plansAsked();
  await client.notify(LabStateChangedNotification, { uri });

  const [after, topologyAfter, documentAfter] = await Promise.all([lensTitle(), viewPlan(), viewPlan()]);
  assert.equal(plansAsked() - asked, 1, 'exactly one fresh plan after the push');
  assert.equal(after, 'Plan: no changes');
  assert.ok(topologyAfter?.ok && documentAfter?.ok);
  const { create, update, delete: deleted } = topologyAfter.plan.summary ?? {};
  assert.deepEqual({ create, update, deleted }, { create: 0, update: 0, deleted: 0 });
  assert.deepEqual(documentAfter.plan, topologyAfter.plan, 'the same plan for every view');

  // Asked again without a change: still that plan, no new request.
  assert.equal(await lensTitle(), 'Plan: no changes');
  assert.equal((await viewPlan())?.ok, true);
  assert.equal(plansAsked() - asked, 1);
});

test('a changed config the lab names makes one fresh plan for the lens and the views, without an edit of the lab', async () => {
  const uri = fileUri(fixture.labDir, 'configs.lab.yaml');
  await client.open(uri, 'name: configs\nnodes:\n  c1:\n    template: vios\n    config: conf/c1.conf\n');
  const viewPlan = () => client.request<LabPlan | null>(PlanRequest.method, { uri });
  await mkdir(join(fixture.labDir, 'conf'));
  await writeFile(join(fixture.labDir, 'conf', 'c1.conf'), 'hostname c1\n');
  const first = await viewPlan();
  assert.ok(first?.ok, JSON.stringify(first));
  const asked = plansAsked();
  const refreshes = client.codeLensRefreshes;
  await writeFile(join(fixture.labDir, 'conf', 'c1.conf'), 'hostname c1\ninterface Gi0/0\n');
  await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > refreshes || undefined);
  const [lens] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  const [resolved, view] = await Promise.all([client.request<CodeLens>('codeLens/resolve', lens), viewPlan()]);
  assert.match(resolved.command?.title ?? '', /^Plan: /);
  assert.ok(view?.ok);
  assert.equal(plansAsked() - asked, 1, 'one fresh plan after the config changed');
});

test('a document the server does not have gets null, never a plan of something else', async () => {
  assert.equal(await client.request<LabPlan | null>(PlanRequest.method, { uri: 'file:///nowhere/x.lab.yaml' }), null);
  assert.equal(await client.request<LabPlan | null>(PlanRequest.method, {}), null);
});

test('a lab the agent cannot validate is planned once per version and agent state, however often the lenses refresh', async () => {
  // A lab of a template the agent lacks (an EVE-NG lab on a Linux agent): the agent refuses to plan it (invalid_lab).
  const uri = fileUri(fixture.labDir, 'refused.lab.yaml');
  const busy = fileUri(fixture.labDir, 'busy.lab.yaml');
  await client.open(busy, 'name: busy\nnodes:\n  b1:\n    template: vios\n');
  await client.waitForDiagnostics(busy, () => true, { after: 1, timeoutMs: 20_000 });
  await client.open(uri, 'name: refused\nnodes:\n  r1:\n    template: csr9000v\n');
  await client.waitForDiagnostics(uri, (list) => list.some((d) => d.code === 'unknown-template'), {
    timeoutMs: 20_000,
  });
  const planAsked = plansAsked();
  const validated = validationsAsked();
  const lensTitle = async () => {
    const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    return (await client.request<CodeLens>('codeLens/resolve', plan)).command?.title;
  };
  const first = await lensTitle();
  assert.match(first ?? '', /^Plan: /);
  assert.equal(plansAsked() - planAsked, 1);

  // Another lab starting, as the e2e run saw it: its node states change every second, and every change refreshes
  // every lens; the editor then resolves this lab's plan lens again, and the topology asks for the plan.
  for (let round = 0; round < 5; round++) {
    const refreshes = client.codeLensRefreshes;
    await client.notify(NodeStatesNotification, { uri: busy, states: { b1: round % 2 ? 'running' : 'starting' } });
    await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > refreshes || undefined);
    assert.equal(await lensTitle(), first);
    const plan = await client.request<LabPlan | null>(PlanRequest.method, { uri });
    assert.equal(plan?.ok, false);
  }
  assert.equal(plansAsked() - planAsked, 1, 'the refused plan is not asked for again');
  assert.equal(validationsAsked() - validated, 0, 'nor is the lab validated again');

  // The catalogue read again may have the template now: one new plan.
  await client.request(RefreshCatalogueRequest.method, null);
  await lensTitle();
  await lensTitle();
  assert.equal(plansAsked() - planAsked, 2, 'one plan after the catalogue was read again');
  await client.close(uri);
  await client.close(busy);
});
