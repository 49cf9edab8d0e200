/**
 * Reading the lab model out of an outline: one top-level entry, one node, one
 * network or one link at a time, so that the incremental reparse can re-read a
 * single piece exactly as a full parse reads it. Whatever does not fit the
 * format becomes a FormatIssue and stays out of the model.
 */
import {
  ENDPOINT_EXAMPLE,
  LINK_EXAMPLE,
  LINK_KEYS,
  NETWORK_KEYS,
  NODE_FIELD_EXAMPLES,
  POSITION_KEYS,
  TOP_LEVEL_KEYS,
  listInProse,
} from '../rules/format';
import type { OutlineEntry, OutlineItem, OutlineMap, OutlineScalar } from './outline';
import {
  checkKey,
  isEmpty,
  missingValue,
  readText,
  readWholeNumber,
  uniqueEntries,
  unknownKey,
  wrongType,
} from './read-values';
import { readTests } from './read-tests';
import { withDefaults } from '../model/resolve';
import {
  NODE_FIELD_NAMES,
  type FormatIssue,
  type LabLink,
  type LabNetwork,
  type LabNode,
  type LabTest,
  type LinkEndpoint,
  type Located,
  type NodeFieldName,
  type NodeFields,
} from '../model/types';

/** What one piece of the document contributes to the model. */
export interface Fragment {
  name?: Located<string>;
  description?: Located<string>;
  /** Set by a `defaults` entry (also when it is empty). */
  defaults?: NodeFields;
  nodes: LabNode[];
  networks: LabNetwork[];
  links: LabLink[];
  /** Set by a `tests` entry. */
  tests?: LabTest[];
  issues: FormatIssue[];
}

type Path = (string | number)[];

export function emptyFragment(): Fragment {
  return { nodes: [], networks: [], links: [], issues: [] };
}

/** Reads one top-level entry (`name: …`, `nodes: …`); nodes are resolved against `defaults`. */
export function readTopLevelEntry(entry: OutlineEntry, defaults: NodeFields): Fragment {
  const fragment = emptyFragment();
  const issues = fragment.issues;
  const key = entry.key;
  const path = [key];
  if (!checkKey(entry, path, issues, 'a top-level key is a plain word such as nodes')) return fragment;
  const value = entry.value;
  switch (key) {
    case 'name':
    case 'description': {
      const located = readText(
        entry,
        path,
        issues,
        key === 'name' ? 'name: campus' : 'description: Two sites joined by a WAN',
      );
      if (located) fragment[key] = located;
      return fragment;
    }
    case 'defaults':
      fragment.defaults = {};
      if (isEmpty(value)) return fragment;
      if (value?.kind !== 'map') {
        wrongType(
          entry,
          path,
          issues,
          'defaults must be a map of node settings that every node inherits, e.g. defaults: {cpu: 1, ram: 1024}',
        );
        return fragment;
      }
      fragment.defaults = readNodeFields(value, path, 'defaults', issues);
      return fragment;
    case 'nodes':
      for (const nodeEntry of mapEntries(entry, path, issues, NODES_SHAPE)) {
        const node = readNodeEntry(nodeEntry, defaults, issues);
        if (node) fragment.nodes.push(node);
      }
      return fragment;
    case 'networks':
      for (const networkEntry of mapEntries(entry, path, issues, NETWORKS_SHAPE)) {
        const network = readNetworkEntry(networkEntry, issues);
        if (network) fragment.networks.push(network);
      }
      return fragment;
    case 'links':
      if (isEmpty(value)) return fragment;
      if (value?.kind !== 'seq') {
        wrongType(entry, path, issues, `links must be a list of links, each written as ${LINK_EXAMPLE}`);
        return fragment;
      }
      value.items.forEach((item, index) => fragment.links.push(readLinkItem(item, index, issues)));
      return fragment;
    case 'tests':
      fragment.tests = readTests(entry, issues);
      return fragment;
    default:
      issues.push({
        code: 'unknown-key',
        range: entry.keyRange,
        path,
        message: `"${key}" is not a top-level key of a lab file; the top-level keys are ${listInProse(TOP_LEVEL_KEYS, 'and')}`,
      });
      return fragment;
  }
}

