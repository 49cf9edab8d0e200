/**
 * Go to definition: from a link endpoint to the node (or network) it names.
 */
import type { Location, Position } from 'vscode-languageserver/node';
import { findNetwork, findNode, linkAt } from '../../common/lab/model/lookup';
import type { LabFile } from '../documents';

export function findDefinition(file: LabFile, position: Position): Location | null {
  const endpoint = linkAt(file.model, file.offsetAt(position))?.endpoint;
  if (!endpoint) return null;
  const target =
    endpoint.node !== undefined
      ? findNode(file.model, endpoint.node)
      : endpoint.network !== undefined
        ? findNetwork(file.model, endpoint.network)
        : undefined;
  return target ? { uri: file.uri, range: file.toLspRange(target.nameRange) } : null;
}
