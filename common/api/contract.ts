/**
 * The Network Lab Orchestration Agent HTTP API v1, as types and one table of
 * operations. Both the API client (common/api/client.ts) and the reference
 * agent (agent/) are built from this file, so the two ends cannot drift.
 *
 * Shapes the contract leaves "not shown" are decided in docs/contract-decisions.md;
 * the types below follow that document (section numbers in the comments).
 */

export const DEFAULT_PORT = 8787;
/** Maximum JSON body, both directions (contract "Limits"). */
export const MAX_BODY_BYTES = 33_554_432;
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
export const TICKET_TTL_MS = 30_000;
export const TICKET_PATTERN = /^[0-9a-f]{64}$/;
export const STREAM_UPGRADE = 'emu-telnet';
/** The media type of a capture stream's body (decisions §14). */
export const PCAPNG_MEDIA_TYPE = 'application/x-pcapng';
/** The trailer that says why a capture ended by itself (decisions §14). */
export const CAPTURE_END_TRAILER = 'capture-end';
/** The media type of a capture's summaries stream: one JSON object a line (decisions §14). */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';
/** Bounds of a capture request (decisions §14). */
export const CAPTURE_LIMITS = {
  targets: 16,
  filterChars: 1024,
  snaplen: { min: 64, max: 262_144 },
  durationMs: { min: 1000, max: 3_600_000 },
  maxBytes: { min: 65_536, max: 1_073_741_824 },
} as const;

// ---------------------------------------------------------------- envelope

export interface Envelope<T = unknown> {
  ok: boolean;
  data?: T;
  error?: string;
  code?: string;
}

/**
 * Every machine code the contract names, plus the ones the project added
 * (decisions §2). The agent sends only these; the set stays open for what
 * another agent may send, so received codes are strings.
 */
export const ERROR_CODES = [
  // contract
  'unauthenticated',
  'expired_agent_session',
  'expired_emu_session',
  'invalid_credentials',
  'invalid_direction',
  'plan_stale',
  'lab_exists',
  'operation_not_allowed',
  'lab_busy',
  'lab_locked',
  'lab_locked_mid_apply',
  'browser_token_invalid',
  'tls_required',
  'tls_untrusted',
  'tls_pin_mismatch',
  // project decisions (server side)
  'invalid_request',
  'invalid_json',
  'payload_too_large',
  'not_found',
  'method_not_allowed',
  'lab_not_found',
  'node_not_found',
  'node_not_running',
  'invalid_lab',
  'upgrade_required',
  'emu_unreachable',
  'internal_error',
  'agent_busy',
  'agent_stopping',
  'headers_too_large',
  'too_many_logins',
  'interface_not_found',
  'invalid_filter',
  // project decisions (client side only: the agent never sends these)
  'agent_unreachable',
  'timeout',
  'aborted',
  'invalid_response',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes that mean the agent session is gone: logging in again is the way out. */
export const SESSION_ERROR_CODES: readonly ErrorCode[] = [
  'unauthenticated',
  'expired_agent_session',
  'expired_emu_session',
];

/** Whether a code says the session is gone; no code (a reply without one) is not. */
export function isSessionErrorCode(code: string | undefined): boolean {
  return code !== undefined && (SESSION_ERROR_CODES as readonly string[]).includes(code);
}

/** HTTP status the agent uses for each server-side code (decisions §2). */
export const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  unauthenticated: 401,
  expired_agent_session: 401,
  expired_emu_session: 401,
  invalid_credentials: 401,
  invalid_direction: 400,
  plan_stale: 409,
  lab_exists: 409,
  operation_not_allowed: 403,
  lab_busy: 409,
  lab_locked: 423,
  lab_locked_mid_apply: 423,
  browser_token_invalid: 403,
  tls_required: 400,
  invalid_request: 400,
  invalid_json: 400,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  lab_not_found: 404,
  node_not_found: 404,
  node_not_running: 409,
  invalid_lab: 422,
  upgrade_required: 426,
  emu_unreachable: 502,
  internal_error: 500,
  agent_busy: 503,
  agent_stopping: 503,
  headers_too_large: 431,
  too_many_logins: 429,
  interface_not_found: 404,
  invalid_filter: 400,
};

