/**
 * validateLab: the checks that need nothing but the document itself, so the
 * editor can run them on every edit. What only the agent knows (templates,
 * images, icons, network types, interface names) is checked by the agent's
 * validate, which reuses this diagnostic shape and its paths.
 *
 * Everything is indexed by name first, so a 2,000-node lab takes a few
 * milliseconds.
 */
import {
  CONSOLE_TYPES,
  ELEMENT_NAME_PATTERN,
  LAB_NAME_PATTERN,
  LINK_EXAMPLE,
  NUMBER_FIELDS,
  POSITION_LIMITS,
  listInProse,
} from './format';
import { shiftRange } from './outline';
import type { LabDocument, LabLink, LabNetwork, LabNode, LinkEndpoint, NodeFields, Range } from './types';

export interface LocalDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning';
  /** Stable machine code, e.g. `unknown-node`; docs/lab-format.md lists them. */
  code: string;
  /** Keys and list indexes from the document root to the offending value. */
  path?: (string | number)[];
}

type Path = (string | number)[];

export function validateLab(doc: LabDocument): LocalDiagnostic[] {
  return validateLabUpTo(doc, Infinity).shown;
}

/**
 * The first `limit` findings of validateLab, and how many there are in all.
 * A document whose syntax error spreads has tens of thousands; an editor shows
 * a capped number, so the others are only counted (syntax errors and format
 * issues without building them).
 */
export function validateLabUpTo(doc: LabDocument, limit: number): { shown: LocalDiagnostic[]; total: number } {
  const out = new Findings(limit);
  const syntax = doc.syntaxErrors;
  const built = Math.min(syntax.length, limit);
  for (let i = 0; i < built; i++) {
    const error = syntax[i];
    out.push({ range: error.range, message: `YAML syntax: ${error.message}`, severity: 'error', code: 'yaml-syntax' });
  }
  out.uncounted += syntax.length - built;
  const issues = doc.formatIssues ?? [];
  const room = Math.max(0, Math.min(issues.length, limit - out.shown.length));
  for (let i = 0; i < room; i++) out.push({ ...issues[i], severity: 'error' });
  out.uncounted += issues.length - room;
  checkLabName(doc, out);
  checkFields(doc.defaults, ['defaults'], 0, out);
  // Elements are read as they were parsed (see LabDocument.forEachAsRead): an edit costs no copy of the lab.
  doc.forEachAsRead('nodes', (node, delta) => checkNode(node, delta, out));
  doc.forEachAsRead('networks', (network, delta) => checkNetwork(network, delta, out));
  checkLinks(doc, doc.namesOf('nodes'), doc.namesOf('networks'), out);
  return { shown: out.shown, total: out.shown.length + out.uncounted };
}

/**
 * Node settings with a range of numbers. Loops that run for every element at
 * every edit are indexed over constants: for-of makes an iterator result per
 * step wherever V8 does not optimize the loop (the server runs --optimize-for-size).
 */
const NUMBER_FIELD_NAMES = ['cpu', 'ram', 'ethernet'] as const;

/** Findings kept up to a limit, the others counted. */
class Findings {
  readonly shown: LocalDiagnostic[] = [];
  uncounted = 0;

  constructor(private readonly limit: number) {}

  push(finding: LocalDiagnostic): void {
    if (this.shown.length < this.limit) this.shown.push(finding);
    else this.uncounted++;
  }
}

function checkLabName(doc: LabDocument, out: Findings): void {
  const name = doc.name;
  if (!name) {
    const firstLineEnd = doc.text.indexOf('\n');
    out.push({
      range: { start: 0, end: firstLineEnd < 0 ? doc.text.length : firstLineEnd },
      path: ['name'],
      severity: 'warning',
      code: 'missing-name',
      message:
        'the lab has no name; add e.g. name: campus at the top (it names the emulator lab /lab-agent/<name>.unl)',
    });
  } else if (!LAB_NAME_PATTERN.test(name.value) || name.value.trim() === '') {
    out.push({
      range: name.range,
      path: ['name'],
      severity: 'error',
      code: 'invalid-lab-name',
      message: `the lab name may only use letters, digits, spaces and _ + - (it becomes the emulator path /lab-agent/<name>.unl); "${name.value}" does not fit`,
    });
  }
}

function checkNode(node: LabNode, delta: number, out: Findings): void {
  const path = ['nodes', node.name];
  if (!ELEMENT_NAME_PATTERN.test(node.name)) {
    out.push({
      range: shiftRange(node.nameRange, delta),
      path,
      severity: 'error',
      code: 'invalid-node-name',
      message: `node name "${node.name}" may only use letters, digits, - and _ (it is written in link endpoints as ${node.name}:<interface>)`,
    });
  }
  if (node.resolved.template === undefined) {
    out.push({
      range: shiftRange(node.nameRange, delta),
      path,
      severity: 'error',
      code: 'missing-template',
      message: `node ${node.name} has no template; add e.g. template: vios (or set a template under defaults)`,
    });
  }
  checkFields(node.fields, path, delta, out);
}

