/**
 * Messages from the connected agent's catalogue, over stdio: on a Linux agent
 * (templates frr, linux and switch, interfaces eth0, eth1, …) an unknown
 * template suggests the closest one it has, and the examples of the local
 * messages are its own (`template: frr`, `r3:eth0`), with no EVE-NG name left
 * (vios, Gi0/0); on the simulated EVE-NG agent they stay EVE-NG's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { messageOf } from '../support/lsp';
import { fileUri, startServerOnAgent, stopServerOnAgent } from './fixture';

const LAB = `name: messages
nodes:
  r1:
    template: TYPO
  r2:
    cpu: 1
  r3:
    template: TEMPLATE
links:
  - endpoints: [r3:, r1:IFACE]
  - endpoints: [r3, r1:IFACE]
`;

/** The diagnostics of LAB (with the agent's template and interface), once the agent's findings and examples are in. */
async function messagesOn(
  emulator: 'linux' | 'simulated',
  typo: string,
  template: string,
  iface: string,
): Promise<string[]> {
  const server = await startServerOnAgent({ emulator });
  try {
    const uri = fileUri(server.fixture.labDir, 'messages.lab.yaml');
    await server.client.open(uri, LAB.replace('TYPO', typo).replace('TEMPLATE', template).replaceAll('IFACE', iface));
    const diagnostics: Diagnostic[] = await server.client.waitForDiagnostics(
      uri,
      (list) => {
        const messages = list.map(messageOf);
        // The agent's findings, and the local messages with the agent's examples (they follow its catalogue).
        return (
          messages.some((m) => m.includes('Did you mean')) && messages.some((m) => m.includes(`template: ${template} `))
        );
      },
      { timeoutMs: 20_000 },
    );
    return diagnostics.map(messageOf);
  } finally {
    await stopServerOnAgent(server);
  }
}

test('on a Linux agent, messages suggest and show its own templates and interfaces', async () => {
  const messages = await messagesOn('linux', 'ffr', 'frr', 'eth0');
  const text = messages.join('\n');
  assert.match(text, /Template "ffr" does not exist on the emulator\. Did you mean frr\?/);
  assert.match(text, /node r2 has no template; add e\.g\. template: frr /);
  assert.match(text, /r3: names no interface; write r3:<interface>, e\.g\. r3:eth0/);
  assert.match(text, /r3 is a node; name one of its interfaces, e\.g\. r3:eth0/);
  assert.doesNotMatch(text, /vios|Gi0\//, 'no EVE-NG name in the messages');
});

test('on the simulated EVE-NG agent, the examples are its own', async () => {
  const messages = await messagesOn('simulated', 'vio', 'vios', 'Gi0/0');
  const text = messages.join('\n');
  assert.match(text, /Template "vio" does not exist on the emulator\. Did you mean vios\?/);
  assert.match(text, /node r2 has no template; add e\.g\. template: vios /);
  assert.match(text, /e\.g\. r3:Gi0\/0/);
});
