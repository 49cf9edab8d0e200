/**
 * What the cursor is on, for completion: which map a key is being typed in,
 * which field a value is being typed for, or which part of a link endpoint.
 * Read from the cached model (pathAt, the nodes and links with their ranges);
 * only the current line's text is looked at, for its indentation and for the
 * word under the cursor, because a half-typed line is often not YAML yet.
 */
import { findNode, findNetwork, lastStartingAtOrBefore, linkAt, type LinkAt } from '../../common/lab/model/lookup';
import type { LabDocument, LabLink, LabNode, LinkEndpoint, Range } from '../../common/lab/model/types';
import { lineStartOf } from '../../common/text-lines';
import { testsCompletionContext, type TestsCompletionContext } from './completion/test-context';

export type ValueField = 'template' | 'image' | 'icon' | 'console';

export type CompletionContext =
  | { kind: 'key'; owner: KeyOwner; replace: Range; present: ReadonlySet<string>; colonFollows: boolean }
  /** A node field's value; `node` is undefined under `defaults`. */
  | { kind: 'field-value'; field: ValueField; node?: LabNode; replace: Range; needsSpace: boolean }
  | { kind: 'network-type'; replace: Range; needsSpace: boolean }
  /** The node or network an endpoint names; `nodePart` when only the node before a colon is replaced. */
  | { kind: 'endpoint-target'; replace: Range; nodePart: boolean }
  /** `endpoint` is the one being edited: the interface written there does not count as used. */
  | { kind: 'endpoint-interface'; node: string; endpoint: LinkEndpoint; replace: Range }
  | TestsCompletionContext;

export type KeyOwner = 'top-level' | 'node' | 'defaults' | 'network' | 'link';

const VALUE_FIELDS: readonly string[] = ['template', 'image', 'icon', 'console'];

export function completionContext(doc: LabDocument, offset: number): CompletionContext | undefined {
  const text = doc.text;
  const line = lineAt(text, lineStartOf(text, offset), offset);
  if (line.comment) return undefined;

  const inTests = testsCompletionContext(doc, offset);
  if (inTests !== null) return inTests;

  const hit = linkAt(doc, offset);
  if (hit?.endpoint && hit.endpoint.text !== '') return endpointContext(hit, offset);

  const unfinished = unfinishedFlowEndpoint(text, line.start, offset);
  if (unfinished) return unfinished;

  const valueContext = valueOnLine(doc, line, offset);
  if (valueContext !== null) return valueContext;

  if (line.keyStart === undefined) return undefined;
  return keyContext(doc, line, offset);
}

interface LineInfo {
  start: number;
  /** Offset of the first character after the indentation and an optional `- `; undefined when the line is not a key line. */
  keyStart?: number;
  /** Offset of the `-` when the line is a list item. */
  dash?: number;
  comment: boolean;
}

/** The current line's indentation, list dash and where a key would start (never past the cursor). */
function lineAt(text: string, start: number, offset: number): LineInfo {
  let at = start;
  while (at < offset && text[at] === ' ') at++;
  const info: LineInfo = { start, comment: text[at] === '#' };
  if (
    text[at] === '-' &&
    (at + 1 === text.length || text[at + 1] === ' ' || text[at + 1] === '\n' || text[at + 1] === '\r')
  ) {
    info.dash = at;
    at++;
    while (at < offset && text[at] === ' ') at++;
  }
  const before = text.slice(at, offset);
  if (/^[A-Za-z0-9_-]*$/.test(before)) info.keyStart = at;
  return info;
}

