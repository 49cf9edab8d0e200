/**
 * Session handling: a session that fails (invalid or expired token, wrong
 * pin, nobody listening, malformed settings) becomes a status with the code
 * and advice, and one diagnostic at the top of each lab; local features keep
 * working; a new session or none at all is taken on the fly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { CodeLens, CompletionList, Diagnostic } from 'vscode-languageserver-protocol';
import { SessionChangedNotification, type SessionStatusParams } from '../../common/protocol';
import { LabCommand } from '../../common/commands';
import type { LspClient } from '../support/lsp';
import { fileUri, positionOf, type AgentFixture, startServerOnAgent, stopServerOnAgent } from './fixture';

const EIGHT_HOURS = 8 * 60 * 60 * 1000;
const LAB =
  'name: sessions\nnodes:\n  r1:\n    template: vios\n    image: wrong\nlinks:\n  - endpoints: [r1:Gi0/0, r9:Gi0/0]\n';

let fixture: AgentFixture;
let client: LspClient;
let uri: string;
let now = Date.now();

before(async () => {
  ({ fixture, client } = await startServerOnAgent({ clock: () => now, token: 'f'.repeat(64) }));
  uri = fileUri(fixture.labDir, 'sessions.lab.yaml');
  await client.open(uri, LAB);
});
after(() => stopServerOnAgent({ fixture, client }));

/** Sends a session change and waits for the status it leads to. */
async function changeSession(
  /** Any value: malformed sessions included. */
  session: unknown,
  accept: (s: SessionStatusParams) => boolean,
): Promise<SessionStatusParams> {
  const seen = client.statuses.length;
  // Sent by name: the sessions under test include malformed ones.
  await client.notify(SessionChangedNotification.method, { session });
  return client.waitUntil('a session status', () => client.statuses.slice(seen).find(accept));
}

function agentDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.source === 'lab-agent');
}

test('an unknown token: status error with the code; the plan lens says so, no diagnostic does', async () => {
  const status = await client.waitUntil('status error', () => client.statuses.find((s) => s.state === 'error'));
  assert.equal(status.code, 'unauthenticated');
  assert.match(status.message ?? '', /log in/i);
  const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  const resolved = await client.request<CodeLens>('codeLens/resolve', plan);
  assert.equal(resolved.command?.title, 'Plan: session expired, log in again');
  // One lost session is not a warning on every lab of the agent (the status bar and the lens say it).
  const diagnostics = await client.waitForDiagnostics(uri, () => true);
  assert.deepEqual(agentDiagnostics(diagnostics), []);
});

test('local features keep working while the session fails', async () => {
  const list = await client.request<CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: positionOf(LAB, 'r9:Gi0/0', 0),
  });
  assert.deepEqual(
    list.items.map((i) => i.label),
    ['r1'],
  );
});

test('a valid session replaces it: connected, the agent findings appear, lenses refresh', async () => {
  const refreshes = client.codeLensRefreshes;
  const count = client.publicationCount(uri);
  await changeSession(fixture.session, (s) => s.state === 'connected');
  const diagnostics = await client.waitForDiagnostics(
    uri,
    (d) => agentDiagnostics(d).some((x) => x.code === 'unknown-image'),
    { after: count },
  );
  assert.ok(!diagnostics.some((d) => d.code === 'unauthenticated'));
  assert.ok(client.codeLensRefreshes > refreshes);
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  assert.equal(lenses[0].command, undefined, 'the plan lens is back, to be resolved');
});

test('an expired session is reported as such, with what to do', async () => {
  now += EIGHT_HOURS + 60_000;
  const count = client.publicationCount(uri);
  const status = await changeSession({ ...fixture.session }, (s) => s.state === 'error');
  assert.equal(status.code, 'expired_agent_session');
  assert.match(status.message ?? '', /expired.*log in/i);
  // Said by the status and the plan lens; the agent findings of the old session are withdrawn, none replaces them.
  const diagnostics = await client.waitForDiagnostics(uri, () => true, { after: count });
  assert.deepEqual(agentDiagnostics(diagnostics), []);
  const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  assert.equal(
    (await client.request<CodeLens>('codeLens/resolve', plan)).command?.title,
    'Plan: session expired, log in again',
  );
});

test('a certificate that does not match the pin is refused', async () => {
  const status = await changeSession(
    { ...fixture.session, pin: 'AB'.repeat(32) },
    (s) => s.code === 'tls_pin_mismatch',
  );
  assert.equal(status.state, 'error');
});

test('nobody listening at the agent URL', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
  const status = await changeSession(
    { ...fixture.session, baseUrl: `https://127.0.0.1:${port}` },
    (s) => s.state === 'error',
  );
  assert.equal(status.code, 'agent_unreachable');
  assert.match(status.message ?? '', /running/);
  // The plan lens says it in a few words; the advice and the address are in its tooltip.
  const [plan] = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  const resolved = await client.request<CodeLens>('codeLens/resolve', plan);
  assert.equal(resolved.command?.title, 'Plan: agent unreachable');
  assert.match(resolved.command?.tooltip ?? '', new RegExp(`running.*127\\.0\\.0\\.1:${port}`));
});

test('malformed session settings are reported, not a crash', async () => {
  const status = await changeSession({ baseUrl: 42, token: null }, (s) => s.state === 'error');
  assert.equal(status.code, 'invalid_session_settings');
  assert.match(status.message ?? '', /baseUrl/);
  assert.equal(client.exitCode, null);
});

test('logging out: status none, agent findings and the plan lens go away', async () => {
  // An unknown token puts an agent finding on the first line (first test); logging out must take it away.
  await changeSession({ ...fixture.session, token: 'e'.repeat(64) }, (s) => s.state === 'error');
  await client.waitForDiagnostics(uri, (d) => agentDiagnostics(d).length > 0);
  const count = client.publicationCount(uri);
  await changeSession(null, (s) => s.state === 'none');
  const diagnostics = await client.waitForDiagnostics(uri, (d) => agentDiagnostics(d).length === 0, { after: count });
  assert.deepEqual(agentDiagnostics(diagnostics), []);
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  assert.ok(lenses.every((l) => l.command !== undefined && l.command.command !== LabCommand.plan));
});

test('no token ever reaches the log', () => {
  for (const line of [...client.logs, client.stderr]) assert.ok(!line.includes(fixture.session.token), line);
});