function checkNetwork(network: LabNetwork, delta: number, out: Findings): void {
  if (ELEMENT_NAME_PATTERN.test(network.name)) return;
  out.push({
    range: shiftRange(network.nameRange, delta),
    path: ['networks', network.name],
    severity: 'error',
    code: 'invalid-network-name',
    message: `network name "${network.name}" may only use letters, digits, - and _`,
  });
}

/** Value rules of node settings written on a node or under defaults (their types were checked while reading). */
function checkFields(fields: NodeFields, path: Path, delta: number, out: Findings): void {
  if (fields.console && !(CONSOLE_TYPES as readonly string[]).includes(fields.console.value)) {
    out.push({
      range: shiftRange(fields.console.range, delta),
      path: [...path, 'console'],
      severity: 'error',
      code: 'bad-console',
      message: `console must be ${listInProse(CONSOLE_TYPES)}; "${fields.console.value}" is not one of them`,
    });
  }
  for (let i = 0; i < NUMBER_FIELD_NAMES.length; i++) {
    const name = NUMBER_FIELD_NAMES[i];
    const field = fields[name];
    const limits = NUMBER_FIELDS[name];
    if (field && (field.value < limits.min || field.value > limits.max)) {
      out.push({
        range: shiftRange(field.range, delta),
        path: [...path, name],
        severity: 'error',
        code: 'out-of-range',
        message: `${name} must be between ${limits.min} and ${limits.max} (${limits.meaning}), e.g. ${name}: ${limits.example}`,
      });
    }
  }
  const position = fields.position;
  if (position && !(inPositionLimits(position.value.x) && inPositionLimits(position.value.y))) {
    const outside = (['x', 'y'] as const).filter((axis) => !inPositionLimits(position.value[axis]));
    out.push({
      range: shiftRange(position.range, delta),
      path: [...path, 'position'],
      severity: 'error',
      code: 'out-of-range',
      message: `position ${outside.join(' and ')} must be between ${POSITION_LIMITS.min} and ${POSITION_LIMITS.max} (${POSITION_LIMITS.meaning})`,
    });
  }
  const config = fields.config;
  if (config && !isRelativeInside(config.value)) {
    out.push({
      range: shiftRange(config.range, delta),
      path: [...path, 'config'],
      severity: 'error',
      code: 'invalid-config-path',
      message: `config is a path relative to the lab file and inside its folder, e.g. configs/r1.cfg; "${config.value}" is not`,
    });
  }
}

function inPositionLimits(value: number): boolean {
  return value >= POSITION_LIMITS.min && value <= POSITION_LIMITS.max;
}

/** A relative path that stays inside the lab's folder: no leading /, no drive letter, no backslashes, no `..`, no control characters. */
function isRelativeInside(path: string): boolean {
  if (path.startsWith('/') || path.includes('\\') || DRIVE_LETTER.test(path)) return false;
  return !CONTROL_CHARACTER.test(path) && !PARENT_SEGMENT.test(path);
}

const DRIVE_LETTER = /^[A-Za-z]:/;
// eslint-disable-next-line no-control-regex -- a NUL or newline in a path is exactly what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const PARENT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;

function describeLink(link: LabLink): string {
  return link.endpoints.map((e) => e.text).join(' -- ');
}

/** Where a node interface is used. */
interface Use {
  link: LabLink;
  endpoint: LinkEndpoint;
  index: number;
  delta: number;
  linkIndex: number;
}

function checkLinks(doc: LabDocument, nodes: ReadonlySet<string>, networks: ReadonlySet<string>, out: Findings): void {
  // A clean lab allocates nothing per link: interfaces are counted first, and where they are used is only
  // gathered again when one is used twice.
  /** How many times each node interface is used (an interface takes one link), by interfaceKey. */
  const uses = new Map<string, number>();
  let repeated = false;
  doc.forEachAsRead('links', (link, delta, indexShift) => {
    const linkIndex = link.index + indexShift;
    const endpoints = link.endpoints;
    if (endpoints.length !== 2) {
      out.push({
        range: shiftRange(link.range, delta),
        path: ['links', linkIndex, 'endpoints'],
        severity: 'error',
        code: 'endpoint-count',
        message: `a link joins exactly two endpoints; this one has ${endpoints.length}. Write ${LINK_EXAMPLE}`,
      });
    }
    for (let index = 0; index < endpoints.length; index++)
      checkEndpoint(endpoints[index], delta, linkIndex, index, nodes, networks, out);
    if (endpoints.length === 2) {
      const a = endpoints[0];
      const b = endpoints[1];
      if (a.network !== undefined && b.network !== undefined) {
        out.push({
          range: shiftRange(link.range, delta),
          path: ['links', linkIndex],
          severity: 'error',
          code: 'two-networks',
          message: `a link joins a node interface to another node interface or to a network; ${a.network} and ${b.network} are both networks`,
        });
      } else if (a.text !== '' && sameEnd(a, b)) {
        out.push({
          range: shiftRange(b.range, delta),
          path: ['links', linkIndex, 'endpoints', 1],
          severity: 'error',
          code: 'same-endpoints',
          message: `both ends of this link are ${a.text}; a link joins two different interfaces`,
        });
        return;
      }
    }
    for (let index = 0; index < endpoints.length; index++) {
      const key = interfaceKey(endpoints[index]);
      if (key === undefined) continue;
      const count = (uses.get(key) ?? 0) + 1;
      uses.set(key, count);
      if (count > 1) repeated = true;
    }
  });
  if (repeated) reportInterfacesInUse(doc, uses, out);
}

