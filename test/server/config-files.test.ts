/**
 * The language server follows the startup configs its labs name (issue 28 item 4): creating,
 * changing or deleting one re-validates the lab without an edit of the lab file. And it never
 * sends the agent a document the agent will refuse to read (issue 35): it shows what the agent
 * would say instead, which the agent's request log proves by counting.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_ALIASES } from '../../common/project-files/document-limits';
import { type LspClient } from '../support/lsp';
import { fileUri, startServerOnAgent, stopServerOnAgent, type AgentFixture } from './fixture';

let fixture: AgentFixture;
let client: LspClient;
const agentLog: string[] = [];
const validations = () => agentLog.filter((line) => line.startsWith('validateProject ->')).length;

before(async () => {
  ({ fixture, client } = await startServerOnAgent({ log: (message) => agentLog.push(message) }));
});
after(() => stopServerOnAgent({ fixture, client }));

const notFound = (d: { code?: unknown }[]) => d.some((x) => x.code === 'config-not-found');

test('creating, changing and deleting a named config re-validates the lab without an edit of it', async () => {
  // The configs folder does not exist yet either: its parent is watched until it does.
  const uri = fileUri(fixture.labDir, 'watched.lab.yaml');
  const text = 'name: watched\nnodes:\n  r4:\n    template: vios\n    config: configs/r4.conf\n';
  await client.open(uri, text);
  await client.waitForDiagnostics(uri, notFound);

  let count = client.publicationCount(uri);
  await mkdir(join(fixture.labDir, 'configs'));
  await writeFile(join(fixture.labDir, 'configs', 'r4.conf'), 'hostname r4\n');
  await client.waitForDiagnostics(uri, (d) => !notFound(d), { after: count, version: 1 });

  // A change of the file is a new validation (the agent hears of it); the lab stays valid.
  count = client.publicationCount(uri);
  const before = validations();
  await writeFile(join(fixture.labDir, 'configs', 'r4.conf'), 'hostname r4\ninterface Gi0/1\n');
  await client.waitForDiagnostics(uri, (d) => !notFound(d), { after: count, version: 1 });
  assert.ok(validations() > before, 'the change was validated again');

  count = client.publicationCount(uri);
  await rm(join(fixture.labDir, 'configs', 'r4.conf'));
  await client.waitForDiagnostics(uri, notFound, { after: count, version: 1 });
  await client.close(uri);
});

test('a document over the agent alias limit is not sent; the agent limit is shown as its finding', async () => {
  const uri = fileUri(fixture.labDir, 'aliases.lab.yaml');
  const nodes = Array.from({ length: MAX_ALIASES + 1 }, (_, i) => `  n${i}: {template: *t}\n`).join('');
  const text = `name: aliases\ndefaults: {template: &t vios}\nnodes:\n${nodes}`;
  const before = validations();
  await client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'too-many-aliases'));
  const refused = diagnostics.find((d) => d.code === 'too-many-aliases');
  assert.equal(refused?.source, 'lab-agent');
  assert.match(JSON.stringify(refused?.message), new RegExp(`up to ${MAX_ALIASES}`));
  // Every other validation of this test file has finished: none was of this document.
  assert.equal(validations(), before);
  await client.close(uri);
});
