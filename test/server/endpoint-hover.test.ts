/**
 * Hover on a link endpoint answers from the catalogue's interfaces (per
 * template and count, as completion has them) and the links of the model: it
 * never sends the document to the agent, so its cost does not grow with the lab.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hover, MarkupContent } from 'vscode-languageserver-protocol';
import type { LspClient } from '../support/lsp';
import { fileUri, positionOf, startServerOnAgent, stopServerOnAgent, type AgentFixture } from './fixture';

const LAB = `name: hovers
nodes:
  r1:
    template: vios
  r2:
    template: vios
networks:
  mgmt:
    type: pnet1
links:
  - endpoints: [r1:Gi0/0, r2:Gi0/0]
  - endpoints: [r1:Gi0/1, r2:Gi0/1]
  - endpoints: [r2:Gi0/2, mgmt]
  - endpoints: [r1:Gi9/9, r2:Gi0/3]
`;

let fixture: AgentFixture;
let client: LspClient;
let uri: string;
/** The operations the agent answered, in order (its log names each one). */
const operations: string[] = [];

before(async () => {
  ({ fixture, client } = await startServerOnAgent({ log: (message) => operations.push(message.split(' ')[0]) }));
  uri = fileUri(fixture.labDir, 'hovers.lab.yaml');
  await client.open(uri, LAB);
});
after(() => stopServerOnAgent({ fixture, client }));

async function hoverText(needle: string): Promise<string> {
  const hover = await client.request<Hover | null>('textDocument/hover', {
    textDocument: { uri },
    position: positionOf(LAB, needle, needle.length - 1),
  });
  return hover === null ? '' : (hover.contents as MarkupContent).value;
}

test('endpoint hovers name the interface, its index and its peer without sending the document', async () => {
  const hoversFrom = operations.length;
  assert.match(
    await hoverText('r1:Gi0/0'),
    /\*\*r1:Gi0\/0\*\* — interface 0 of node \*\*r1\*\* \(vios\)\n\nlinked to `r2:Gi0\/0`/,
  );
  assert.match(await hoverText('r2:Gi0/1'), /interface 1 of node \*\*r2\*\*.*\n\nlinked to `r1:Gi0\/1`/);
  assert.match(await hoverText('r2:Gi0/2'), /linked to `mgmt`/);
  assert.match(
    await hoverText('r1:Gi9/9'),
    /node \*\*r1\*\* \(vios\) has no interface `Gi9\/9`; its interfaces are `Gi0\/0`, `Gi0\/1`/,
  );

  const asked = operations.slice(hoversFrom).filter((op) => /Interfaces$/.test(op));
  assert.deepEqual(asked, ['completeLinkInterfaces'], 'one catalogue call for both vios nodes, no document preview');

  // With the agent gone, the hover still knows the interfaces and what the links connect.
  await fixture.agent.close();
  assert.match(await hoverText('r2:Gi0/3'), /interface 3 of node \*\*r2\*\*.*\n\nlinked to `r1:Gi9\/9`/);
});
