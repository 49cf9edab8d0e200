/**
 * Custom messages between the extension host (client/) and the language
 * server (server/). Each message is a typed NotificationType or RequestType
 * (as vscode-eslint's customMessages.ts does): both sides send and handle
 * these objects, so a wrong method name or parameter type breaks the build
 * instead of silently breaking the wire.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-jsonrpc';
import type { Range as LspRange } from 'vscode-languageserver-protocol';
import type { PlanData } from './api/contract';

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

export interface SessionChangedParams {
  session: AgentSessionSettings | null;
}
/** client → server notification: the session changed (null: logged out). */
export const SessionChangedNotification = new NotificationType<SessionChangedParams>('labAgent/sessionChanged');

export interface SessionStatusParams {
  state: 'none' | 'connected' | 'error';
  /** For 'error': a message the user can act on. */
  message?: string;
  /** For 'error': the agent's machine code, e.g. expired_agent_session. */
  code?: string;
}
/** server → client notification: whether remote features currently work. */
export const SessionStatusNotification = new NotificationType<SessionStatusParams>('labAgent/sessionStatus');

/** client → server request: drop cached catalogue data (templates, images, icons, network types). */
export const RefreshCatalogueRequest = new RequestType0<null, void>('labAgent/refreshCatalogue');

export interface LabStateChangedParams {
  uri: string;
}
/** client → server notification: the lab's stored state changed (after deploy, import, reconcile). */
export const LabStateChangedNotification = new NotificationType<LabStateChangedParams>('labAgent/labStateChanged');

export interface PlanParams {
  uri: string;
}
/**
 * The lab's plan (to_emu) as the plan lens shows it, or why there is none: `code` is the agent's
 * error code, or syntax_errors, invalid_lab, file_refused, not_logged_in.
 */
export type LabPlan = { ok: true; plan: PlanData } | { ok: false; code: string; message: string };
/**
 * client → server request: the plan of an open lab document's current version. The server makes
 * one per version and lab state and shares it with the plan lens, so the topology's drift, the
 * plan document and the lens show the same plan; null when the document is not open.
 */
export const PlanRequest = new RequestType<PlanParams, LabPlan | null, void>('labAgent/plan');

export interface NodeStatesParams {
  uri: string;
  /** Each deployed node's state by name (decisions §7); null when the live lab cannot be read now. */
  states: Record<string, string> | null;
}
/** client → server notification: the node states the Labs view last read, so node lenses offer what fits. */
export const NodeStatesNotification = new NotificationType<NodeStatesParams>('labAgent/nodeStates');

/** A topology request names the lab document; the server answers from its cached model. */
export interface TopologyParams {
  uri: string;
}

export interface TopologyNode {
  name: string;
  template?: string;
  icon?: string;
  /** The node's `position` (its own or from `defaults`); absent: laid out automatically. */
  position?: { x: number; y: number };
  /** The whole entry, key through value. */
  range: LspRange;
  nameRange: LspRange;
}

export interface TopologyNetwork {
  name: string;
  type?: string;
  range: LspRange;
  nameRange: LspRange;
}

export interface TopologyEndpoint {
  text: string;
  node?: string;
  interface?: string;
  network?: string;
  range: LspRange;
}

export interface TopologyLink {
  /** Position in the `links` list. */
  index: number;
  range: LspRange;
  endpoints: TopologyEndpoint[];
}

/** The lab as the language server reads it now, for the topology view. */
export interface TopologyData {
  uri: string;
  /** The document version the answer describes. */
  version: number;
  name?: string;
  nodes: TopologyNode[];
  networks: TopologyNetwork[];
  links: TopologyLink[];
  /** What keeps parts of the lab from being read: syntax errors and format issues, first ones first. */
  problems: { message: string; line: number }[];
  /** How many problems there are in all (problems holds the first few). */
  problemCount: number;
}

/** client → server: the lab's topology; null when the document is not open in the server. */
export const TopologyRequest = new RequestType<TopologyParams, TopologyData | null, void>('labAgent/topology');

/** An edit the topology view asks for; each changes only the lines that must change. */
export type TopologyChange =
  | { kind: 'position'; node: string; x: number; y: number }
  | { kind: 'addLink'; endpoints: [string, string] }
  | { kind: 'deleteLink'; index: number };

export interface TopologyEditParams {
  uri: string;
  /** The version the change was made against: a document that moved on since is refused. */
  version: number;
  change: TopologyChange;
}

export interface TopologyTextEdit {
  range: LspRange;
  newText: string;
}

export type TopologyEditResult = { edits: TopologyTextEdit[] } | { error: string };

/** client → server: the text edits for a change made in the topology view (the client applies them). */
export const TopologyEditRequest = new RequestType<TopologyEditParams, TopologyEditResult, void>(
  'labAgent/topologyEdit',
);

export interface FreeInterfacesParams {
  uri: string;
  node: string;
}

/** The node's interfaces no link uses, in order, from the same catalogue data as completion. */
export type FreeInterfacesResult = { interfaces: string[] } | { error: string };

export const FreeInterfacesRequest = new RequestType<FreeInterfacesParams, FreeInterfacesResult, void>(
  'labAgent/freeInterfaces',
);
