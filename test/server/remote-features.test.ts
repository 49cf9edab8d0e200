/**
 * The language server with a session on the reference agent (real HTTPS on
 * 127.0.0.1): catalogue completions, interfaces, hovers, the agent's
 * validation located in the text, and the plan lens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  CodeLens,
  CompletionItem,
  CompletionList,
  Diagnostic,
  Hover,
  MarkupContent,
  TextEdit,
} from 'vscode-languageserver-protocol';
import { LabStateChangedNotification, NodeStatesNotification } from '../../common/protocol';
import { type LspClient, messageOf } from '../support/lsp';
import {
  byLabel,
  deployAndStore,
  editOf,
  fileUri,
  positionOf,
  type AgentFixture,
  startServerOnAgent,
  stopServerOnAgent,
  withSessionClient,
} from './fixture';

const LAB = `name: remote
nodes:
  r1:
    template: vios
    image: vios-adventerprisek9-m.SPA.159-3.M6
    icon: Router.png
  r2:
    template: vios
    image: 
  h1:
    template: linux
    config: configs/h1.cfg
networks:
  mgmt:
    type: pnet1
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]
  - endpoints: [r1:Gi0/1, mgmt]
  - endpoints: [r2:Gi0/1, r1:G]
`;

let fixture: AgentFixture;
let client: LspClient;
let uri: string;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
  await mkdir(join(fixture.labDir, 'configs'));
  await writeFile(join(fixture.labDir, 'configs', 'h1.cfg'), 'hostname h1\n');
  uri = fileUri(fixture.labDir, 'remote.lab.yaml');
  await client.open(uri, LAB);
});
after(() => stopServerOnAgent({ fixture, client }));

/** The items at a position, each with the edit an editor would apply. */
async function complete(
  text: string,
  needle: string,
  shift: number,
  target = uri,
): Promise<(CompletionItem & { edit?: TextEdit })[]> {
  const list = await client.request<CompletionList | null>('textDocument/completion', {
    textDocument: { uri: target },
    position: positionOf(text, needle, shift),
  });
  assert.ok(list, `a completion list at ${JSON.stringify(needle)}+${shift}`);
  return list.items.map((item) => ({ ...item, edit: editOf(list, item) }));
}

/** Labels in the order an editor shows them (sortText, then label). */
function sorted(items: CompletionItem[]): string[] {
  return [...items].sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label)).map((i) => i.label);
}

test('the client is told the session works', async () => {
  const status = await client.waitUntil('status connected', () => client.statuses.find((s) => s.state === 'connected'));
  assert.deepEqual(status, { state: 'connected' });
});

test('template values come from the agent, unprovisioned ones marked and last', async () => {
  const items = await complete(LAB, 'template: vios', 12);
  assert.equal(byLabel(items, 'vios').detail, 'Cisco vIOS Router');
  const xr = byLabel(items, 'xrv9k');
  assert.match(xr.detail ?? '', /\(not provisioned\)/);
  const order = sorted(items);
  assert.ok(
    order.indexOf('xrv9k') > order.indexOf('vmx') && order.indexOf('nxosv9k') > order.indexOf('linux'),
    order.join(),
  );
  // The value written so far ("vios") is replaced as a whole.
  const start = positionOf(LAB, 'template: vios', 10);
  assert.deepEqual((byLabel(items, 'iol') as { edit?: TextEdit }).edit, {
    range: { start, end: { line: start.line, character: start.character + 4 } },
    newText: 'iol',
  });
});

test("image values are the node's template's images, the default first, unavailable ones marked", async () => {
  const items = await complete(LAB, 'image: \n', 7);
  const order = sorted(items);
  assert.equal(order[0], 'vios-adventerprisek9-m.SPA.159-3.M6');
  assert.match(byLabel(items, 'vios-adventerprisek9-m.SPA.159-3.M6').detail ?? '', /default/);
  const missing = byLabel(items, 'vios-adventerprisek9-m.SPA.156-2.T');
  assert.match(missing.detail ?? '', /not available/);
  assert.equal(order[order.length - 1], 'vios-adventerprisek9-m.SPA.156-2.T');
});

test('icon values come from the agent', async () => {
  const items = await complete(LAB, 'icon: Router.png', 6);
  assert.ok(items.some((i) => i.label === 'Switch.png') && items.some((i) => i.label === 'Server.png'));
});

test('network types come from the agent, unsupported ones marked', async () => {
  const items = await complete(LAB, 'type: pnet1', 6);
  assert.ok(items.some((i) => i.label === 'bridge'));
  assert.match(byLabel(items, 'nat0').detail ?? '', /not supported/);
});

