/** The extension's settings (package.json contributes.configuration), read and written in one place. */
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { DEFAULT_AGENT, agentList, withAgentUpdated, type AgentList } from '../model/agent-list';
import { DEFAULT_AGENT_URL } from '../model/agent-url';

const SECTION = 'labAgent';

export interface ConnectionSettings {
  agentUrl: string;
  username: string;
  /** Pinned SHA-256 fingerprint of the agent's certificate ('' for none). */
  pin: string;
  /** Path of a PEM file with the CA that signed the agent's certificate ('' for none). */
  caFile: string;
}

export function readConnectionSettings(): ConnectionSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  return {
    agentUrl: c.get<string>('agentUrl', DEFAULT_AGENT_URL) || DEFAULT_AGENT_URL,
    username: c.get<string>('username', '') ?? '',
    pin: (c.get<string>('tls.pin', '') ?? '').trim(),
    caFile: (c.get<string>('tls.caFile', '') ?? '').trim(),
  };
}

/** Every agent: "default" from the single-agent settings, then labAgent.agents. */
export function readAgentList(): AgentList {
  const single = readConnectionSettings();
  return agentList(single, vscode.workspace.getConfiguration(SECTION).get<unknown>('agents'));
}

/** The settings of one agent (the default agent's URL as typed, so a login prompt shows it). */
export function readAgentSettings(name: string): ConnectionSettings | undefined {
  if (name === DEFAULT_AGENT) return readConnectionSettings();
  const entry = readAgentList().agents.find((a) => a.name === name);
  return entry && { agentUrl: entry.url, username: entry.username, pin: entry.pin, caFile: entry.caFile };
}

/** Remembers where and as whom an agent was logged in to, and its pin: user settings, as the default agent's. */
export async function updateAgentSettings(
  name: string,
  patch: { url?: string; username?: string; pin?: string },
): Promise<void> {
  if (name === DEFAULT_AGENT) {
    if (patch.url !== undefined) await updateSetting('agentUrl', patch.url);
    if (patch.username !== undefined) await updateSetting('username', patch.username);
    if (patch.pin !== undefined) await updateSetting('tls.pin', patch.pin);
    return;
  }
  await writeAgentsSetting(withAgentUpdated(readAgentsSetting(), name, patch));
}

/** labAgent.agents as stored in the user settings (entries it cannot read included). */
export function readAgentsSetting(): unknown {
  return vscode.workspace.getConfiguration(SECTION).inspect<unknown>('agents')?.globalValue;
}

export async function writeAgentsSetting(value: unknown[]): Promise<void> {
  await vscode.workspace
    .getConfiguration(SECTION)
    .update('agents', value.length === 0 ? undefined : value, vscode.ConfigurationTarget.Global);
}

export function provisionedOnly(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('templates.provisionedOnly', false) === true;
}

/** Settings are written to the user settings: they describe the user's agent, not the workspace. */
export async function updateSetting(
  key: 'agentUrl' | 'username' | 'tls.pin' | 'templates.provisionedOnly',
  value: unknown,
): Promise<void> {
  const c = vscode.workspace.getConfiguration(SECTION);
  if (c.get(key) === value) return;
  await c.update(key, value, vscode.ConfigurationTarget.Global);
}

/**
 * The CA certificate(s) from labAgent.tls.caFile. A relative path is taken from
 * the first workspace folder. Throws an actionable Error when unreadable.
 */
export async function readCaFile(caFile: string): Promise<string | undefined> {
  if (caFile === '') return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const resolved = isAbsolute(caFile) || folder === undefined ? caFile : join(folder, caFile);
  let pem: string;
  try {
    pem = await readFile(resolved, 'utf8');
  } catch (err) {
    throw new Error(
      `Cannot read the CA file of setting labAgent.tls.caFile (${resolved}): ${(err as Error).message}. Fix the path or clear the setting.`,
      { cause: err },
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(
      `The file ${resolved} (setting labAgent.tls.caFile) holds no PEM certificate. Point the setting at a PEM file, or clear it.`,
    );
  }
  return pem;
}
