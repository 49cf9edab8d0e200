/**
 * The text edits behind the topology view's changes: set a node's position,
 * add a link, delete a link. Each edit touches only the lines that must
 * change (one value replaced, one line inserted, one item's lines removed) and
 * keeps the user's layout and comments; a document written in a shape these
 * edits cannot handle line by line gets a message instead of a rewrite.
 */
import { insertLinesAfter, removeLines, type OffsetEdit } from '../common/lab/model/line-edits';
import { lineEnd, lineStartOf } from '../common/text-lines';
import { findNetwork, findNode } from '../common/lab/model/lookup';
import type { LabDocument, LabNode } from '../common/lab/model/types';
import type { TopologyChange } from '../common/protocol';

export type EditOutcome = { edits: OffsetEdit[] } | { error: string };

/** The format's limits for `position` (docs/lab-format.md). */
const POSITION_MAX = 100_000;

export function topologyEdits(doc: LabDocument, change: TopologyChange): EditOutcome {
  switch (change.kind) {
    case 'position':
      return positionEdits(doc, change.node, change.x, change.y);
    case 'addLink':
      return addLinkEdits(doc, change.endpoints);
    case 'deleteLink':
      return deleteLinkEdits(doc, change.index);
    default:
      return { error: 'unknown change' };
  }
}

function coordinate(value: number): number {
  return Math.min(Math.max(Math.round(Number.isFinite(value) ? value : 0), 0), POSITION_MAX);
}

/**
 * A node's own `position` gets its x and y numbers replaced where they are
 * written; a node without one gets one line `position: {x: …, y: …}` after its
 * last line (or `, position: …` inside a flow map).
 */
export function positionEdits(doc: LabDocument, name: string, rawX: number, rawY: number): EditOutcome {
  const node = findNode(doc, name);
  if (!node) return { error: `There is no node ${name} in the lab any more.` };
  const x = coordinate(rawX);
  const y = coordinate(rawY);
  const own = node.fields.position;
  if (own) {
    const edits: OffsetEdit[] = [];
    const slice = doc.text.slice(own.range.start, own.range.end);
    for (const [axis, value] of [
      ['x', x],
      ['y', y],
    ] as const) {
      const found = new RegExp(`(^|[\\s{,])${axis}\\s*:\\s*([^\\s,}#]+)`).exec(slice);
      if (!found) return { error: `The position of ${name} has no ${axis} written as a number; fix it in the editor.` };
      const start = own.range.start + found.index + found[0].length - found[2].length;
      if (found[2] !== String(value)) edits.push({ start, end: start + found[2].length, text: String(value) });
    }
    return { edits };
  }
  const text = doc.text;
  const valueStart = skipInlineSpace(text, text.indexOf(':', node.nameRange.end) + 1);
  if (text[valueStart] === '{') {
    const close = text.lastIndexOf('}', node.range.end);
    if (close < valueStart) return { error: `The settings of ${name} are not a complete map; fix them in the editor.` };
    const empty = text.slice(valueStart + 1, close).trim() === '';
    return { edits: [{ start: close, end: close, text: `${empty ? '' : ', '}position: {x: ${x}, y: ${y}}` }] };
  }
  if (!isLineEndOrComment(text, valueStart)) {
    return { error: `${name} has a value that is not a map of settings; fix it in the editor.` };
  }
  return {
    edits: [insertLinesAfter(text, node.range.end, [`${fieldIndent(text, node)}position: {x: ${x}, y: ${y}}`])],
  };
}

/** The indentation of a node's settings: that of its first settings line, else two more than its name. */
function fieldIndent(text: string, node: LabNode): string {
  const keyLineStart = lineStartOf(text, node.nameRange.start);
  const keyIndent = node.nameRange.start - keyLineStart;
  let at = lineEnd(text, node.nameRange.end) + 1;
  while (at < node.range.end) {
    const end = lineEnd(text, at);
    const line = text.slice(at, end);
    const content = line.trimStart();
    if (content !== '' && !content.startsWith('#')) {
      const indent = line.length - content.length;
      if (indent > keyIndent) return ' '.repeat(indent);
    }
    at = end + 1;
  }
  return ' '.repeat(keyIndent + 2);
}

/** One line `- endpoints: [a, b]` after the last link, or a `links:` section at the end when there is none. */
export function addLinkEdits(doc: LabDocument, endpoints: readonly [string, string]): EditOutcome {
  for (const endpoint of endpoints) {
    const problem = endpointProblem(doc, endpoint);
    if (problem) return { error: problem };
  }
  const item = `- endpoints: [${endpoints[0]}, ${endpoints[1]}]`;
  const text = doc.text;
  const last = doc.links[doc.links.length - 1];
  if (last) {
    const start = lineStartOf(text, last.range.start);
    if (text[last.range.start] !== '-' || !isBlank(text, start, last.range.start)) {
      return { error: 'The links are written as a flow list ([...]); add the link in the editor.' };
    }
    return { edits: [insertLinesAfter(text, last.range.end, [`${text.slice(start, last.range.start)}${item}`])] };
  }
  const section = /^links[ \t]*:[ \t]*(\[[ \t]*\])?[ \t]*(#.*)?$/m.exec(text);
  if (section) {
    const at = section.index + section[0].length;
    if (section[1] !== undefined) {
      // `links: []`: the empty list becomes the block list's first item.
      const from = section.index + section[0].indexOf(':') + 1;
      const to = section.index + section[0].indexOf(']') + 1;
      return { edits: [{ start: from, end: to, text: `\n  ${item}` }] };
    }
    return { edits: [{ start: at, end: at, text: `\n  ${item}` }] };
  }
  if (/^links[ \t]*:/m.test(text)) return { error: 'The links section is not a list of links; fix it in the editor.' };
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return { edits: [{ start: text.length, end: text.length, text: `${separator}links:\n  ${item}\n` }] };
}

function endpointProblem(doc: LabDocument, endpoint: string): string | undefined {
  const colon = endpoint.indexOf(':');
  if (colon < 0) return findNetwork(doc, endpoint) ? undefined : `There is no network ${endpoint} in the lab.`;
  const node = endpoint.slice(0, colon);
  const iface = endpoint.slice(colon + 1);
  if (!findNode(doc, node)) return `There is no node ${node} in the lab.`;
  if (!/^[^\s,[\]{}#]+$/.test(iface)) return `${JSON.stringify(iface)} is not an interface name.`;
  return undefined;
}

/** Removes exactly the lines of one link item, comments around it left alone. */
export function deleteLinkEdits(doc: LabDocument, index: number): EditOutcome {
  const link = doc.links[index];
  if (!link) return { error: `There is no link ${index + 1} in the lab any more.` };
  const text = doc.text;
  const start = lineStartOf(text, link.range.start);
  const item = text[link.range.start] === '-' && isBlank(text, start, link.range.start);
  if (!item || !isLineEndOrComment(text, link.range.end)) {
    return { error: 'The link shares its line with other text (a flow list?); delete it in the editor.' };
  }
  return { edits: [removeLines(text, start, link.range.end)] };
}

function skipInlineSpace(text: string, offset: number): number {
  let at = offset;
  while (text[at] === ' ' || text[at] === '\t') at++;
  return at;
}

function isBlank(text: string, start: number, end: number): boolean {
  return text.slice(start, end).trim() === '';
}

/** Only spaces, then a comment or the end of the line, from `offset`. */
function isLineEndOrComment(text: string, offset: number): boolean {
  const at = skipInlineSpace(text, offset);
  return at >= text.length || text[at] === '\n' || text[at] === '\r' || text[at] === '#';
}