test('interfaces after node: exclude the used ones and replace exactly the interface part', async () => {
  const items = await complete(LAB, 'r1:G]', 4);
  const names = items.map((i) => i.label);
  assert.ok(!names.includes('Gi0/0') && !names.includes('Gi0/1'), `used interfaces offered: ${names.join()}`);
  assert.ok(names.includes('Gi0/2') && names.includes('Gi0/3'), names.join());
  assert.deepEqual((byLabel(items, 'Gi0/2') as { edit?: TextEdit }).edit, {
    range: { start: positionOf(LAB, 'r1:G]', 3), end: positionOf(LAB, 'r1:G]', 4) },
    newText: 'Gi0/2',
  });
});

test('interfaces are offered in a flow list of endpoints that is not closed yet', async () => {
  const text =
    'name: unfinished\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nlinks:\n  - endpoints: [r1:Gi0/0, r2:G';
  const target = fileUri(fixture.labDir, 'unfinished.lab.yaml');
  await client.open(target, text);
  const items = await complete(text, 'r2:G', 4, target);
  assert.deepEqual(sorted(items).slice(0, 2), ['Gi0/0', 'Gi0/1']);
  assert.deepEqual((byLabel(items, 'Gi0/1') as { edit?: TextEdit }).edit, {
    range: { start: positionOf(text, 'r2:G', 3), end: positionOf(text, 'r2:G', 4) },
    newText: 'Gi0/1',
  });
});

test("re-completing an endpoint's interface offers the one written there, but not those other links use", async () => {
  const names = (await complete(LAB, 'r1:Gi0/1', 8)).map((i) => i.label);
  assert.ok(names.includes('Gi0/1') && names.includes('Gi0/2'), names.join());
  assert.ok(!names.includes('Gi0/0'), `Gi0/0 is used by the first link: ${names.join()}`);
});

test("the interfaces follow the node's template and interface count as they are edited", async () => {
  let text =
    'name: edits\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nlinks:\n  - endpoints: [r1:Gi0/0, r2:Gi0/0]\n  - endpoints: [r2:Gi0/1, r1:]\n';
  const target = fileUri(fixture.labDir, 'edits.lab.yaml');
  await client.open(target, text);
  /** Replaces the first `needle` in the text, as an editor's incremental change. */
  const replace = async (needle: string, replacement: string) => {
    const start = positionOf(text, needle);
    const end = positionOf(text, needle, needle.length);
    await client.change(target, [{ range: { start, end }, text: replacement }]);
    text = text.replace(needle, replacement);
  };
  const offered = async () => sorted(await complete(text, 'r1:]', 3, target));
  try {
    assert.deepEqual(await offered(), ['Gi0/1', 'Gi0/2', 'Gi0/3'], "vios's four interfaces, Gi0/0 in use");
    await replace('r1:\n    template: vios', 'r1:\n    template: iol');
    const iol = await offered();
    assert.equal(iol.length, 8, iol.join());
    assert.ok(iol.includes('e0/0') && !iol.some((name) => name.startsWith('Gi')), iol.join());
    await replace('template: iol', 'template: iol\n    ethernet: 2');
    assert.deepEqual(await offered(), ['e0/0', 'e0/1']);
    // Back to vios, two interfaces by the defaults this time: Gi0/0 is still in use.
    await replace('template: iol\n    ethernet: 2', 'template: vios');
    await replace('name: edits\n', 'name: edits\ndefaults:\n  ethernet: 2\n');
    assert.deepEqual(await offered(), ['Gi0/1']);
  } finally {
    await client.close(target);
  }
});

test('a cancelled interface completion answers without waiting for the agent', async () => {
  const result = await client
    .requestCancelled<CompletionList | null>(
      'textDocument/completion',
      { textDocument: { uri }, position: positionOf(LAB, 'r1:G]', 4) },
      0,
    )
    .then(
      (list) => list?.items ?? [],
      (error: Error) => error,
    );
  // Either the server saw the cancellation (error -32800) or it had already answered: it never hangs or crashes.
  assert.ok(
    Array.isArray(result) || /cancel/i.test(result.message),
    Array.isArray(result) ? 'answered' : result.message,
  );
  assert.equal(client.exitCode, null);
});

test('hover on a template shows its description, images and attributes', async () => {
  const hover = await client.request<Hover>('textDocument/hover', {
    textDocument: { uri },
    position: positionOf(LAB, 'template: linux', 12),
  });
  const text = (hover.contents as MarkupContent).value;
  assert.match(text, /\*\*linux\*\*/);
  assert.match(text, /Images:/);
  assert.match(text, /`linux-ubuntu-22\.04-server` \(default\)/);
  assert.match(text, /`linux-debian-10\.3\.0` \(not available\)/);
  assert.match(text, /Attributes:/);
});

