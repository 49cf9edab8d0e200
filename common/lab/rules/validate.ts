/**
 * validateLab: the checks that need nothing but the document itself, so the
 * editor can run them on every edit. What only the agent knows (templates,
 * images, icons, network types, interface names) is checked by the agent's
 * validate, which reuses this diagnostic shape and its paths.
 *
 * An editor validates at every edit: LabChecks keeps what it found per node,
 * network and link (as read; see LabDocument.forEachAsRead) and which links use
 * each interface, so that a version costs a look at each element and the
 * checks of those the edits re-read, not every check again.
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
import { shiftRange } from '../parse/outline';
import { validateTests } from './validate-tests';
import type {
  ElementOf,
  LabDocument,
  LocalDiagnostic,
  LabLink,
  LabNetwork,
  LabNode,
  LinkEndpoint,
  NodeFields,
} from '../model/types';

export type { LocalDiagnostic } from '../model/types';

type Path = (string | number)[];

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

export function validateLab(doc: LabDocument, examples?: MessageExamples): LocalDiagnostic[] {
  return validateLabUpTo(doc, Infinity, examples).shown;
}

/**
 * The first `limit` findings of validateLab, and how many there are in all.
 * A document whose syntax error spreads has tens of thousands; an editor shows
 * a capped number, so the others are only counted (syntax errors and format
 * issues without building them).
 */
export function validateLabUpTo(
  doc: LabDocument,
  limit: number,
  examples?: MessageExamples,
): { shown: LocalDiagnostic[]; total: number } {
  return new LabChecks(examples).check(doc, limit);
}

/** What the checks found on one element, as read (ranges before its delta, link indexes before their shift). */
interface Checked {
  findings: readonly LocalDiagnostic[];
  /** The check run that last met the element. */
  seen: number;
}

interface CheckedLink extends Checked {
  /** The node and network names its findings were made against (LabChecks.namesVersion). */
  namesVersion: number;
  /** Where it was in the last version checked: its place among the links, and how to move its ranges and index. */
  order: number;
  delta: number;
  indexShift: number;
}

const NONE: readonly LocalDiagnostic[] = [];

/**
 * The checks of one document's successive versions (see the top of this
 * file). Findings equal validateLabUpTo's for every version; what it keeps
 * follows the elements of the last version checked.
 */
export class LabChecks {
  private run = 0;
  private readonly nodes = new Map<LabNode, Checked>();
  private readonly networks = new Map<LabNetwork, Checked>();
  private readonly links = new Map<LabLink, CheckedLink>();
  /**
   * The links using each node interface (by interfaceKey), once per endpoint:
   * the link itself while it is the only one, as nearly every interface has.
   */
  private readonly holders = new Map<string, LabLink | LabLink[]>();
  /** The interfaces used more than once. */
  private readonly repeated = new Set<string>();
  /** Bumped whenever the node or network names change, or the names an unknown node's message suggests. */
  private namesVersion = 0;

  constructor(private readonly examples: MessageExamples = DEFAULT_MESSAGE_EXAMPLES) {}

  check(doc: LabDocument, limit: number): { shown: LocalDiagnostic[]; total: number } {
    const run = ++this.run;
    const out = new Findings(limit);
    const syntax = doc.syntaxErrors;
    const built = Math.min(syntax.length, limit);
    for (let i = 0; i < built; i++) {
      const error = syntax[i];
      out.push({
        range: error.range,
        message: `YAML syntax: ${error.message}`,
        severity: 'error',
        code: 'yaml-syntax',
      });
    }
    out.uncounted += syntax.length - built;
    const issues = doc.formatIssues ?? [];
    const room = Math.max(0, Math.min(issues.length, limit - out.shown.length));
    for (let i = 0; i < room; i++) out.push({ ...issues[i], severity: 'error' });
    out.uncounted += issues.length - room;
    checkLabName(doc, out);
    const defaults: LocalDiagnostic[] = [];
    checkFields(doc.defaults, ['defaults'], defaults);
    out.pushAll(defaults, 0, 0);

    const renamed: string[] = [];
    this.checkEach(doc, 'nodes', this.nodes, run, renamed, (node, found) => checkNode(node, found, this.examples), out);
    this.checkEach(doc, 'networks', this.networks, run, renamed, checkNetwork, out);
    const nodes = doc.namesOf('nodes');
    const networks = doc.namesOf('networks');
    // Messages name the closest nodes: any change of names may change them.
    if (renamed.length > 0) this.namesVersion++;
    let order = 0;
    doc.forEachAsRead('links', (link, delta, indexShift) => {
      let checked = this.links.get(link);
      if (checked?.namesVersion !== this.namesVersion) {
        if (!checked) {
          checked = { findings: NONE, seen: run, namesVersion: -1, order, delta, indexShift };
          this.links.set(link, checked);
          const keys = interfaceKeys(link);
          for (let i = 0; i < keys.length; i++) this.hold(keys[i], link);
        }
        checked.findings = checkLink(link, nodes, networks, this.examples);
        checked.namesVersion = this.namesVersion;
      }
      checked.seen = run;
      checked.order = order++;
      checked.delta = delta;
      checked.indexShift = indexShift;
      out.pushAll(checked.findings, delta, indexShift);
    });
    // forEach, not for-of: destructuring each entry would make two arrays per link at every version.
    this.links.forEach((checked, link) => {
      if (checked.seen === run) return;
      this.links.delete(link);
      // A link as read never changes, so its keys are those it was held under.
      const keys = interfaceKeys(link);
      for (let i = 0; i < keys.length; i++) this.release(keys[i], link);
    });
    if (this.repeated.size > 0) this.reportInterfacesInUse(out);
    // Tests are few and read nodes by name: checked afresh at each version.
    out.pushAll(validateTests(doc), 0, 0);
    return { shown: out.shown, total: out.shown.length + out.uncounted };
  }

