/**
 * The smallest single replacement that turns one text into another, in whole
 * lines: what the extension puts in a WorkspaceEdit, so that an edit from the
 * agent touches only the lines that differ (cursor, folding and markers
 * elsewhere stay where they were).
 */
import { lineStartOf } from '../../common/text-lines';

export interface TextReplacement {
  /** Offsets in the old text. */
  start: number;
  end: number;
  text: string;
}

export function changedLines(oldText: string, newText: string): TextReplacement | undefined {
  if (oldText === newText) return undefined;
  const limit = Math.min(oldText.length, newText.length);
  let prefix = 0;
  while (prefix < limit && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++;
  // Back to the start of the line the first difference is on.
  prefix = lineStartOf(oldText, prefix);
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)
  )
    suffix++;
  // Back to a line start, so the replacement is whole lines (the shared tail is the same in both texts).
  while (suffix > 0 && oldText[oldText.length - suffix - 1] !== '\n') suffix--;
  return { start: prefix, end: oldText.length - suffix, text: newText.slice(prefix, newText.length - suffix) };
}