test('hover on an endpoint shows the interface, its index and its peer', async () => {
  const hover = await client.request<Hover>('textDocument/hover', {
    textDocument: { uri },
    position: positionOf(LAB, 'r1:Gi0/0', 4),
  });
  const text = (hover.contents as MarkupContent).value;
  assert.match(text, /r1:Gi0\/0/);
  assert.match(text, /interface 0 of node \*\*r1\*\*/);
  assert.match(text, /linked to `r2:Gi0\/0`/);
  assert.deepEqual(hover.range, { start: positionOf(LAB, 'r1:Gi0/0'), end: positionOf(LAB, 'r1:Gi0/0', 8) });
});

test("the agent's findings are located at the value they concern, with the config read beside the lab", async () => {
  const agentUri = fileUri(fixture.labDir, 'wrong-image.lab.yaml');
  const text =
    'name: wrong-image\nnodes:\n  r1:\n    template: vios\n    image: vios-nope\n    config: configs/missing.cfg\n  h1:\n    template: linux\n    config: configs/h1.cfg\n';
  await client.open(agentUri, text);
  const diagnostics = await client.waitForDiagnostics(agentUri, (d) => d.some((x) => x.source === 'lab-agent'));
  const image = diagnostics.find((d) => d.code === 'unknown-image');
  assert.ok(image, JSON.stringify(diagnostics));
  assert.equal(image.source, 'lab-agent');
  assert.deepEqual(image.range, { start: positionOf(text, 'vios-nope'), end: positionOf(text, 'vios-nope', 9) });
  const config = diagnostics.filter((d) => d.code === 'config-not-found');
  assert.equal(config.length, 1, 'only the missing config is reported; h1.cfg was sent');
  assert.deepEqual(config[0].range.start, positionOf(text, 'configs/missing.cfg'));

  // Fixing the image clears the finding once the agent has looked again.
  const count = client.publicationCount(agentUri);
  const start = positionOf(text, 'vios-nope');
  const version = await client.change(agentUri, [
    {
      range: { start, end: { line: start.line, character: start.character + 9 } },
      text: 'vios-adventerprisek9-m.SPA.159-3.M6',
    },
  ]);
  await client.waitForDiagnostics(
    agentUri,
    (d) => !d.some((x) => x.code === 'unknown-image') && d.some((x) => x.code === 'config-not-found'),
    {
      after: count,
      version,
    },
  );
});

test("the agent's copies of local findings are dropped: each problem is shown once", async () => {
  const dupUri = fileUri(fixture.labDir, 'duplicates.lab.yaml');
  const text = 'name: duplicates\nnodes:\n  r1:\n    template: vios\n    image: not-an-image\n    colour: red\n';
  await client.open(dupUri, text);
  const diagnostics = await client.waitForDiagnostics(dupUri, (d) => d.some((x) => x.code === 'unknown-image'));
  const local = diagnostics.filter((d) => d.source === 'lab-yaml');
  // The local checks flag the unknown key; the agent runs the same checks, so without deduplication it would show twice.
  assert.ok(
    local.some((d) => d.code === 'unknown-key'),
    JSON.stringify(diagnostics.map((d) => d.code)),
  );
  for (const finding of local) {
    const copies = diagnostics.filter(
      (d) =>
        d.message === finding.message || (d.code === finding.code && d.range.start.line === finding.range.start.line),
    );
    assert.equal(copies.length, 1, `shown more than once: ${messageOf(finding)}`);
  }
});

test('validation waits for typing to pause and publishes only for the latest version', async () => {
  const typedUri = fileUri(fixture.labDir, 'typing.lab.yaml');
  const text = 'name: typing\nnodes:\n  r1:\n    template: vios\n    image: x\n';
  await client.open(typedUri, text);
  await client.waitForDiagnostics(typedUri, (d) => d.some((x) => x.code === 'unknown-image'));
  const count = client.publicationCount(typedUri);
  let position = positionOf(text, 'image: x', 8);
  let version = 1;
  // Two keystrokes in quick succession: the first version is never validated.
  for (const ch of 'yz') {
    version = await client.change(typedUri, [{ range: { start: position, end: position }, text: ch }]);
    position = { line: position.line, character: position.character + 1 };
  }
  const final = await client.waitForDiagnostics(typedUri, (d) => d.some((x) => x.source === 'lab-agent'), {
    after: count,
    version,
  });
  const unknownImage = final.find((d) => d.code === 'unknown-image');
  assert.match(unknownImage ? messageOf(unknownImage) : '', /"xyz"/);
  // Agent findings for the intermediate version were never published: every publication with agent findings is for the last version.
  const published = (client.diagnostics.get(typedUri) ?? []).slice(count);
  for (const p of published) {
    if (p.diagnostics.some((d: Diagnostic) => d.source === 'lab-agent')) assert.equal(p.version, version);
  }
});

