/**
 * The edit that sets a node's interface count: its own `ethernet` value
 * changed, or, when it inherits the count, a line added under its name
 * (indented as its first field). Shared by the "raise ethernet" quick fix and
 * the completion item of a node without free interfaces.
 */
import type { TextEdit } from 'vscode-languageserver/node';
import { NODE_FIELD_NAMES, type LabNode } from '../common/lab/model/types';
import type { LabFile } from './documents';

export function setEthernetEdit(file: LabFile, node: LabNode, count: number): TextEdit | undefined {
  const own = node.fields.ethernet;
  if (own) return { range: file.toLspRange(own.range), newText: String(count) };
  const text = file.model.text;
  const nameLineEnd = text.indexOf('\n', node.nameRange.end);
  if (nameLineEnd < 0) return undefined;
  const firstField = NODE_FIELD_NAMES.map((name) => node.fields[name]).find((f) => f !== undefined);
  const column = firstField
    ? firstField.keyRange.start - (text.lastIndexOf('\n', firstField.keyRange.start) + 1)
    : node.nameRange.start - (text.lastIndexOf('\n', node.nameRange.start) + 1) + 2;
  return {
    range: file.toLspRange({ start: nameLineEnd, end: nameLineEnd }),
    newText: `\n${' '.repeat(column)}ethernet: ${count}`,
  };
}