// ---------------------------------------------------------------- requests

export type Direction = 'to_emu' | 'from_emu';

export interface LoginRequest {
  username: string;
  password: string;
}

/** Contents are not read; clients send {}. */
export type LogoutRequest = Record<string, unknown>;

export interface ProjectPayload {
  lab?: string;
  yaml?: string;
  files?: Record<string, string>;
  state?: unknown;
  source?: unknown;
  manifest?: string;
  prune?: boolean;
  wipe?: boolean;
  action?: 'start' | 'stop' | 'wipe';
  node?: string;
  id?: number;
  /** 0 graceful, 1 poweroff, 2 hibernate, 3 auto (default). */
  stopmode?: 0 | 1 | 2 | 3;
  refresh?: boolean;
  replace?: boolean;
  plan_identity?: string;
  /** A free string on the wire; anything but these two (or empty) is 400 invalid_direction. */
  direction?: Direction | (string & {});
  dir?: string;
  out?: string;
}

export interface AuthoringPayload {
  dir?: string;
  yaml?: string;
  node?: string;
  template?: string;
  attributes?: Record<string, unknown>;
  excludeUsed?: boolean;
  eth_format?: string;
}

export interface ConsoleTarget {
  node: string;
  command: string;
}

export interface ConsolePayload {
  lab?: string;
  yaml?: string;
  files?: Record<string, string>;
  state?: unknown;
  manifest?: string;
  node?: string;
  command?: string;
  timeout_ms?: number;
  targets?: ConsoleTarget[];
  dir?: string;
  out?: string;
}

/** startCapture's request (decisions §14): the lab fields of ConsolePayload and what to capture. */
export interface CapturePayload {
  lab?: string;
  yaml?: string;
  files?: Record<string, string>;
  state?: unknown;
  manifest?: string;
  /** `node:interface` names, e.g. `r1:eth1`. */
  targets: string[];
  filter?: string;
  snaplen?: number;
  duration_ms?: number;
  max_bytes?: number;
  /** Also summarize each packet with the agent's tshark (`features.capture_summaries`). */
  summaries?: boolean;
  dir?: string;
  out?: string;
}

export interface ListTemplatesQuery {
  /** Only the exact string "true" filters to provisioned templates. */
  provisioned?: string;
}

// ---------------------------------------------------------------- responses

export interface HealthData {
  status?: string;
  tls?: boolean;
  version?: string;
}
export interface LoginData {
  token?: string;
  username?: string;
}
export interface StatusOkData {
  status?: string;
}
export interface SessionData {
  username?: string;
}

export interface LifecycleCaps {
  start?: boolean;
  stop?: boolean;
  wipe?: boolean;
}
export interface ProjectModeCaps {
  inspect?: boolean;
  open?: boolean;
  console?: boolean;
  topology_mutation?: boolean;
  reconcile?: boolean;
  destroy?: boolean;
  presentation_restore?: boolean;
  source_mutation?: boolean;
  lifecycle?: LifecycleCaps;
}
/** decisions §6: project modes are "managed" (deployed from YAML) and "imported" (import copies). */
export interface CapabilitiesData {
  emuReachable?: boolean;
  /** Why the emulator does not answer, when emuReachable is false (decisions §6). */
  emuProblem?: string;
  emuBaseUrl?: string;
  /** What the agent fronts, in words for people; shown, never parsed (decisions §6). */
  emuDescription?: string;
  features?: Record<string, boolean>;
  projectModes?: Record<string, ProjectModeCaps>;
}