test('the plan lens shows the real plan summary, resolved lazily', async () => {
  const planUri = fileUri(fixture.labDir, 'plan.lab.yaml');
  const text =
    'name: plan-lens\nnodes:\n  a1:\n    template: vios\n  a2:\n    template: vios\nlinks:\n  - endpoints: [a1:Gi0/0, a2:Gi0/0]\n';
  await client.open(planUri, text);
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: planUri } });
  const plan = lenses[0];
  assert.equal(plan.command, undefined, 'the plan lens is resolved later');
  assert.deepEqual(plan.range.start, { line: 0, character: 0 });
  const resolved = await client.request<CodeLens>('codeLens/resolve', plan);

  const expected = await withSessionClient(fixture, (agent) => agent.planProject({ yaml: text, files: {} }));
  const { create = 0, update = 0 } = expected.summary ?? {};
  assert.ok(create > 0);
  assert.equal(resolved.command?.title, `Plan: +${create} ~${update} −${expected.summary?.delete ?? 0}`);
  assert.equal(resolved.command?.command, 'labAgent.plan');
  assert.deepEqual(resolved.command?.arguments, [{ uri: planUri }]);
});

test('after a deploy (state stored beside the lab, LabStateChanged) the plan lens says there is nothing to do', async () => {
  const deployedUri = fileUri(fixture.labDir, 'deployed.lab.yaml');
  const text =
    'name: deployed\nnodes:\n  d1:\n    template: vios\n  d2:\n    template: iol\nlinks:\n  - endpoints: [d1:Gi0/0, d2:e0/0]\n';
  await client.open(deployedUri, text);
  const resolvePlan = async () => {
    const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: deployedUri } });
    return (await client.request<CodeLens>('codeLens/resolve', plan)).command?.title;
  };
  assert.match((await resolvePlan()) ?? '', /^Plan: \+\d+ ~0 −0$/);

  await deployAndStore(fixture, deployedUri, text);
  const refreshes = client.codeLensRefreshes;
  await client.notify(LabStateChangedNotification, { uri: deployedUri });
  await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > refreshes || undefined);
  assert.equal(await resolvePlan(), 'Plan: no changes');
});

test('node lenses say a lab that is not deployed must be deployed first, and offer Start, Stop, Console once it is', async () => {
  const uri = fileUri(fixture.labDir, 'node-lenses.lab.yaml');
  const text = 'name: node-lenses\nnodes:\n  n1:\n    template: vios\n';
  await client.open(uri, text);
  const lenses = () => client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  // Node lenses come unresolved (the editor resolves those in view): resolved here as the editor does.
  const nodeLenses = async () =>
    Promise.all(
      (await lenses())
        .filter((l) => l.range.start.line > 0)
        .map((l) => {
          assert.equal(l.command, undefined, 'a node lens is sent unresolved');
          return client.request<CodeLens>('codeLens/resolve', l);
        }),
    );
  const nodeTitles = async () => (await nodeLenses()).map((l) => l.command?.title);
  const plan = async () => client.request<CodeLens>('codeLens/resolve', (await lenses())[0]);
  assert.deepEqual(await nodeTitles(), ['Start', 'Stop', 'Console'], 'before any plan nothing is known');
  await plan();
  assert.deepEqual(await nodeTitles(), ['Not deployed: Deploy first']);
  assert.equal((await nodeLenses())[0]?.command?.command, 'labAgent.deploy');

  await deployAndStore(fixture, uri, text);
  await client.notify(LabStateChangedNotification, { uri });
  await client.waitUntil(
    'the plan of the deployed lab',
    async () => (await plan()).command?.title === 'Plan: no changes' || undefined,
  );
  assert.deepEqual(await nodeTitles(), ['Start', 'Stop', 'Console']);
  const [n1] = await nodeLenses();
  assert.deepEqual(n1.range.start, { line: 2, character: 2 }, 'above the node, at its name');
  assert.deepEqual(n1.command?.arguments, [{ uri, node: 'n1' }]);
});