/** Reads one entry under `nodes`; undefined when its key cannot name a node. */
export function readNodeEntry(entry: OutlineEntry, defaults: NodeFields, issues: FormatIssue[]): LabNode | undefined {
  const name = entry.key;
  const path = ['nodes', name];
  if (!checkKey(entry, path, issues, 'a node name is a plain word such as r1')) return undefined;
  let fields: NodeFields = {};
  const value = entry.value;
  if (value?.kind === 'map') fields = readNodeFields(value, path, `node ${name}`, issues);
  else if (!isEmpty(value))
    wrongType(entry, path, issues, `node ${name} must be a map of settings, e.g. ${name}: {template: vios}`);
  return { name, nameRange: entry.keyRange, range: entry.range, fields, resolved: withDefaults(fields, defaults) };
}

/** Reads one entry under `networks`; undefined when its key cannot name a network. */
export function readNetworkEntry(entry: OutlineEntry, issues: FormatIssue[]): LabNetwork | undefined {
  const name = entry.key;
  const path = ['networks', name];
  if (!checkKey(entry, path, issues, 'a network name is a plain word such as mgmt')) return undefined;
  const network: LabNetwork = { name, nameRange: entry.keyRange, range: entry.range };
  const value = entry.value;
  if (isEmpty(value)) return network;
  if (value?.kind !== 'map') {
    wrongType(entry, path, issues, `network ${name} must be a map of settings, e.g. ${name}: {type: bridge}`);
    return network;
  }
  for (const field of uniqueEntries(value, path, `network ${name}`, issues)) {
    const fieldPath = [...path, field.key];
    if (field.key === 'type') {
      const type = readText(field, fieldPath, issues, 'type: bridge');
      if (type) network.type = type;
    } else {
      unknownKey(field, fieldPath, issues, `network ${name}`, NETWORK_KEYS);
    }
  }
  return network;
}

/** Reads the link at `index` of the `links` list. */
export function readLinkItem(item: OutlineItem, index: number, issues: FormatIssue[]): LabLink {
  const path = ['links', index];
  const link: LabLink = { index, range: item.range, endpoints: [] };
  const value = item.value;
  if (isEmpty(value)) return link;
  if (value?.kind !== 'map') {
    issues.push({
      code: 'wrong-type',
      range: value?.range ?? item.range,
      path,
      message: `a link is a map with endpoints, written as ${LINK_EXAMPLE}`,
    });
    return link;
  }
  for (const field of uniqueEntries(value, path, 'a link', issues)) {
    const fieldPath = [...path, field.key];
    if (field.key !== 'endpoints') {
      unknownKey(field, fieldPath, issues, 'a link', LINK_KEYS);
    } else if (field.value?.kind === 'seq') {
      // Mapped, not pushed: a list pushed to holds room for 17.
      link.endpoints = field.value.items.map((endpoint, i) => readEndpoint(endpoint, [...fieldPath, i], issues));
    } else if (!isEmpty(field.value)) {
      wrongType(
        field,
        fieldPath,
        issues,
        `endpoints must be a list of two endpoints, e.g. endpoints: [${ENDPOINT_EXAMPLE}, r2:Gi0/0]`,
      );
    }
  }
  return link;
}

const ENDPOINT_FORMS = `an endpoint is node:interface (e.g. ${ENDPOINT_EXAMPLE}) or the name of a network (e.g. mgmt)`;

function readEndpoint(item: OutlineItem, path: Path, issues: FormatIssue[]): LinkEndpoint {
  const value = item.value;
  if (value?.kind === 'scalar' && value.value !== null && value.text !== '') return scalarEndpoint(value);
  if (value?.kind === 'map' && value.entries.length === 1 && !value.entries[0].oddKey) {
    // `r1:` while typing (or `r1: Gi0/0`) reads as a one-entry map in YAML; it still names node r1.
    const entry = value.entries[0];
    const node = entry.key;
    const nodeRange = entry.keyRange;
    if (isEmpty(entry.value)) {
      const end = entry.range.end;
      return {
        text: node + ':',
        range: { start: nodeRange.start, end },
        node,
        nodeRange,
        interface: '',
        interfaceRange: { start: end, end },
      };
    }
    if (entry.value?.kind === 'scalar') {
      const iface = entry.value.text;
      issues.push({
        code: 'endpoint-space',
        range: entry.range,
        path,
        message: `write the endpoint without a space after the colon: ${node}:${iface} (with the space, YAML reads it as a map)`,
      });
      return {
        text: `${node}:${iface}`,
        range: entry.range,
        node,
        nodeRange,
        interface: iface,
        interfaceRange: entry.value.range,
      };
    }
  }
  const range = value?.range ?? item.range;
  issues.push({
    code: isEmpty(value) ? 'empty-endpoint' : 'bad-endpoint',
    range,
    path,
    message: isEmpty(value) ? `this endpoint is empty; ${ENDPOINT_FORMS}` : `${ENDPOINT_FORMS}`,
  });
  return { text: '', range };
}