export interface Template {
  id?: string;
  description?: string;
  type?: string;
  provisioned?: boolean;
  configSupported?: boolean;
}
export interface TemplateImage {
  id?: string;
  available?: boolean;
}
export interface TemplateAttribute {
  name?: string;
  label?: string;
  kind?: string;
  group?: string;
  values?: string[];
}
export interface TemplateDetail extends Template {
  images?: TemplateImage[];
  default?: string;
  attributes?: TemplateAttribute[];
}
export interface TemplatesData {
  templates?: Template[];
}
export interface TemplateImagesData {
  template?: string;
  type?: string;
  provisioned?: boolean;
  default?: string;
  images?: TemplateImage[];
}
export interface TemplateAttributesData {
  template?: string;
  type?: string;
  attributes?: TemplateAttribute[];
}
export interface NetworkType {
  id?: string;
  label?: string;
  icon?: string;
  supported?: boolean;
}
export interface NetworkTypesData {
  types?: NetworkType[];
  natOnly?: boolean;
}
/** decisions §4: Icon = id plus label. */
export interface Icon {
  id: string;
  label?: string;
}
export interface IconsData {
  icons?: Icon[];
}

/** decisions §4: one interface of one node. */
export interface Iface {
  node?: string;
  /** The interface name, as the template's eth_format names it (e.g. "Gi0/1"). */
  name?: string;
  /** Zero-based interface index on the node. */
  index?: number;
  used?: boolean;
  /** What the interface is linked to when used: "node:interface" or a network name. */
  peer?: string;
}
export interface LinkCompletionsData {
  node?: string;
  items?: Iface[];
}
export interface InterfacesPreviewData {
  items?: Iface[];
}

/** decisions §5: a diagnostic found by validate, located by a path into the YAML. */
export interface ProjectDiagnostic {
  path?: (string | number)[];
  message?: string;
  severity?: 'error' | 'warning' | 'info';
  code?: string;
}
/** status is "valid" or "invalid"; diagnostics is our extra property. */
export interface ValidateData {
  status: string;
  diagnostics?: ProjectDiagnostic[];
}

export interface ImportData {
  name?: string;
  yaml?: string;
  files?: Record<string, string>;
  mode?: string;
  source_lab?: string;
  managed_lab?: string;
  lab?: string;
  state?: unknown;
  source?: unknown;
}

export interface DeployData {
  lab?: string;
  nodes?: number;
  links?: number;
  state?: unknown;
  unsupported?: string[];
}

/** decisions §4 */
export interface PlanSummary {
  create?: number;
  update?: number;
  delete?: number;
  unchanged?: number;
}
export type PlanOp = 'create' | 'update' | 'delete';
export type PlanKind = 'lab' | 'node' | 'network' | 'link';
/** decisions §4 */
export interface PlanAction {
  op?: PlanOp;
  kind?: PlanKind;
  name?: string;
  /** Fields that change, for updates (and set, for creates). */
  fields?: string[];
  /** Why the action is blocked, for entries of PlanData.blocked. */
  reason?: string;
}
export interface PlanData {
  lab?: string;
  exists?: boolean;
  summary?: PlanSummary;
  operations?: PlanAction[];
  actions?: PlanAction[];
  applicable?: boolean;
  blocked?: PlanAction[];
  text?: string;
  plan_identity?: string;
  locked?: boolean;
  lock?: number;
  direction?: string;
  unsupported?: string[];
}

/** decisions §7: node states. */
export type NodeState = 'stopped' | 'starting' | 'running' | 'stopping';
export interface NodeStatus {
  name?: string;
  id?: number;
  template?: string;
  image?: string;
  state?: NodeState | (string & {});
  /** EVE-NG status code: 0 stopped, 1 starting, 2 running, 3 stopping. */
  status?: number;
  console?: string;
}
/** decisions §7: lab states. */
export type LabState = 'absent' | 'stopped' | 'running' | 'partial';

