/**
 * Custom messages between the extension host (client/) and the language
 * server (server/). Both sides import these names and types, so a rename here
 * breaks the build instead of silently breaking the wire.
 */

/** What the language server needs to reach the agent. Sent in initializationOptions and on every change. */
export interface AgentSessionSettings {
  baseUrl: string;
  token: string;
  /** PEM trust root, when the user configured a CA file. */
  ca?: string;
  /** Pinned SHA-256 fingerprint of the agent's certificate. */
  pin?: string;
}

/** initializationOptions of the language server; `session` is null when logged out. */
export interface ServerInitializationOptions {
  session: AgentSessionSettings | null;
}

/** client → server notification: the session changed (null: logged out). */
export const SessionChangedNotification = 'labAgent/sessionChanged';
export type SessionChangedParams = { session: AgentSessionSettings | null };

/** server → client notification: whether remote features currently work. */
export const SessionStatusNotification = 'labAgent/sessionStatus';
export interface SessionStatusParams {
  state: 'none' | 'connected' | 'error';
  /** For 'error': a message the user can act on. */
  message?: string;
  /** For 'error': the agent's machine code, e.g. expired_agent_session. */
  code?: string;
}

/** client → server request: drop cached catalogue data (templates, images, icons, network types). */
export const RefreshCatalogueRequest = 'labAgent/refreshCatalogue';

/** client → server notification: the lab's stored state changed (after deploy, import, reconcile). */
export const LabStateChangedNotification = 'labAgent/labStateChanged';
export interface LabStateChangedParams {
  uri: string;
}

/**
 * Client commands that code lenses run. Every lens passes one argument of
 * type LensCommandArgs.
 */
export const LensCommand = {
  plan: 'labAgent.plan',
  deploy: 'labAgent.deploy',
  reconcile: 'labAgent.reconcile',
  destroy: 'labAgent.destroy',
  startNode: 'labAgent.startNode',
  stopNode: 'labAgent.stopNode',
  openConsole: 'labAgent.openConsole',
} as const;

export interface LensCommandArgs {
  /** The lab document's URI. */
  uri: string;
  /** The node, for node lenses. */
  node?: string;
}
