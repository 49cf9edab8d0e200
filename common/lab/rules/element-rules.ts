/**
 * The rules of a lab document that need nothing but the document: each looks at
 * one element (or the lab's name) and says what is wrong with it, as read. What
 * the editor keeps between versions to run them only on what changed is
 * validate.ts (LabChecks).
 */
import {
  CONSOLE_TYPES,
  ELEMENT_NAME_PATTERN,
  MAX_ELEMENT_NAME_LENGTH,
  LAB_NAME_PATTERN,
  NUMBER_FIELDS,
  POSITION_LIMITS,
  listInProse,
} from './format';
import { closestNames } from '../../closest-names';
import type {
  LabDocument,
  LocalDiagnostic,
  LabLink,
  LabNetwork,
  LabNode,
  LinkEndpoint,
  NodeFields,
  SyntaxError,
} from '../model/types';

type Path = (string | number)[];

/** What the rules find on an element without fault, shared so that it costs nothing to keep. */
export const NONE: readonly LocalDiagnostic[] = [];

export function syntaxFinding(error: SyntaxError): LocalDiagnostic {
  if (error.code) return { range: error.range, message: error.message, severity: 'error', code: error.code };
  return { range: error.range, message: `YAML syntax: ${error.message}`, severity: 'error', code: 'yaml-syntax' };
}

/** What is wrong with the lab's name (or its absence), if anything. */
export function labNameFinding(doc: LabDocument): LocalDiagnostic | undefined {
  const name = doc.name;
  if (!name) {
    const firstLineEnd = doc.text.indexOf('\n');
    return {
      range: { start: 0, end: firstLineEnd < 0 ? doc.text.length : firstLineEnd },
      path: ['name'],
      severity: 'warning',
      code: 'missing-name',
      message:
        'the lab has no name; add e.g. name: campus at the top (it names the emulator lab /lab-agent/<name>.unl)',
    };
  }
  if (!LAB_NAME_PATTERN.test(name.value) || name.value.trim() === '') {
    return {
      range: name.range,
      path: ['name'],
      severity: 'error',
      code: 'invalid-lab-name',
      message: `the lab name may only use letters, digits, spaces and _ + - (it becomes the emulator path /lab-agent/<name>.unl); "${name.value}" does not fit`,
    };
  }
  return undefined;
}

/**
 * Endpoint `index` of `link` uses node interface `key`, which the links `others` use too
 * (none: this link uses it twice). As read: ranges before the link's delta, its own index.
 */
export function interfaceInUseFinding(
  key: string,
  link: LabLink,
  index: number,
  others: readonly LabLink[],
): LocalDiagnostic {
  const endpoint = link.endpoints[index];
  const where =
    others.length > 0
      ? `also used by the link ${listInProse(others.map(describeLink), 'and')}`
      : 'used twice in this link';
  return {
    range: endpoint.interfaceRange ?? endpoint.range,
    path: ['links', link.index, 'endpoints', index],
    severity: 'error',
    code: 'interface-in-use',
    message: `${key} is ${where}; an interface takes one link`,
  };
}

/**
 * Node settings with a range of numbers. Loops that run for every element at
 * every edit are indexed over constants: for-of makes an iterator result per
 * step wherever V8 does not optimize the loop (as in the interpreter and baseline compiler).
 */
const NUMBER_FIELD_NAMES = ['cpu', 'ram', 'ethernet'] as const;

/** Why a node or network name is refused, or undefined when it is fine. */
function elementNameProblem(kind: 'node' | 'network', name: string): string | undefined {
  if (ELEMENT_NAME_PATTERN.test(name)) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    return kind === 'node'
      ? `node name "${name}" may only use letters, digits, - and _ (it is written in link endpoints as ${name}:<interface>)`
      : `network name "${name}" may only use letters, digits, - and _`;
  if (name.startsWith('-'))
    return `${kind} name "${name}" must not start with - (the emulator would read it as an option); start it with a letter, digit or _`;
  return `${kind} name "${name.slice(0, 20)}…" is ${name.length} characters long; at most ${MAX_ELEMENT_NAME_LENGTH} (it becomes a host name)`;
}

/**
 * The template and interface name that messages give as examples: the connected agent's own
 * (`frr` and `eth0` on a Linux agent) when the caller knows them, EVE-NG's otherwise.
 */
export interface MessageExamples {
  template: string;
  interfaceName: string;
}

/** Without an agent's catalogue: EVE-NG's, as in the samples and the docs. */
export const DEFAULT_MESSAGE_EXAMPLES: MessageExamples = { template: 'vios', interfaceName: 'Gi0/0' };

export function checkNode(node: LabNode, out: LocalDiagnostic[], examples: MessageExamples): void {
  const path = ['nodes', node.name];
  const nameProblem = elementNameProblem('node', node.name);
  if (nameProblem) {
    out.push({
      range: node.nameRange,
      path,
      severity: 'error',
      code: 'invalid-node-name',
      message: nameProblem,
    });
  }
  if (node.resolved.template === undefined) {
    out.push({
      range: node.nameRange,
      path,
      severity: 'error',
      code: 'missing-template',
      message: `node ${node.name} has no template; add e.g. template: ${examples.template} (or set a template under defaults)`,
    });
  }
  checkFields(node.fields, path, out);
}

export function checkNetwork(network: LabNetwork, out: LocalDiagnostic[]): void {
  const problem = elementNameProblem('network', network.name);
  if (!problem) return;
  out.push({
    range: network.nameRange,
    path: ['networks', network.name],
    severity: 'error',
    code: 'invalid-network-name',
    message: problem,
  });
}

