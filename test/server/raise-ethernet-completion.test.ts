/**
 * Completion after `r3:` when every interface of r3 is linked, over stdio on
 * the reference agent's catalogue: one item says so and, applied, inserts the
 * interface one more would add and raises r3's `ethernet` (its own value, or a
 * new line when it inherits the count).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompletionList } from 'vscode-languageserver-protocol';
import type { LspClient } from '../support/lsp';
import {
  applyEdits,
  editOf,
  fileUri,
  positionOf,
  startServerOnAgent,
  stopServerOnAgent,
  type AgentFixture,
} from './fixture';

let fixture: AgentFixture;
let client: LspClient;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
});
after(() => stopServerOnAgent({ fixture, client }));

const LAB = `name: full
defaults:
  ethernet: 2
nodes:
  r1:
    template: vios
    ethernet: 4
  r3:
    template: vios
    ETHERNET
links:
  - endpoints: [r1:Gi0/0, r3:Gi0/0]
  - endpoints: [r1:Gi0/1, r3:Gi0/1]
  - endpoints: [r3:
`;

for (const sample of [
  {
    what: 'its own ethernet',
    ethernet: 'ethernet: 2',
    raise: (t: string) => t.replace('ethernet: 2\nlinks', 'ethernet: 3\nlinks'),
  },
  {
    what: 'a new line under defaults',
    ethernet: 'cpu: 1',
    raise: (t: string) => t.replace('  r3:\n', '  r3:\n    ethernet: 3\n'),
  },
]) {
  test(`a node without free interfaces gets an item that raises ethernet (${sample.what})`, async () => {
    const text = LAB.replace('ETHERNET', sample.ethernet);
    const uri = fileUri(fixture.labDir, `full-${sample.ethernet.slice(0, 3)}.lab.yaml`);
    await client.open(uri, text);
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri },
      position: positionOf(text, '  - endpoints: [r3:\n', '  - endpoints: [r3:'.length),
    });
    assert.equal(list.items.length, 1, JSON.stringify(list.items.map((i) => i.label)));
    const [item] = list.items;
    assert.equal(item.label, 'r3 has no free interface (ethernet: 2, both linked): raise ethernet');
    const edit = editOf(list, item);
    assert.ok(edit);
    const applied = applyEdits(text, [edit, ...(item.additionalTextEdits ?? [])]);
    assert.equal(applied, sample.raise(text.replace('  - endpoints: [r3:\n', '  - endpoints: [r3:Gi0/2\n')));
    await client.close(uri);
  });
}
