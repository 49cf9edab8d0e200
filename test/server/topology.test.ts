/**
 * The topology view's requests on the bundled server: the lab as the cached
 * model reads it (following edits), edits made against the current version
 * only, and a node's free interfaces from the real agent's catalogue.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FreeInterfacesRequest,
  TopologyEditRequest,
  TopologyRequest,
  type FreeInterfacesResult,
  type TopologyData,
  type TopologyEditResult,
} from '../../common/protocol';
import type { LspClient } from '../support/lsp';
import { applyEdits, fileUri, positionOf, type AgentFixture, startServerOnAgent, stopServerOnAgent } from './fixture';

const SAMPLE = readFileSync(join(__dirname, '..', '..', '..', 'samples', 'campus.lab.yaml'), 'utf8');

let fixture: AgentFixture;
let client: LspClient;
let uri: string;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
  uri = fileUri(fixture.labDir, 'campus.lab.yaml');
  await client.open(uri, SAMPLE);
});
after(() => stopServerOnAgent({ fixture, client }));

const topology = (): Promise<TopologyData | null> => client.request(TopologyRequest.method, { uri });

test('the topology lists nodes, networks and links with their source ranges', async () => {
  const data = await topology();
  assert.ok(data);
  assert.equal(data.version, 1);
  assert.equal(data.name, 'campus');
  assert.deepEqual(
    data.nodes.map((n) => n.name),
    ['edge1', 'r1', 'r2', 'dist1', 'acc1', 'srv1'],
  );
  const r1 = data.nodes[1];
  assert.deepEqual(r1.position, { x: 260, y: 200 });
  assert.equal(r1.icon, 'Router.png');
  assert.deepEqual(r1.nameRange.start, positionOf(SAMPLE, '  r1:', 2));
  assert.deepEqual(
    data.networks.map((n) => [n.name, n.type]),
    [['mgmt', 'pnet1']],
  );
  assert.equal(data.links.length, 10);
  assert.deepEqual(
    data.links[9].endpoints.map((e) => [e.node, e.interface, e.network]),
    [
      ['srv1', 'e1', undefined],
      [undefined, undefined, 'mgmt'],
    ],
  );
  assert.equal(data.problemCount, 0);
  assert.equal(await client.request(TopologyRequest.method, { uri: 'file:///not/open.lab.yaml' }), null);
});

test('a position edit made on the current version is one line; a stale one is refused', async () => {
  const data = await topology();
  assert.ok(data);
  const change = { kind: 'position', node: 'r2', x: 555, y: 210 };
  const stale = await client.request<TopologyEditResult>(TopologyEditRequest.method, {
    uri,
    version: data.version - 1,
    change,
  });
  assert.ok('error' in stale && /changed/.test(stale.error));
  const answer = await client.request<TopologyEditResult>(TopologyEditRequest.method, {
    uri,
    version: data.version,
    change,
  });
  assert.ok('edits' in answer, JSON.stringify(answer));
  const edited = applyEdits(SAMPLE, answer.edits);
  const changed = edited.split('\n').filter((line, i) => line !== SAMPLE.split('\n')[i]);
  assert.deepEqual(changed, ['    position: {x: 555, y: 210}']);

  // The client applies it; the topology follows the document.
  const version = await client.change(uri, [{ text: edited }]);
  const after = await topology();
  assert.equal(after?.version, version);
  assert.deepEqual(after?.nodes.find((n) => n.name === 'r2')?.position, { x: 555, y: 210 });
});

test("a node's free interfaces leave out those links use", async () => {
  const answer = await client.request<FreeInterfacesResult>(FreeInterfacesRequest.method, { uri, node: 'r1' });
  assert.ok('interfaces' in answer, JSON.stringify(answer));
  // r1 (vios, ethernet 4) links Gi0/0, Gi0/1 and Gi0/2.
  assert.deepEqual(answer.interfaces, ['Gi0/3']);
  const unknown = await client.request<FreeInterfacesResult>(FreeInterfacesRequest.method, { uri, node: 'r9' });
  assert.ok('error' in unknown && /no node r9/.test(unknown.error));
});

test('a lab with errors still yields what can be read, and says how many problems there are', async () => {
  const broken = `${SAMPLE}\n  - endpoints: [r1:Gi0/3, r9:Gi0/0\nbogus: [\n`;
  await client.change(uri, [{ text: broken }]);
  const data = await topology();
  assert.ok(data);
  assert.ok(data.problemCount > 0);
  assert.ok(data.problems[0].message.length > 0);
  assert.ok(data.nodes.length >= 6, `only ${data.nodes.length} nodes read`);
});