/**
 * `node:interface` for an endpoint that names both; the endpoint's own text
 * when it is written just so, as nearly every one is (no string is made).
 */
function interfaceKey(endpoint: LinkEndpoint): string | undefined {
  const { node, interface: name, text } = endpoint;
  if (!node || !name) return undefined;
  return text.length === node.length + 1 + name.length ? text : `${node}:${name}`;
}

/** The uses of each interface used more than once, in the order of their first uses. */
function reportInterfacesInUse(doc: LabDocument, uses: Map<string, number>, out: Findings): void {
  const lists = new Map<string, Use[]>();
  doc.forEachAsRead('links', (link, delta, indexShift) => {
    const endpoints = link.endpoints;
    // A link with both ends the same is reported as such, not as a repeated interface.
    if (endpoints.length === 2 && endpoints[0].text !== '' && sameEnd(endpoints[0], endpoints[1])) return;
    endpoints.forEach((endpoint, index) => {
      const key = interfaceKey(endpoint);
      if (key === undefined || (uses.get(key) ?? 0) < 2) return;
      const use = { link, endpoint, index, delta, linkIndex: link.index + indexShift };
      const list = lists.get(key);
      if (list) list.push(use);
      else lists.set(key, [use]);
    });
  });
  for (const [key, list] of lists) {
    for (const use of list) {
      const others = list.filter((other) => other.link !== use.link).map((other) => describeLink(other.link));
      const where =
        others.length > 0 ? `also used by the link ${listInProse(others, 'and')}` : 'used twice in this link';
      out.push({
        range: shiftRange(use.endpoint.interfaceRange ?? use.endpoint.range, use.delta),
        path: ['links', use.linkIndex, 'endpoints', use.index],
        severity: 'error',
        code: 'interface-in-use',
        message: `${key} is ${where}; an interface takes one link`,
      });
    }
  }
}

function sameEnd(a: LinkEndpoint, b: LinkEndpoint): boolean {
  if (a.network !== undefined) return a.network === b.network;
  return a.node !== undefined && a.node === b.node && a.interface === b.interface;
}

function checkEndpoint(
  endpoint: LinkEndpoint,
  delta: number,
  linkIndex: number,
  index: number,
  nodes: ReadonlySet<string>,
  networks: ReadonlySet<string>,
  out: Findings,
): void {
  const node = endpoint.node;
  if (node !== undefined) {
    if (node === '') {
      out.push({
        range: shiftRange(endpoint.range, delta),
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'missing-node',
        message: `write the node name before the colon, e.g. r1${endpoint.text}`,
      });
    } else if (!nodes.has(node)) {
      out.push({
        range: shiftRange(endpoint.nodeRange ?? endpoint.range, delta),
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'unknown-node',
        message: networks.has(node)
          ? `${node} is a network, which has no interfaces; write just ${node}`
          : `${node} is not a node of this lab; define it under nodes${suggestions(nodes)}`,
      });
    }
    if (endpoint.interface === '') {
      out.push({
        range: shiftRange(endpoint.range, delta),
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'missing-interface',
        message: `${node}: names no interface; write ${node || 'r1'}:<interface>, e.g. ${node || 'r1'}:Gi0/0`,
      });
    }
    return;
  }
  const network = endpoint.network;
  if (network !== undefined && !networks.has(network)) {
    out.push({
      range: shiftRange(endpoint.range, delta),
      path: ['links', linkIndex, 'endpoints', index],
      severity: 'error',
      code: 'unknown-network',
      message: nodes.has(network)
        ? `${network} is a node; name one of its interfaces, e.g. ${network}:Gi0/0`
        : `${network} is not a network of this lab; define it under networks, or write node:interface for a node`,
    });
  }
}

/** ", or use one of: r1, r2, …" with at most a handful of names. */
function suggestions(nodes: ReadonlySet<string>): string {
  const names: string[] = [];
  for (const name of nodes) {
    if (names.length === 5) break;
    names.push(name);
  }
  if (names.length === 0) return '';
  return `, or use one of: ${names.join(', ')}${nodes.size > names.length ? ', …' : ''}`;
}
