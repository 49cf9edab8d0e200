/**
 * The language server against an agent that misbehaves (a fake HTTPS agent on
 * 127.0.0.1): a session lost on every call is reported once, not once per
 * call; replies of the wrong shape leave completion with its local items and
 * the server alive, and are reported once as invalid_response.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeLens, CompletionList, Hover } from 'vscode-languageserver-protocol';
import { fakeAgent, fakeCertificate, json, type FakeCertificate, type Respond } from '../support/fake-agent';
import { LspClient } from '../support/lsp';
import { fileUri, positionOf } from './fixture';

const LAB =
  'name: hostile\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: \nlinks:\n  - endpoints: [r1:, r2:Gi0/0]\n';

let certificate: FakeCertificate;
let labDir: string;

before(async () => {
  certificate = await fakeCertificate();
  labDir = await mkdtemp(join(tmpdir(), 'lab-hostile-'));
});
after(() => rm(labDir, { recursive: true, force: true }));

/** A language server whose session points at a fake agent answering with `respond`, and three open labs. */
async function serverAgainst(t: { after(fn: () => unknown): void }, respond: Respond) {
  const fake = await fakeAgent(t, certificate, respond);
  const client = await LspClient.start({
    initializationOptions: { session: { baseUrl: fake.url, token: 'a'.repeat(64), pin: certificate.fingerprint } },
  });
  t.after(() => client.stop());
  const uris = ['a', 'b', 'c'].map((name) => fileUri(labDir, `${name}.lab.yaml`));
  for (const uri of uris) await client.open(uri, LAB);
  return { fake, client, uris };
}

/** Completion, hover and the plan lens of every lab: a dozen agent calls or more. */
async function useRemoteFeatures(client: LspClient, uris: string[]): Promise<CompletionList[]> {
  const lists: CompletionList[] = [];
  for (const uri of uris) {
    lists.push(
      await client.request<CompletionList>('textDocument/completion', {
        textDocument: { uri },
        position: positionOf(LAB, 'template: \n', 'template: '.length),
      }),
    );
    lists.push(
      await client.request<CompletionList>('textDocument/completion', {
        textDocument: { uri },
        position: positionOf(LAB, 'r1:,', 3),
      }),
    );
    await client.request<Hover | null>('textDocument/hover', {
      textDocument: { uri },
      position: positionOf(LAB, 'vios', 1),
    });
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    for (const lens of lenses.filter((l) => l.command === undefined)) await client.request('codeLens/resolve', lens);
  }
  return lists;
}

test('a session lost on every call (401) is reported once', async (t) => {
  const { fake, client, uris } = await serverAgainst(
    t,
    json(401, { ok: false, code: 'unauthenticated', error: 'unknown session' }),
  );
  await useRemoteFeatures(client, uris);
  // Validation of each lab runs after a pause: wait until those calls were made too.
  await client.waitUntil(
    'the validations',
    () => fake.requests.filter((r) => r.url === '/api/v1/projects/validate').length >= 3,
  );
  await client.waitUntil('at least 10 agent calls', () => fake.requests.length >= 10);
  const errors = client.statuses.filter((s) => s.state === 'error');
  assert.equal(errors.length, 1, JSON.stringify(client.statuses));
  assert.equal(errors[0].code, 'unauthenticated');
});

test('replies of the wrong shape: completion keeps its local items, one invalid_response status, the server lives', async (t) => {
  // Shapes no operation accepts (one that some accept makes the status follow each call's outcome).
  for (const data of [
    {
      templates: 'x',
      items: 5,
      icons: {},
      types: 'none',
      status: 7,
      username: 1,
      token: 2,
      images: 'x',
      attributes: 'x',
      summary: 'x',
      nodes: 'x',
    },
    5,
    null,
  ]) {
    const { fake, client, uris } = await serverAgainst(t, json(200, { ok: true, data }));
    const lists = await useRemoteFeatures(client, uris);
    assert.ok(lists.every((list) => Array.isArray(list.items)));
    await client.waitUntil(
      'the validations',
      () => fake.requests.filter((r) => r.url === '/api/v1/projects/validate').length >= 3,
    );
    const errors = await client.waitUntil('an error status', () => {
      const found = client.statuses.filter((s) => s.state === 'error');
      return found.length > 0 && found;
    });
    assert.equal(errors.length, 1, JSON.stringify(client.statuses));
    assert.equal(errors[0].code, 'invalid_response');
    assert.match(errors[0].message ?? '', /does not have the shape the API defines/);
    assert.ok(!client.statuses.some((s) => s.state === 'connected'), JSON.stringify(client.statuses));
    assert.equal(client.exitCode, null);
    assert.match(client.stderr, /^$/);
  }
});
