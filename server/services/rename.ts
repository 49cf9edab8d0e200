/**
 * Rename of a node or network: its key and every link endpoint that names it.
 * Works from the key itself or from any endpoint naming it.
 */
import {
  ErrorCodes,
  ResponseError,
  type Position,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { ELEMENT_NAME_PATTERN } from '../../common/lab/rules/format';
import type { LabDocument, Range } from '../../common/lab/model/types';
import { findNetwork, findNode, linkAt } from '../../common/lab/model/lookup';
import type { LabFile } from '../documents';

interface RenameTarget {
  kind: 'node' | 'network';
  name: string;
  /** What the cursor is on: the key or the name inside an endpoint. */
  range: Range;
}

export function prepareRename(
  file: LabFile,
  position: Position,
): { range: ReturnType<LabFile['toLspRange']>; placeholder: string } | null {
  const target = renameTarget(file.model, file.offsetAt(position));
  return target ? { range: file.toLspRange(target.range), placeholder: target.name } : null;
}

export function renameSymbol(file: LabFile, position: Position, newName: string): WorkspaceEdit {
  const doc = file.model;
  const target = renameTarget(doc, file.offsetAt(position));
  if (!target)
    throw new ResponseError(
      ErrorCodes.InvalidRequest,
      'Only node and network names can be renamed; place the cursor on a name under nodes or networks, or on a link endpoint.',
    );
  if (typeof newName !== 'string' || !ELEMENT_NAME_PATTERN.test(newName)) {
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `"${String(newName)}" cannot name a ${target.kind}: use letters, digits, _ and - only (e.g. ${target.kind === 'node' ? 'r1' : 'mgmt'}).`,
    );
  }
  if (newName === target.name) return { changes: { [file.uri]: [] } };
  const taken = target.kind === 'node' ? findNode(doc, newName) : findNetwork(doc, newName);
  if (taken)
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `A ${target.kind} named ${newName} already exists; choose another name.`,
    );
  const edit = (range: Range, text: string): TextEdit => ({ range: file.toLspRange(range), newText: text });
  const edits: TextEdit[] = [];
  if (target.kind === 'node') {
    const node = findNode(doc, target.name);
    if (node) edits.push(edit(node.nameRange, newName));
    for (const link of doc.links) {
      for (const endpoint of link.endpoints) {
        if (endpoint.node !== target.name || !endpoint.nodeRange) continue;
        // An endpoint written with escapes has no exact node range: rewrite it whole.
        const whole =
          endpoint.nodeRange.start === endpoint.range.start && endpoint.nodeRange.end === endpoint.range.end;
        edits.push(
          whole ? edit(endpoint.range, `${newName}:${endpoint.interface ?? ''}`) : edit(endpoint.nodeRange, newName),
        );
      }
    }
  } else {
    const network = findNetwork(doc, target.name);
    if (network) edits.push(edit(network.nameRange, newName));
    for (const link of doc.links) {
      for (const endpoint of link.endpoints)
        if (endpoint.network === target.name) edits.push(edit(endpoint.range, newName));
    }
  }
  return { changes: { [file.uri]: edits } };
}

function renameTarget(doc: LabDocument, offset: number): RenameTarget | undefined {
  const hit = linkAt(doc, offset);
  if (hit?.endpoint) {
    const { endpoint, part } = hit;
    if (endpoint.node !== undefined && endpoint.nodeRange && part === 'node') {
      return findNode(doc, endpoint.node)
        ? { kind: 'node', name: endpoint.node, range: endpoint.nodeRange }
        : undefined;
    }
    if (endpoint.network !== undefined) {
      return findNetwork(doc, endpoint.network)
        ? { kind: 'network', name: endpoint.network, range: endpoint.range }
        : undefined;
    }
    return undefined;
  }
  const at = doc.pathAt(offset);
  if (at?.on !== 'key' || at.path.length !== 2) return undefined;
  const name = String(at.path[1]);
  if (at.path[0] === 'nodes') {
    const node = findNode(doc, name);
    return node ? { kind: 'node', name, range: node.nameRange } : undefined;
  }
  if (at.path[0] === 'networks') {
    const network = findNetwork(doc, name);
    return network ? { kind: 'network', name, range: network.nameRange } : undefined;
  }
  return undefined;
}