/** Value rules of node settings written on a node or under defaults (their types were checked while reading). */
export function checkFields(fields: NodeFields, path: Path, out: LocalDiagnostic[]): void {
  if (fields.console && !(CONSOLE_TYPES as readonly string[]).includes(fields.console.value)) {
    out.push({
      range: fields.console.range,
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
        range: field.range,
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
      range: position.range,
      path: [...path, 'position'],
      severity: 'error',
      code: 'out-of-range',
      message: `position ${outside.join(' and ')} must be between ${POSITION_LIMITS.min} and ${POSITION_LIMITS.max} (${POSITION_LIMITS.meaning})`,
    });
  }
  const config = fields.config;
  if (config && !isRelativeInside(config.value)) {
    out.push({
      range: config.range,
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

/** What is wrong with one link, as read: its own shape, and endpoints naming no node or network of the lab. */
export function checkLink(
  link: LabLink,
  nodes: ReadonlySet<string>,
  networks: ReadonlySet<string>,
  examples: MessageExamples,
): readonly LocalDiagnostic[] {
  const out: LocalDiagnostic[] = [];
  const endpoints = link.endpoints;
  if (endpoints.length !== 2) {
    out.push({
      range: link.range,
      path: ['links', link.index, 'endpoints'],
      severity: 'error',
      code: 'endpoint-count',
      message: `a link joins exactly two endpoints; this one has ${endpoints.length}. Write - endpoints: [r1:${examples.interfaceName}, r2:${examples.interfaceName}]`,
    });
  }
  for (let index = 0; index < endpoints.length; index++)
    checkEndpoint(endpoints[index], link.index, index, nodes, networks, examples, out);
  if (endpoints.length === 2) {
    const a = endpoints[0];
    const b = endpoints[1];
    if (a.network !== undefined && b.network !== undefined) {
      out.push({
        range: link.range,
        path: ['links', link.index],
        severity: 'error',
        code: 'two-networks',
        message: `a link joins a node interface to another node interface or to a network; ${a.network} and ${b.network} are both networks`,
      });
    } else if (a.text !== '' && sameEnd(a, b)) {
      out.push({
        range: b.range,
        path: ['links', link.index, 'endpoints', 1],
        severity: 'error',
        code: 'same-endpoints',
        message: `both ends of this link are ${a.text}; a link joins two different interfaces`,
      });
    }
  }
  return out.length > 0 ? out : NONE;
}

/** The node interfaces a link uses; none for a link whose two ends are the same (reported as such). */
export function interfaceKeys(link: LabLink): readonly string[] {
  const endpoints = link.endpoints;
  if (endpoints.length === 2 && endpoints[0].network === undefined && endpoints[0].text !== '')
    if (sameEnd(endpoints[0], endpoints[1])) return [];
  const keys: string[] = [];
  for (let i = 0; i < endpoints.length; i++) {
    const key = interfaceKey(endpoints[i]);
    if (key !== undefined) keys.push(key);
  }
  return keys;
}

/**
 * `node:interface` for an endpoint that names both; the endpoint's own text
 * when it is written just so, as nearly every one is (no string is made).
 */
export function interfaceKey(endpoint: LinkEndpoint): string | undefined {
  const { node, interface: name, text } = endpoint;
  if (!node || !name) return undefined;
  return text.length === node.length + 1 + name.length ? text : `${node}:${name}`;
}

function sameEnd(a: LinkEndpoint, b: LinkEndpoint): boolean {
  if (a.network !== undefined) return a.network === b.network;
  return a.node !== undefined && a.node === b.node && a.interface === b.interface;
}

function checkEndpoint(
  endpoint: LinkEndpoint,
  linkIndex: number,
  index: number,
  nodes: ReadonlySet<string>,
  networks: ReadonlySet<string>,
  examples: MessageExamples,
  out: LocalDiagnostic[],
): void {
  const node = endpoint.node;
  if (node !== undefined) {
    if (node === '') {
      out.push({
        range: endpoint.range,
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'missing-node',
        message: `write the node name before the colon, e.g. r1${endpoint.text}`,
      });
    } else if (!nodes.has(node)) {
      out.push({
        range: endpoint.nodeRange ?? endpoint.range,
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'unknown-node',
        message: networks.has(node)
          ? `${node} is a network, which has no interfaces; write just ${node}`
          : `${node} is not a node of this lab; define it under nodes${suggestions(node, nodes)}`,
      });
    }
    if (endpoint.interface === '') {
      out.push({
        range: endpoint.range,
        path: ['links', linkIndex, 'endpoints', index],
        severity: 'error',
        code: 'missing-interface',
        message: `${node}: names no interface; write ${node || 'r1'}:<interface>, e.g. ${node || 'r1'}:${examples.interfaceName}`,
      });
    }
    return;
  }
  const network = endpoint.network;
  if (network !== undefined && !networks.has(network)) {
    out.push({
      range: endpoint.range,
      path: ['links', linkIndex, 'endpoints', index],
      severity: 'error',
      code: 'unknown-network',
      message: nodes.has(network)
        ? `${network} is a node; name one of its interfaces, e.g. ${network}:${examples.interfaceName}`
        : `${network} is not a network of this lab; define it under networks, or write node:interface for a node`,
    });
  }
}

/** ", or did you mean r4?" with the closest names (never the first few of many, which may miss the one meant). */
function suggestions(wanted: string, nodes: ReadonlySet<string>): string {
  const names = closestNames(wanted, nodes, 5);
  return names.length === 0 ? '' : `, or did you mean ${listInProse(names, 'or')}?`;
}