test('node lenses follow the node states the client read: Stop and Console when running, Start when stopped', async () => {
  const uri = fileUri(fixture.labDir, 'state-lenses.lab.yaml');
  const text =
    'name: state-lenses\nnodes:\n  a:\n    template: vios\n  b:\n    template: vios\n  c:\n    template: vios\n';
  await client.open(uri, text);
  await deployAndStore(fixture, uri, text);
  await client.notify(LabStateChangedNotification, { uri });
  const byNode = async () => {
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    const titles: Record<string, unknown[]> = {};
    for (const unresolved of lenses.filter((x) => x.range.start.line > 0)) {
      const l = await client.request<CodeLens>('codeLens/resolve', unresolved);
      const node = (l.command?.arguments?.[0] as { node: string }).node;
      (titles[node] ??= []).push(l.command?.title);
    }
    return titles;
  };
  const refreshes = client.codeLensRefreshes;
  await client.notify(NodeStatesNotification, { uri, states: { a: 'running', b: 'stopped' } });
  await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > refreshes || undefined);
  assert.deepEqual(await byNode(), {
    a: ['Stop', 'Console'],
    b: ['Start'],
    c: ['Start', 'Stop', 'Console'],
  });
  const top = async () =>
    (await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } }))
      .filter((l) => l.range.start.line === 0 && l.command !== undefined)
      .map((l) => l.command?.title);
  assert.deepEqual(
    await top(),
    ['Deploy', 'Reconcile', 'Destroy', 'Start All'],
    'a stopped node: Start All stays at the top',
  );
  await client.notify(NodeStatesNotification, { uri, states: { a: 'running', b: 'running', c: 'running' } });
  await client.waitUntil('Start All gone once every node runs', async () =>
    (await top()).includes('Start All') ? undefined : true,
  );
  await client.notify(NodeStatesNotification, { uri, states: null });
  await client.waitUntil('every node back to all three actions', async () =>
    (await byNode()).a?.length === 3 ? true : undefined,
  );
  await client.notify(NodeStatesNotification.method, { uri, states: { a: 7 } });
  assert.deepEqual((await byNode()).a, ['Start', 'Stop', 'Console'], 'a malformed notification is ignored');
});

test('a plan of an invalid lab says why in a few words, with the detail in the tooltip', async () => {
  const badUri = fileUri(fixture.labDir, 'bad-plan.lab.yaml');
  await client.open(badUri, 'name: bad-plan\nnodes:\n  r1:\n    template: no-such-template\n');
  const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: badUri } });
  const resolved = await client.request<CodeLens>('codeLens/resolve', plan);
  assert.equal(resolved.command?.title, 'Plan: lab has errors (see Problems)');
  assert.match(resolved.command?.tooltip ?? '', /no-such-template/);
});

test('a change of lab state asks the editor to refresh its lenses', async () => {
  const before = client.codeLensRefreshes;
  await client.notify(LabStateChangedNotification, { uri });
  await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > before || undefined);
});

test('an edit whose lenses the editor does not ask for makes the server ask it to, once, and only then', async () => {
  // VS Code drops the lens request an edit scheduled when its editor loses focus (to the plan opening beside it).
  const edited = fileUri(fixture.labDir, 'catch-up.lab.yaml');
  const text = 'name: catch-up\nnodes:\n  c1:\n    template: vios\n';
  const lensCount = async () =>
    (await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: edited } })).length;
  const quietFor = async (ms: number) => {
    const before = client.codeLensRefreshes;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return client.codeLensRefreshes === before;
  };
  await client.open(edited, text);
  // Not shown in an editor yet: nothing to catch up with.
  await client.change(edited, [{ text: `${text}  c2:\n    template: iol\n` }]);
  assert.ok(await quietFor(2000), 'a refresh for a document whose lenses were never asked for');

  const shown = await lensCount();
  await client.change(edited, [{ text: `${text}  c2:\n    template: iol\n  c3:\n    template: iol\n` }]);
  const before = client.codeLensRefreshes;
  await client.waitUntil('a code lens refresh', () => client.codeLensRefreshes > before || undefined, 5000);
  assert.equal(await lensCount(), shown + 3, "c3's Start, Stop and Console");
  assert.ok(await quietFor(2000), 'one refresh for the edit');

  // The editor asks for the new version's lenses itself: no refresh.
  await client.change(edited, [{ text }]);
  await lensCount();
  assert.ok(await quietFor(2000), 'a refresh though the editor had asked for the lenses');
  await client.close(edited);
});

test('the token never appears in the server log', () => {
  // The earlier tests made agent calls fail (a bad plan, an unknown image), which the server logs with their messages.
  assert.ok(client.logs.length > 0, 'the server logged nothing, so this test would prove nothing');
  for (const line of [...client.logs, client.stderr]) assert.ok(!line.includes(fixture.session.token));
});
