/**
 * The catalogue (templates, images, interfaces, icons, network types) is asked of the
 * agent once per session: with the agent gone, cached answers still complete;
 * RefreshCatalogue and a session change drop them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompletionList } from 'vscode-languageserver-protocol';
import { RefreshCatalogueRequest, SessionChangedNotification } from '../../common/protocol';
import type { LspClient } from '../support/lsp';
import {
  fileUri,
  positionOf,
  startAgentSession,
  type AgentFixture,
  startServerOnAgent,
  stopServerOnAgent,
} from './fixture';

const LAB = 'name: cached\nnodes:\n  r1:\n    template: vios\n    image: \n    icon: \nlinks:\n  - endpoints: [r1:]\n';

let fixture: AgentFixture;
let client: LspClient;
let uri: string;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
  uri = fileUri(fixture.labDir, 'cached.lab.yaml');
  await client.open(uri, LAB);
});
after(() => stopServerOnAgent({ fixture, client }));

async function labels(needle: string, shift: number): Promise<string[]> {
  const list = await client.request<CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(LAB, needle, shift),
  });
  return list.items.map((i) => i.label);
}

test('answers are cached for the session, and dropped on refresh and on a session change', async () => {
  const templates = await labels('template: vios', 12);
  const images = await labels('image: ', 7);
  const interfaces = await labels('r1:]', 3);
  assert.ok(templates.includes('vios') && images.length > 0 && interfaces.includes('Gi0/0'));

  await fixture.agent.close();
  assert.deepEqual(await labels('template: vios', 12), templates, 'templates come from the cache');
  assert.deepEqual(await labels('image: ', 7), images, 'images of vios come from the cache');
  assert.deepEqual(await labels('r1:]', 3), interfaces, 'interfaces of vios come from the cache');
  assert.deepEqual(await labels('icon: ', 6), [], 'icons were never asked for: the agent is gone');

  await client.request(RefreshCatalogueRequest.method, null);
  assert.deepEqual(await labels('template: vios', 12), [], 'the refresh dropped the cache');
  assert.deepEqual(await labels('r1:]', 3), [], 'interfaces too');
  const status = await client.waitUntil('status error', () => client.statuses.find((s) => s.state === 'error'));
  assert.equal(status.code, 'agent_unreachable');
});

test('a session change drops the cache too', async () => {
  // Fill the cache from a new agent, then lose it and change the session.
  const second = await startAgentSession();
  try {
    await client.notify(SessionChangedNotification, { session: second.session });
    await client.waitUntil('connected', () => client.statuses.at(-1)?.state === 'connected' || undefined);
    assert.ok((await labels('template: vios', 12)).includes('vios'));
    await second.agent.close();
    assert.ok((await labels('template: vios', 12)).includes('vios'), 'still cached');
    await client.notify(SessionChangedNotification, { session: { ...second.session } });
    assert.deepEqual(await labels('template: vios', 12), []);
  } finally {
    await second.close();
  }
});