/** decisions §4 */
export interface ReconcileData {
  lab?: string;
  direction?: string;
  summary?: PlanSummary;
  actions?: PlanAction[];
  changed?: boolean;
  state?: unknown;
  /** from_emu only: the updated desired-state document and files. */
  yaml?: string;
  files?: Record<string, string>;
}
export interface DestroyData {
  lab?: string;
  status?: string;
  wiped?: boolean;
  nodes?: number;
}
export interface ProjectStatusData {
  lab?: string;
  exists?: boolean;
  state?: LabState | (string & {});
  locked?: boolean;
  nodes?: NodeStatus[];
  running?: number;
  total?: number;
}
export interface InspectedInterface {
  name?: string;
  index?: number;
  network?: string;
  peer?: string;
}
export interface InspectedNode extends NodeStatus {
  cpu?: number;
  ram?: number;
  ethernet?: number;
  icon?: string;
  interfaces?: InspectedInterface[];
}
export interface InspectionData {
  lab?: string;
  exists?: boolean;
  cached?: boolean;
  observed_at?: string;
  nodes?: InspectedNode[];
  networks?: { name?: string; type?: string; id?: number }[];
  links?: { a?: string; b?: string }[];
}
export interface OpenData {
  lab?: string;
  exists?: boolean;
  name?: string;
  /** The emulator's own web page for the lab. */
  url?: string;
  nodes?: NodeStatus[];
}
export interface ConsoleInfo {
  node?: string;
  name?: string;
  id?: number;
  console_type?: string;
  state?: string;
  /** The emulator's console address (telnet://host:port); clients attach through the agent. */
  url?: string;
  attachable?: boolean;
}
export interface ConsolesData {
  lab?: string;
  consoles?: ConsoleInfo[];
}

export interface BulkResult {
  requested: number;
  started: number;
  already_running: number;
  already_starting: number;
  stopped: number;
  already_stopped: number;
  wiped: number;
  failed: number;
  invalid: number;
}

/** A bulk result before any node is counted: every outcome present, at zero. */
export function emptyBulkResult(requested = 0): BulkResult {
  return {
    requested,
    started: 0,
    already_running: 0,
    already_starting: 0,
    stopped: 0,
    already_stopped: 0,
    wiped: 0,
    failed: 0,
    invalid: 0,
  };
}

export interface ConsoleExecData {
  node?: string;
  name?: string;
  console_type?: string;
  command?: string;
  output?: string;
  duration_ms?: number;
}
/** decisions §4: one result per target, in target order. */
export interface ConsoleExecResult {
  node?: string;
  command?: string;
  ok?: boolean;
  output?: string;
  duration_ms?: number;
  error?: string;
  code?: string;
}
export interface ConsoleExecManyData {
  results?: ConsoleExecResult[];
}
/** decisions §3: the ticket is in `ticket`, and `stream` is the stream path ending in it. */
export interface ConsoleAttachData {
  node?: string;
  name?: string;
  console_type?: string;
  stream?: string;
  transport?: string;
  ticket?: string;
}

export interface CaptureTargetData {
  target?: string;
  node?: string;
  interface?: string;
}

/** decisions §14 */
export interface CaptureStartData {
  ticket?: string;
  stream?: string;
  format?: string;
  targets?: CaptureTargetData[];
  filter?: string;
  snaplen?: number;
  duration_ms?: number;
  max_bytes?: number;
  /** With `summaries: true`: the summaries stream's own one-time ticket, and its path. */
  summaries_ticket?: string;
  summaries?: string;
}

/** Why a capture ended by itself (the `Capture-End` trailer, decisions §14). */
export type CaptureEnd = 'duration' | 'max_bytes' | 'node_stopped' | 'agent_stopping' | 'failed';

/** One line of the summaries stream for one packet, as the agent's tshark dissects it (decisions §14). */
export interface PacketSummary {
  /** The packet's number in the pcapng stream, from 1. */
  no: number;
  /** Seconds since the epoch, with the capture's nanoseconds (tshark's `frame.time_epoch`). */
  time: string;
  /** The target the packet was seen on, `r1:eth1`. */
  interface: string;
  source: string;
  destination: string;
  protocol: string;
  info: string;
}

