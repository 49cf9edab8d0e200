/**
 * The shape of each operation's successful reply, checked once at the client's
 * edge so that what reaches completion, views and commands is what contract.ts
 * says: a reply of the wrong shape becomes one `invalid_response` error naming
 * the operation and the first wrong field, instead of a TypeError deep inside a
 * feature. The compiler checks every schema's output against the contract's type.
 *
 * valibot: a schema library of a few kB that tree-shakes to the functions used
 * and runs in both bundles (extension host and language server).
 *
 * Tolerated, as the contract allows: extra properties (kept), absent optional
 * fields; and `null` for an optional field, read as absent (agents written in
 * languages that serialize missing values as null).
 */
import * as v from 'valibot';
import { boundedText } from './agent-text';
import { AgentError } from './errors';
import type { JsonOperationId, Res } from './operations';

/** An optional field: absent, null (read as absent) or of `schema`. */
function opt<T extends v.GenericSchema>(schema: T) {
  return v.optional(
    v.pipe(
      v.nullable(schema),
      v.transform((value) => value ?? undefined),
    ),
  );
}

/** An object with these fields and any others (kept); not an array, which valibot's object schemas take. */
function obj<const E extends v.ObjectEntries>(entries: E) {
  return v.pipe(
    v.custom<Record<string, unknown>>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'an object',
    ),
    v.looseObject(entries),
  );
}

const str = opt(v.string());
const num = opt(v.number());
const bool = opt(v.boolean());
const strings = opt(v.array(v.string()));
const stringMap = opt(v.record(v.string(), v.string()));

const template = {
  id: str,
  description: str,
  type: str,
  provisioned: bool,
  configSupported: bool,
};
const templateImage = obj({ id: str, available: bool });
const templateAttribute = obj({ name: str, label: str, kind: str, group: str, values: strings });
const iface = obj({ node: str, name: str, index: num, used: bool, peer: str });
const planSummary = opt(obj({ create: num, update: num, delete: num, unchanged: num }));
const planAction = obj({
  op: opt(v.picklist(['create', 'update', 'delete'])),
  kind: opt(v.picklist(['lab', 'node', 'network', 'link'])),
  name: str,
  fields: strings,
  reason: str,
});
const planActions = opt(v.array(planAction));
const nodeStatusEntries = {
  name: str,
  id: num,
  template: str,
  image: str,
  state: str,
  status: num,
  console: str,
};
const nodeStatuses = opt(v.array(obj(nodeStatusEntries)));
const lifecycle = obj({ start: bool, stop: bool, wipe: bool });
const projectMode = obj({
  inspect: bool,
  open: bool,
  console: bool,
  topology_mutation: bool,
  reconcile: bool,
  destroy: bool,
  presentation_restore: bool,
  source_mutation: bool,
  lifecycle: opt(lifecycle),
});
const count = v.number();
/** The agent's opaque state and source (decisions §1): anything, stored as received. */
const opaque = v.optional(v.unknown());

