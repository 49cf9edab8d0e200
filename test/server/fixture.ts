/**
 * Shared setup of the language server tests: a reference agent over real
 * HTTPS on 127.0.0.1 with a logged-in session, and small helpers to address
 * positions in test documents.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EmulatorKind } from '../../agent/emulator/registry';
import { startAgent, type RunningAgent } from '../../agent/server';
import { AgentClient } from '../../common/api/client';
import type { CompletionItem, CompletionList, TextEdit } from 'vscode-languageserver-protocol';
import { writeLabState } from '../../common/project-files/state-file';
import type { AgentSessionSettings } from '../../common/protocol';
import { LspClient } from '../support/lsp';

export interface AgentFixture {
  agent: RunningAgent;
  session: AgentSessionSettings;
  /** A folder for lab files of the test. */
  labDir: string;
  close(): Promise<void>;
}

export async function startAgentSession(
  options: { clock?: () => number; log?: (message: string) => void; emulator?: EmulatorKind } = {},
): Promise<AgentFixture> {
  const root = await mkdtemp(join(tmpdir(), 'lab-server-test-'));
  const agent = await startAgent({ port: 0, dataDir: join(root, 'agent'), bootMs: 50, ...options });
  const client = new AgentClient({ baseUrl: agent.url, pin: agent.fingerprint });
  await client.login({ username: 'lab', password: 'lab' });
  await client.close();
  return {
    agent,
    session: { baseUrl: agent.url, token: client.token, pin: agent.fingerprint },
    labDir: root,
    async close() {
      await agent.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The bundled language server signed in to a fresh agent: where the remote-feature tests start. */
export interface ServerOnAgent {
  fixture: AgentFixture;
  client: LspClient;
}

/** `token` replaces the session's (a session the agent does not know); `clock` is the agent's. */
export async function startServerOnAgent(
  options: { clock?: () => number; token?: string; emulator?: EmulatorKind; log?: (message: string) => void } = {},
): Promise<ServerOnAgent> {
  const fixture = await startAgentSession({
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.emulator ? { emulator: options.emulator } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const session = options.token ? { ...fixture.session, token: options.token } : fixture.session;
  const client = await LspClient.start({ initializationOptions: { session } });
  return { fixture, client };
}

/** Runs `body` with an API client on the fixture's session, as the extension's own, closed however the body ends. */
export async function withSessionClient<T>(
  fixture: AgentFixture,
  body: (agent: AgentClient) => Promise<T>,
): Promise<T> {
  const agent = new AgentClient({
    baseUrl: fixture.agent.url,
    token: fixture.session.token,
    pin: fixture.agent.fingerprint,
  });
  try {
    return await body(agent);
  } finally {
    await agent.close();
  }
}

/** Deploys the lab `text` of the file at `uri` with the fixture's session and stores its state beside the file, as the extension's push does. */
export async function deployAndStore(fixture: AgentFixture, uri: string, text: string): Promise<void> {
  const deployed = await withSessionClient(fixture, (agent) => agent.deployProject({ yaml: text, files: {} }));
  await writeLabState(fileURLToPath(uri), { state: deployed.state });
}

export async function stopServerOnAgent({ fixture, client }: ServerOnAgent): Promise<void> {
  await client.stop();
  await fixture.close();
}

export function fileUri(dir: string, name: string): string {
  return pathToFileURL(join(dir, name)).href;
}

/** The LSP position of the `occurrence`-th match of `needle` in `text`, plus `shift` characters. */
export function positionOf(
  text: string,
  needle: string,
  shift = 0,
  occurrence = 1,
): { line: number; character: number } {
  let index = -1;
  for (let i = 0; i < occurrence; i++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`${JSON.stringify(needle)} (occurrence ${occurrence}) is not in the text`);
  }
  const offset = index + shift;
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

export function offsetOf(text: string, position: { line: number; character: number }): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) offset = text.indexOf('\n', offset) + 1;
  return offset + position.character;
}

/** Applies LSP text edits (non-overlapping) to a text, as an editor would. */
export function applyEdits(
  text: string,
  edits: readonly {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    newText: string;
  }[],
): string {
  const located = edits.map((e) => ({
    start: offsetOf(text, e.range.start),
    end: offsetOf(text, e.range.end),
    newText: e.newText,
  }));
  located.sort((a, b) => b.start - a.start);
  let result = text;
  for (const e of located) result = result.slice(0, e.start) + e.newText + result.slice(e.end);
  return result;
}

/** The completion item labelled `label`, which must be among `items`. */
export function byLabel(items: CompletionItem[], label: string): CompletionItem {
  const item = items.find((i) => i.label === label);
  assert.ok(item, `${label} among ${items.map((i) => i.label).join()}`);
  return item;
}

/** The edit an editor applies for a completion item: its own, or the list's default range with its text. */
export function editOf(list: CompletionList, item: CompletionItem): TextEdit | undefined {
  if (item.textEdit && 'range' in item.textEdit) return item.textEdit;
  const range = list.itemDefaults?.editRange;
  if (range === undefined || !('start' in range)) return undefined;
  return { range, newText: item.textEditText ?? item.label };
}