/** `endpoints: [` on the cursor's line, not closed before the cursor; the list's text after the bracket. */
const UNCLOSED_ENDPOINTS = /^\s*(?:-\s+)?endpoints\s*:\s*\[([^\]#]*)$/;

/**
 * An endpoint typed in a flow list that is not closed yet (`- endpoints: [r1:Gi0/3, r`):
 * the YAML around it does not parse, so the model has no link here, but the line says
 * exactly which part of an endpoint the cursor is on.
 */
function unfinishedFlowEndpoint(text: string, lineStart: number, offset: number): CompletionContext | undefined {
  const list = UNCLOSED_ENDPOINTS.exec(text.slice(lineStart, offset));
  if (!list) return undefined;
  const itemsStart = offset - list[1].length;
  const comma = list[1].lastIndexOf(',');
  let start = comma < 0 ? itemsStart : itemsStart + comma + 1;
  while (start < offset && text[start] === ' ') start++;
  let end = offset;
  while (end < text.length && !/[\s,\]]/.test(text[end])) end++;
  const written = text.slice(start, end);
  const colon = written.indexOf(':');
  if (colon < 0 || start + colon >= offset) {
    return { kind: 'endpoint-target', replace: { start, end: colon < 0 ? end : start + colon }, nodePart: colon >= 0 };
  }
  const endpoint: LinkEndpoint = {
    text: written,
    range: { start, end },
    node: written.slice(0, colon),
    nodeRange: { start, end: start + colon },
    interface: written.slice(colon + 1),
    interfaceRange: { start: start + colon + 1, end },
  };
  return {
    kind: 'endpoint-interface',
    node: written.slice(0, colon),
    endpoint,
    replace: endpoint.interfaceRange ?? endpoint.range,
  };
}

function endpointContext({ endpoint, part }: LinkAt, offset: number): CompletionContext | undefined {
  if (!endpoint) return undefined;
  if (endpoint.node !== undefined && part === 'interface') {
    return {
      kind: 'endpoint-interface',
      node: endpoint.node,
      endpoint,
      replace: endpoint.interfaceRange ?? { start: offset, end: offset },
    };
  }
  if (endpoint.node !== undefined && endpoint.nodeRange)
    return { kind: 'endpoint-target', replace: endpoint.nodeRange, nodePart: true };
  return { kind: 'endpoint-target', replace: endpoint.range, nodePart: false };
}

/**
 * A value being written: a node field's or network type's value under the
 * cursor (block or flow style), an empty value after `key:` on the cursor's
 * line, or an empty slot in an endpoints list. null when the cursor is not in
 * a value; undefined when it is, but in one nothing is offered for.
 */
function valueOnLine(doc: LabDocument, line: LineInfo, offset: number): CompletionContext | undefined | null {
  const at = doc.pathAt(offset);
  if (at?.on === 'value' && isEndpointList(at.path) && at.range.start < offset) {
    // Inside `[r1:Gi0/0, |]`: a new endpoint starts at the cursor.
    return { kind: 'endpoint-target', replace: { start: offset, end: offset }, nodePart: false };
  }
  const written = at?.on === 'value' ? writtenValue(doc, at.path) : undefined;
  if (at && written && written.start <= offset && offset <= written.end)
    return valueContextFor(doc, at.path, written, false);

  const keyStart = firstNonSpace(doc.text, line.dash === undefined ? line.start : line.dash + 1, offset);
  if (keyStart === undefined) return null;
  const key = doc.pathAt(keyStart);
  if (key?.on !== 'key' || key.range.start !== keyStart || key.range.end >= offset) return null;
  const colon = colonAfter(doc.text, key.range.end, offset);
  if (colon === undefined) return null;
  // Past a value already written (`template: vios |`), or in a trailing comment, there is nothing to add.
  if (writtenValue(doc, key.path) !== undefined || /(^|\s)#/.test(doc.text.slice(colon + 1, offset))) return undefined;
  return valueContextFor(doc, key.path, { start: offset, end: offset }, offset === colon + 1);
}

/** The range of the value written for a completable field at `path`, if the model has one. */
function writtenValue(doc: LabDocument, path: readonly (string | number)[]): Range | undefined {
  const field = String(path[path.length - 1]);
  if (path.length === 3 && path[0] === 'networks' && field === 'type') {
    return findNetwork(doc, String(path[1]))?.type?.range;
  }
  if (!VALUE_FIELDS.includes(field)) return undefined;
  const name = field as ValueField;
  if (path.length === 2 && path[0] === 'defaults') return doc.defaults[name]?.range;
  if (path.length === 3 && path[0] === 'nodes') return findNode(doc, String(path[1]))?.fields[name]?.range;
  return undefined;
}

function valueContextFor(
  doc: LabDocument,
  path: readonly (string | number)[],
  replace: Range,
  needsSpace: boolean,
): CompletionContext | undefined {
  const field = String(path[path.length - 1]);
  if (path.length === 3 && path[0] === 'networks' && field === 'type')
    return { kind: 'network-type', replace, needsSpace };
  if (!VALUE_FIELDS.includes(field)) return undefined;
  if (path.length === 2 && path[0] === 'defaults')
    return { kind: 'field-value', field: field as ValueField, replace, needsSpace };
  if (path.length === 3 && path[0] === 'nodes') {
    const node = findNode(doc, String(path[1]));
    if (node) return { kind: 'field-value', field: field as ValueField, node, replace, needsSpace };
  }
  return undefined;
}

/** A key being typed (or an empty line): which map it goes into follows from the section and the indentation. */
function keyContext(doc: LabDocument, line: LineInfo, offset: number): CompletionContext | undefined {
  const keyStart = line.keyStart as number;
  const replace = { start: keyStart, end: wordEnd(doc.text, offset) };
  const colonFollows = colonAfter(doc.text, replace.end, doc.text.length, true) !== undefined;
  const column = keyStart - line.start;
  const key = (owner: KeyOwner, present: ReadonlySet<string>): CompletionContext => ({
    kind: 'key',
    owner,
    replace,
    present,
    colonFollows,
  });

  if (column === 0) return line.dash === undefined ? key('top-level', presentTopLevelKeys(doc, replace)) : undefined;
  const section = doc.pathAt(line.start)?.path[0] ?? doc.pathAt(offset)?.path[0];
  switch (section) {
    case 'defaults':
      return key('defaults', new Set(Object.keys(doc.defaults)));
    case 'nodes': {
      const node = lastStartingAtOrBefore(doc, 'nodes', keyStart);
      if (!node || column <= columnOf(doc.text, node.nameRange.start)) return undefined;
      return key('node', new Set(Object.keys(node.fields)));
    }
    case 'networks': {
      const network = lastStartingAtOrBefore(doc, 'networks', keyStart);
      if (!network || column <= columnOf(doc.text, network.nameRange.start)) return undefined;
      return key('network', new Set(network.type ? ['type'] : []));
    }
    case 'links':
      return linkKeyContext(doc, line, offset, key);
    default:
      return undefined;
  }
}

function linkKeyContext(
  doc: LabDocument,
  line: LineInfo,
  offset: number,
  key: (owner: KeyOwner, present: ReadonlySet<string>) => CompletionContext,
): CompletionContext | undefined {
  const link = lastStartingAtOrBefore(doc, 'links', line.dash ?? (line.keyStart as number));
  const linkDash = link ? columnOf(doc.text, link.range.start) : undefined;
  const dashColumn = line.dash === undefined ? undefined : line.dash - line.start;
  // `- ` deeper than the link's own dash is an item of its endpoints list.
  if (link && linkDash !== undefined && dashColumn !== undefined && dashColumn > linkDash) {
    return {
      kind: 'endpoint-target',
      replace: { start: line.keyStart as number, end: wordEnd(doc.text, offset) },
      nodePart: false,
    };
  }
  // A new `- ` at the links' level starts a new link; otherwise the key belongs to the link above.
  const isNewItem = dashColumn !== undefined && (linkDash === undefined || dashColumn === linkDash);
  if (isNewItem || (link && linkDash !== undefined && (line.keyStart as number) - line.start > linkDash)) {
    return key('link', new Set(!isNewItem && link && hasEndpointsKey(doc, link) ? ['endpoints'] : []));
  }
  return undefined;
}

function hasEndpointsKey(doc: LabDocument, link: LabLink): boolean {
  const own = doc.rangeOfPath(['links', link.index]);
  const endpoints = doc.rangeOfPath(['links', link.index, 'endpoints']);
  return own !== undefined && endpoints !== undefined && (own.start !== endpoints.start || own.end !== endpoints.end);
}

/** Top-level keys already written, except the one under the cursor. */
function presentTopLevelKeys(doc: LabDocument, typing: Range): Set<string> {
  const present = new Set<string>();
  for (const name of ['name', 'description', 'defaults', 'nodes', 'networks', 'links']) {
    const at = doc.rangeOfPath([name]);
    const whole = doc.rangeOfPath([]);
    if (at === undefined || whole === undefined || (at.start === whole.start && at.end === whole.end)) continue;
    const keyHere = doc.pathAt(typing.start);
    if (keyHere?.on === 'key' && keyHere.path.length === 1 && keyHere.path[0] === name) continue;
    present.add(name);
  }
  return present;
}

function isEndpointList(path: readonly (string | number)[]): boolean {
  return path.length === 3 && path[0] === 'links' && path[2] === 'endpoints';
}

function firstNonSpace(text: string, from: number, limit: number): number | undefined {
  let at = from;
  while (at < limit && text[at] === ' ') at++;
  return at < limit ? at : undefined;
}

/** The offset of a `:` after `from` (spaces allowed before it), if it comes before `limit` on the same line. */
function colonAfter(text: string, from: number, limit: number, allowAtLimit = false): number | undefined {
  let at = from;
  while (at < limit && (text[at] === ' ' || text[at] === '\t')) at++;
  if (text[at] !== ':' || (!allowAtLimit && at >= limit)) return undefined;
  return at;
}

/** The end of the key-like word the cursor is in, so a completion replaces all of it. */
function wordEnd(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && /[A-Za-z0-9_-]/.test(text[at])) at++;
  return at;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStartOf(text, offset);
}