function scalarEndpoint(scalar: OutlineScalar): LinkEndpoint {
  const text = scalar.text;
  const range = scalar.range;
  const colon = text.indexOf(':');
  if (colon < 0) return { text, range, network: text };
  const node = text.slice(0, colon);
  const iface = text.slice(colon + 1);
  if (scalar.innerOffset === undefined) {
    // Escapes or folding: the characters do not map one to one, so point at the whole endpoint.
    return { text, range, node, nodeRange: range, interface: iface, interfaceRange: range };
  }
  const start = range.start + scalar.innerOffset;
  return {
    text,
    range,
    node,
    nodeRange: { start, end: start + colon },
    interface: iface,
    interfaceRange: { start: start + colon + 1, end: start + text.length },
  };
}

/** Reads the node settings of a node or of `defaults`. */
function readNodeFields(map: OutlineMap, path: Path, owner: string, issues: FormatIssue[]): NodeFields {
  const fields: NodeFields = {};
  for (const entry of uniqueEntries(map, path, owner, issues)) {
    const name = entry.key;
    const fieldPath = [...path, name];
    if (!isNodeFieldName(name)) {
      unknownKey(entry, fieldPath, issues, owner, NODE_FIELD_NAMES);
      continue;
    }
    const example = NODE_FIELD_EXAMPLES[name];
    switch (name) {
      case 'cpu':
      case 'ram':
      case 'ethernet': {
        const located = readWholeNumber(entry, fieldPath, issues, name, example);
        if (located) fields[name] = located;
        break;
      }
      case 'position': {
        const located = readPosition(entry, fieldPath, issues);
        if (located) fields.position = located;
        break;
      }
      default: {
        const located = readText(entry, fieldPath, issues, example);
        if (located) fields[name] = located;
      }
    }
  }
  return fields;
}

function readPosition(
  entry: OutlineEntry,
  path: Path,
  issues: FormatIssue[],
): Located<{ x: number; y: number }> | undefined {
  const example = NODE_FIELD_EXAMPLES.position;
  const value = entry.value;
  if (isEmpty(value)) {
    missingValue(entry, path, issues, example);
    return undefined;
  }
  if (value?.kind !== 'map') {
    wrongType(entry, path, issues, `position must be a map with x and y, e.g. ${example}`);
    return undefined;
  }
  const coordinates: Partial<Record<'x' | 'y', number>> = {};
  let complete = true;
  for (const field of uniqueEntries(value, path, 'position', issues)) {
    const fieldPath = [...path, field.key];
    if (field.key === 'x' || field.key === 'y') {
      const located = readWholeNumber(field, fieldPath, issues, field.key, `${field.key}: 100`);
      if (located) coordinates[field.key] = located.value;
      else complete = false;
    } else {
      unknownKey(field, fieldPath, issues, 'position', POSITION_KEYS);
    }
  }
  const { x, y } = coordinates;
  if (x === undefined || y === undefined) {
    if (complete) {
      const missing = x === undefined ? 'x' : 'y';
      issues.push({
        code: 'missing-key',
        range: value.range,
        path,
        message: `position needs both x and y, e.g. ${example}; ${missing} is missing`,
      });
    }
    return undefined;
  }
  return { value: { x, y }, range: value.range, keyRange: entry.keyRange };
}

const NODES_SHAPE = 'nodes must be a map from node names to their settings, e.g. nodes: {r1: {template: vios}}';
const NETWORKS_SHAPE =
  'networks must be a map from network names to their settings, e.g. networks: {mgmt: {type: pnet1}}';

/** The entries of a top-level section that must be a map: none when it is empty or, reported, not a map. */
function mapEntries(entry: OutlineEntry, path: Path, issues: FormatIssue[], shape: string): readonly OutlineEntry[] {
  const value = entry.value;
  if (isEmpty(value)) return [];
  if (value?.kind !== 'map') {
    wrongType(entry, path, issues, shape);
    return [];
  }
  return value.entries;
}

function isNodeFieldName(name: string): name is NodeFieldName {
  return (NODE_FIELD_NAMES as readonly string[]).includes(name);
}