const REPLIES = {
  getHealth: obj({ status: str, tls: bool, version: str }),
  login: obj({ token: str, username: str }),
  logout: obj({ status: str }),
  getSession: obj({ username: str }),
  getCapabilities: obj({
    emuReachable: bool,
    emuBaseUrl: str,
    features: opt(v.record(v.string(), v.boolean())),
    projectModes: opt(v.record(v.string(), projectMode)),
  }),
  listTemplates: obj({ templates: opt(v.array(obj(template))) }),
  getTemplate: obj({
    ...template,
    images: opt(v.array(templateImage)),
    default: str,
    attributes: opt(v.array(templateAttribute)),
  }),
  listTemplateImages: obj({
    template: str,
    type: str,
    provisioned: bool,
    default: str,
    images: opt(v.array(templateImage)),
  }),
  listTemplateAttributes: obj({ template: str, type: str, attributes: opt(v.array(templateAttribute)) }),
  listNetworkTypes: obj({
    types: opt(v.array(obj({ id: str, label: str, icon: str, supported: bool }))),
    natOnly: bool,
  }),
  listIcons: obj({ icons: opt(v.array(obj({ id: v.string(), label: str }))) }),
  completeLinkInterfaces: obj({ node: str, items: opt(v.array(iface)) }),
  previewInterfaces: obj({ items: opt(v.array(iface)) }),
  validateProject: obj({
    status: v.string(),
    diagnostics: opt(
      v.array(
        obj({
          path: opt(v.array(v.union([v.string(), v.number()]))),
          message: str,
          severity: opt(v.picklist(['error', 'warning', 'info'])),
          code: str,
        }),
      ),
    ),
  }),
  importProject: obj({
    name: str,
    yaml: str,
    files: stringMap,
    mode: str,
    source_lab: str,
    managed_lab: str,
    lab: str,
    state: opaque,
    source: opaque,
  }),
  planProject: obj({
    lab: str,
    exists: bool,
    summary: planSummary,
    operations: planActions,
    actions: planActions,
    applicable: bool,
    blocked: planActions,
    text: str,
    plan_identity: str,
    locked: bool,
    lock: num,
    direction: str,
    unsupported: strings,
  }),
  deployProject: obj({ lab: str, nodes: num, links: num, state: opaque, unsupported: strings }),
  reconcileProject: obj({
    lab: str,
    direction: str,
    summary: planSummary,
    actions: planActions,
    changed: bool,
    state: opaque,
    yaml: str,
    files: stringMap,
  }),
  destroyProject: obj({ lab: str, status: str, wiped: bool, nodes: num }),
  getProjectStatus: obj({
    lab: str,
    exists: bool,
    state: str,
    locked: bool,
    nodes: nodeStatuses,
    running: num,
    total: num,
  }),
  inspectProject: obj({
    lab: str,
    exists: bool,
    cached: bool,
    observed_at: str,
    nodes: opt(
      v.array(
        obj({
          ...nodeStatusEntries,
          cpu: num,
          ram: num,
          ethernet: num,
          icon: str,
          interfaces: opt(v.array(obj({ name: str, index: num, network: str, peer: str }))),
        }),
      ),
    ),
    networks: opt(v.array(obj({ name: str, type: str, id: num }))),
    links: opt(v.array(obj({ a: str, b: str }))),
  }),
  openProject: obj({ lab: str, exists: bool, name: str, url: str, nodes: nodeStatuses }),
  listProjectConsoles: obj({
    lab: str,
    consoles: opt(
      v.array(
        obj({
          node: str,
          name: str,
          id: num,
          console_type: str,
          state: str,
          url: str,
          attachable: bool,
        }),
      ),
    ),
  }),
  execProject: obj({
    requested: count,
    started: count,
    already_running: count,
    already_starting: count,
    stopped: count,
    already_stopped: count,
    wiped: count,
    failed: count,
    invalid: count,
  }),
  execConsole: obj({
    node: str,
    name: str,
    console_type: str,
    command: str,
    output: str,
    duration_ms: num,
  }),
  execConsoleMany: obj({
    results: opt(
      v.array(
        obj({
          node: str,
          command: str,
          ok: bool,
          output: str,
          duration_ms: num,
          error: str,
          code: str,
        }),
      ),
    ),
  }),
  attachConsole: obj({
    node: str,
    name: str,
    console_type: str,
    stream: str,
    transport: str,
    ticket: str,
  }),
  startCapture: obj({
    ticket: str,
    stream: str,
    format: str,
    targets: opt(v.array(obj({ target: str, node: str, interface: str }))),
    filter: str,
    snaplen: num,
    duration_ms: num,
    max_bytes: num,
  }),
} satisfies { [K in JsonOperationId]: v.GenericSchema<unknown, Res<K>> };

/**
 * The envelope's `data` of a successful `op`, checked against the operation's
 * reply shape; throws `invalid_response` naming the first wrong field.
 */
export function checkReply<K extends JsonOperationId>(op: K, status: number, data: unknown): Res<K> {
  const schema: v.GenericSchema<unknown, Res<K>> = REPLIES[op];
  const result = v.safeParse(schema, data, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  const where = path === null ? 'its data' : `data.${path}`;
  throw new AgentError(
    'invalid_response',
    `${op}: the agent's reply (HTTP ${status}) does not have the shape the API defines: ${where} ${describeIssue(issue)}. Check that the agent implements API v1.`,
    op,
    status,
  );
}

/** "is number, expected string": what was received and what was expected, both bounded. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const input = issue.input;
  if (input === undefined) return 'is missing';
  const received = input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input;
  const expected = issue.type === 'custom' ? issue.message : (issue.expected ?? 'another value');
  return `is ${received}, expected ${boundedText(expected, 80)}`;
}