  /**
   * Reports the nodes or networks of `doc` with what was found on each, checking
   * those not met before; forgets those gone. Names met or gone go to `renamed`,
   * unless they merely came back (an element re-read with its name unchanged).
   */
  private checkEach<K extends 'nodes' | 'networks'>(
    doc: LabDocument,
    kind: K,
    known: Map<ElementOf[K], Checked>,
    run: number,
    renamed: string[],
    check: (element: ElementOf[K], out: LocalDiagnostic[]) => void,
    out: Findings,
  ): void {
    const met: string[] = [];
    doc.forEachAsRead(kind, (element, delta) => {
      let checked = known.get(element);
      if (!checked) {
        const findings: LocalDiagnostic[] = [];
        check(element, findings);
        checked = { findings: findings.length > 0 ? findings : NONE, seen: run };
        known.set(element, checked);
        met.push(element.name);
      }
      checked.seen = run;
      out.pushAll(checked.findings, delta, 0);
    });
    const gone: string[] = [];
    known.forEach((checked, element) => {
      if (checked.seen === run) return;
      known.delete(element);
      gone.push(element.name);
    });
    if (met.length === 0 && gone.length === 0) return;
    met.sort();
    gone.sort();
    // A loop, not push(...met, ...gone): spread arguments overflow the stack past about 120,000 names.
    if (met.length !== gone.length || met.some((name, i) => name !== gone[i]))
      for (const name of [met, gone].flat()) renamed.push(name);
  }

  private hold(key: string, link: LabLink): void {
    const holders = this.holders.get(key);
    if (!holders) this.holders.set(key, link);
    else if (!Array.isArray(holders)) {
      this.holders.set(key, [holders, link]);
      this.repeated.add(key);
    } else holders.push(link);
  }

  private release(key: string, link: LabLink): void {
    const holders = this.holders.get(key);
    if (!Array.isArray(holders)) {
      if (holders === link) this.holders.delete(key);
      return;
    }
    holders.splice(holders.indexOf(link), 1);
    if (holders.length > 1) return;
    this.holders.set(key, holders[0]);
    this.repeated.delete(key);
  }

  /** Every use of each interface used more than once, those of the interface used first first, in link order. */
  private reportInterfacesInUse(out: Findings): void {
    const lists: Use[][] = [];
    for (const key of this.repeated) {
      const list: Use[] = [];
      // Repeated keys are held by several links, or by one link twice.
      for (const link of new Set(this.holders.get(key) as LabLink[])) {
        const checked = this.links.get(link);
        if (!checked) continue;
        link.endpoints.forEach((endpoint, index) => {
          if (interfaceKey(endpoint) === key) list.push({ key, link, endpoint, index, checked });
        });
      }
      list.sort(inLinkOrder);
      lists.push(list);
    }
    lists.sort((a, b) => inLinkOrder(a[0], b[0]));
    for (const list of lists) {
      for (const use of list) {
        const others = list.filter((other) => other.link !== use.link).map((other) => describeLink(other.link));
        const where =
          others.length > 0 ? `also used by the link ${listInProse(others, 'and')}` : 'used twice in this link';
        out.push({
          range: shiftRange(use.endpoint.interfaceRange ?? use.endpoint.range, use.checked.delta),
          path: ['links', use.link.index + use.checked.indexShift, 'endpoints', use.index],
          severity: 'error',
          code: 'interface-in-use',
          message: `${use.key} is ${where}; an interface takes one link`,
        });
      }
    }
  }
}

function inLinkOrder(a: Use, b: Use): number {
  return a.checked.order - b.checked.order || a.index - b.index;
}

/**
 * Node settings with a range of numbers. Loops that run for every element at
 * every edit are indexed over constants: for-of makes an iterator result per
 * step wherever V8 does not optimize the loop (as in the interpreter and baseline compiler).
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

  /** Findings as read, moved by `delta`, their link indexes by `indexShift`. */
  pushAll(findings: readonly LocalDiagnostic[], delta: number, indexShift: number): void {
    for (let i = 0; i < findings.length; i++) {
      const finding = findings[i];
      if (this.shown.length >= this.limit) {
        this.uncounted += findings.length - i;
        return;
      }
      this.shown.push(delta === 0 && indexShift === 0 ? finding : moved(finding, delta, indexShift));
    }
  }
}

function moved(finding: LocalDiagnostic, delta: number, indexShift: number): LocalDiagnostic {
  const result = { ...finding, range: shiftRange(finding.range, delta) };
  const path = finding.path;
  if (indexShift !== 0 && path && path[0] === 'links' && typeof path[1] === 'number')
    result.path = ['links', path[1] + indexShift, ...path.slice(2)];
  return result;
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

function checkNode(node: LabNode, out: LocalDiagnostic[], examples: MessageExamples): void {
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

function checkNetwork(network: LabNetwork, out: LocalDiagnostic[]): void {
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
function checkFields(fields: NodeFields, path: Path, out: LocalDiagnostic[]): void {
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

/** Where a node interface is used. */
interface Use {
  key: string;
  link: LabLink;
  endpoint: LinkEndpoint;
  index: number;
  checked: CheckedLink;
}

/** What is wrong with one link, as read: its own shape, and endpoints naming no node or network of the lab. */
function checkLink(
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
function interfaceKeys(link: LabLink): readonly string[] {
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
function interfaceKey(endpoint: LinkEndpoint): string | undefined {
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