/** Why a summaries stream ended (its last line, decisions §14). */
type SummariesEnd = 'complete' | 'lagging' | 'failed';

/** The last line of a summaries stream. */
export interface SummariesEndLine {
  end: SummariesEnd;
  /** Packets summarized, i.e. the summary lines sent. */
  packets: number;
  /** Why, in words, when `end` is not `complete`. */
  message?: string;
}

// ---------------------------------------------------------------- operations

export type HttpMethod = 'GET' | 'POST';

export interface OperationSpec {
  method: HttpMethod;
  /** Path under the base URL; `{id}` / `{ticket}` are filled from path parameters. */
  path: string;
  auth: boolean;
  timeoutMs: number;
  /** Read-style: may be repeated once after re-authenticating. */
  retry: boolean;
}

/** The Endpoints table of the contract, verbatim, then the operations the project added (decisions §14). */
export const OPERATIONS = {
  getHealth: { method: 'GET', path: '/api/v1/health', auth: false, timeoutMs: 15000, retry: false },
  login: { method: 'POST', path: '/api/v1/login', auth: false, timeoutMs: 15000, retry: false },
  logout: { method: 'POST', path: '/api/v1/logout', auth: true, timeoutMs: 15000, retry: false },
  getSession: { method: 'GET', path: '/api/v1/session', auth: true, timeoutMs: 15000, retry: true },
  getCapabilities: { method: 'GET', path: '/api/v1/capabilities', auth: true, timeoutMs: 15000, retry: true },
  listTemplates: { method: 'GET', path: '/api/v1/templates', auth: true, timeoutMs: 15000, retry: true },
  getTemplate: { method: 'GET', path: '/api/v1/templates/{id}', auth: true, timeoutMs: 15000, retry: true },
  listTemplateImages: {
    method: 'GET',
    path: '/api/v1/templates/{id}/images',
    auth: true,
    timeoutMs: 15000,
    retry: true,
  },
  listTemplateAttributes: {
    method: 'GET',
    path: '/api/v1/templates/{id}/attributes',
    auth: true,
    timeoutMs: 15000,
    retry: true,
  },
  listNetworkTypes: { method: 'GET', path: '/api/v1/network-types', auth: true, timeoutMs: 15000, retry: true },
  listIcons: { method: 'GET', path: '/api/v1/icons', auth: true, timeoutMs: 15000, retry: true },
  completeLinkInterfaces: {
    method: 'POST',
    path: '/api/v1/authoring/link-completions',
    auth: true,
    timeoutMs: 15000,
    retry: true,
  },
  previewInterfaces: {
    method: 'POST',
    path: '/api/v1/authoring/interfaces',
    auth: true,
    timeoutMs: 15000,
    retry: true,
  },
  validateProject: { method: 'POST', path: '/api/v1/projects/validate', auth: true, timeoutMs: 15000, retry: true },
  importProject: { method: 'POST', path: '/api/v1/projects/import', auth: true, timeoutMs: 120000, retry: false },
  planProject: { method: 'POST', path: '/api/v1/projects/plan', auth: true, timeoutMs: 180000, retry: true },
  deployProject: { method: 'POST', path: '/api/v1/projects/deploy', auth: true, timeoutMs: 300000, retry: false },
  reconcileProject: { method: 'POST', path: '/api/v1/projects/reconcile', auth: true, timeoutMs: 300000, retry: false },
  destroyProject: { method: 'POST', path: '/api/v1/projects/destroy', auth: true, timeoutMs: 180000, retry: false },
  getProjectStatus: { method: 'POST', path: '/api/v1/projects/status', auth: true, timeoutMs: 15000, retry: true },
  inspectProject: { method: 'POST', path: '/api/v1/projects/inspect', auth: true, timeoutMs: 120000, retry: true },
  openProject: { method: 'POST', path: '/api/v1/projects/open', auth: true, timeoutMs: 30000, retry: true },
  listProjectConsoles: { method: 'POST', path: '/api/v1/projects/consoles', auth: true, timeoutMs: 30000, retry: true },
  execProject: { method: 'POST', path: '/api/v1/projects/exec', auth: true, timeoutMs: 180000, retry: false },
  execConsole: { method: 'POST', path: '/api/v1/console/exec', auth: true, timeoutMs: 15000, retry: false },
  execConsoleMany: { method: 'POST', path: '/api/v1/console/exec-many', auth: true, timeoutMs: 15000, retry: false },
  attachConsole: { method: 'POST', path: '/api/v1/console/attach', auth: true, timeoutMs: 30000, retry: false },
  streamConsole: { method: 'GET', path: '/api/v1/console/stream/{ticket}', auth: true, timeoutMs: 15000, retry: false },
  // Added to v1 (versioning rules 2–3; decisions §14).
  startCapture: { method: 'POST', path: '/api/v1/capture/start', auth: true, timeoutMs: 30000, retry: false },
  streamCapture: { method: 'GET', path: '/api/v1/capture/stream/{ticket}', auth: true, timeoutMs: 15000, retry: false },
  streamCaptureSummaries: {
    method: 'GET',
    path: '/api/v1/capture/summaries/{ticket}',
    auth: true,
    timeoutMs: 15000,
    retry: false,
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;

/** Request and response data of each operation (the two streams have no JSON success). */
export interface OperationTypes {
  getHealth: { req: void; res: HealthData };
  login: { req: LoginRequest; res: LoginData };
  logout: { req: LogoutRequest; res: StatusOkData };
  getSession: { req: void; res: SessionData };
  getCapabilities: { req: void; res: CapabilitiesData };
  listTemplates: { req: ListTemplatesQuery; res: TemplatesData };
  getTemplate: { req: { id: string }; res: TemplateDetail };
  listTemplateImages: { req: { id: string }; res: TemplateImagesData };
  listTemplateAttributes: { req: { id: string }; res: TemplateAttributesData };
  listNetworkTypes: { req: void; res: NetworkTypesData };
  listIcons: { req: void; res: IconsData };
  completeLinkInterfaces: { req: AuthoringPayload; res: LinkCompletionsData };
  previewInterfaces: { req: AuthoringPayload; res: InterfacesPreviewData };
  validateProject: { req: ProjectPayload; res: ValidateData };
  importProject: { req: ProjectPayload & { lab: string }; res: ImportData };
  planProject: { req: ProjectPayload; res: PlanData };
  deployProject: { req: ProjectPayload; res: DeployData };
  reconcileProject: { req: ProjectPayload; res: ReconcileData };
  destroyProject: { req: ProjectPayload; res: DestroyData };
  getProjectStatus: { req: ProjectPayload; res: ProjectStatusData };
  inspectProject: { req: ProjectPayload; res: InspectionData };
  openProject: { req: ProjectPayload; res: OpenData };
  listProjectConsoles: { req: ProjectPayload; res: ConsolesData };
  execProject: { req: ProjectPayload & { action: 'start' | 'stop' | 'wipe' }; res: BulkResult };
  execConsole: { req: ConsolePayload; res: ConsoleExecData };
  execConsoleMany: { req: ConsolePayload; res: ConsoleExecManyData };
  attachConsole: { req: ConsolePayload; res: ConsoleAttachData };
  streamConsole: { req: { ticket: string }; res: never };
  startCapture: { req: CapturePayload; res: CaptureStartData };
  streamCapture: { req: { ticket: string }; res: never };
  streamCaptureSummaries: { req: { ticket: string }; res: never };
}

/** Fills `{id}` / `{ticket}` in an operation's path, URL-encoding each value. */
export function operationPath(op: OperationId, params: Record<string, string> = {}): string {
  return OPERATIONS[op].path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
}
