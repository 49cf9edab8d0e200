/**
 * Moving a piece of the model by a number of characters, for the incremental
 * reparse: everything after an edit keeps its meaning and only its offsets
 * change. Copies, never mutates, so earlier documents stay valid.
 */
import { shiftRange } from './outline';
import type { Fragment } from './read';
import type {
  ElementKind,
  ElementOf,
  FormatIssue,
  LabCheck,
  LabLink,
  LabNetwork,
  LabNode,
  LabTest,
  LinkEndpoint,
  Located,
  NodeFields,
} from '../model/types';

/**
 * The fragment moved by `delta` characters; links also renumbered by
 * `linkIndexDelta` (when links were added or removed before them).
 */
export function shiftFragment(fragment: Fragment, delta: number, linkIndexDelta = 0): Fragment {
  if (delta === 0 && linkIndexDelta === 0) return fragment;
  // Fragments are never changed after reading, so empty lists can be shared.
  const shifted: Fragment = {
    nodes: fragment.nodes.length === 0 ? fragment.nodes : fragment.nodes.map((node) => shiftNode(node, delta)),
    networks:
      fragment.networks.length === 0
        ? fragment.networks
        : fragment.networks.map((network) => shiftNetwork(network, delta)),
    links:
      fragment.links.length === 0
        ? fragment.links
        : fragment.links.map((link) => shiftLink(link, delta, linkIndexDelta)),
    issues: shiftIssues(fragment.issues, delta, linkIndexDelta),
  };
  if (fragment.name) shifted.name = shiftLocated(fragment.name, delta);
  if (fragment.description) shifted.description = shiftLocated(fragment.description, delta);
  if (fragment.defaults) shifted.defaults = shiftFields(fragment.defaults, delta);
  if (fragment.tests) shifted.tests = fragment.tests.map((test) => shiftTest(test, delta));
  return shifted;
}

/** One node, network or link as read, moved by `delta`, a link also renumbered by `indexShift` (see LabDocument.forEachAsRead). */
export function shiftElement<K extends ElementKind>(
  kind: K,
  element: ElementOf[K],
  delta: number,
  indexShift: number,
): ElementOf[K] {
  if (delta === 0 && indexShift === 0) return element;
  const shift = ELEMENT_SHIFTS[kind] as (element: ElementOf[K], delta: number, indexShift: number) => ElementOf[K];
  return shift(element, delta, indexShift);
}

/** The issues as read, moved by `delta`, links' issues renumbered by `linkIndexDelta`. */
export function shiftIssues(issues: FormatIssue[], delta: number, linkIndexDelta: number): FormatIssue[] {
  if (issues.length === 0 || (delta === 0 && linkIndexDelta === 0)) return issues;
  return issues.map((issue) => shiftIssue(issue, delta, linkIndexDelta));
}

function shiftLocated<T>(located: Located<T>, delta: number): Located<T> {
  return {
    value: located.value,
    range: shiftRange(located.range, delta),
    keyRange: shiftRange(located.keyRange, delta),
  };
}

function shiftTest(test: LabTest, delta: number): LabTest {
  const shifted: LabTest = {
    name: test.name,
    nameRange: shiftRange(test.nameRange, delta),
    range: shiftRange(test.range, delta),
  };
  if (test.timeout) shifted.timeout = shiftLocated(test.timeout, delta);
  const check = test.check;
  if (check) {
    const params: LabCheck['params'] = {};
    for (const name in check.params) params[name] = shiftLocated(check.params[name], delta);
    shifted.check = {
      kind: check.kind,
      keyRange: shiftRange(check.keyRange, delta),
      range: shiftRange(check.range, delta),
      params,
    };
  }
  return shifted;
}

function shiftFields(fields: NodeFields, delta: number): NodeFields {
  const shifted: Record<string, Located<unknown>> = {};
  for (const name in fields) shifted[name] = shiftLocated(fields[name as keyof NodeFields] as Located<unknown>, delta);
  return shifted;
}

function shiftNode(node: LabNode, delta: number): LabNode {
  return {
    name: node.name,
    nameRange: shiftRange(node.nameRange, delta),
    range: shiftRange(node.range, delta),
    fields: shiftFields(node.fields, delta),
    resolved: node.resolved,
  };
}

function shiftNetwork(network: LabNetwork, delta: number): LabNetwork {
  const shifted: LabNetwork = {
    name: network.name,
    nameRange: shiftRange(network.nameRange, delta),
    range: shiftRange(network.range, delta),
  };
  if (network.type) shifted.type = shiftLocated(network.type, delta);
  return shifted;
}

function shiftLink(link: LabLink, delta: number, indexDelta: number): LabLink {
  return {
    index: link.index + indexDelta,
    range: shiftRange(link.range, delta),
    endpoints: link.endpoints.map((e) => shiftEndpoint(e, delta)),
  };
}

function shiftEndpoint(endpoint: LinkEndpoint, delta: number): LinkEndpoint {
  const shifted: LinkEndpoint = { text: endpoint.text, range: shiftRange(endpoint.range, delta) };
  if (endpoint.node !== undefined) shifted.node = endpoint.node;
  if (endpoint.nodeRange) shifted.nodeRange = shiftRange(endpoint.nodeRange, delta);
  if (endpoint.interface !== undefined) shifted.interface = endpoint.interface;
  if (endpoint.interfaceRange) shifted.interfaceRange = shiftRange(endpoint.interfaceRange, delta);
  if (endpoint.network !== undefined) shifted.network = endpoint.network;
  return shifted;
}

const ELEMENT_SHIFTS: {
  [K in ElementKind]: (element: ElementOf[K], delta: number, indexShift: number) => ElementOf[K];
} = { nodes: shiftNode, networks: shiftNetwork, links: shiftLink };

function shiftIssue(issue: FormatIssue, delta: number, linkIndexDelta: number): FormatIssue {
  const [section, index, ...rest] = issue.path;
  const path =
    linkIndexDelta !== 0 && section === 'links' && typeof index === 'number'
      ? [section, index + linkIndexDelta, ...rest]
      : issue.path;
  return { message: issue.message, range: shiftRange(issue.range, delta), code: issue.code, path };
}
