/**
 * Where a line of text starts and ends, for every bundle that edits or reads
 * text by lines (the lab model, the language server, the agent's text edits,
 * the client's change detection): one guarded copy of each.
 */

/** What these helpers read of a text: a string, or a text kept in parts (EditedText). */
export interface TextLike {
  readonly length: number;
  slice(start?: number, end?: number): string;
  charCodeAt(index: number): number;
  indexOf(search: string, position?: number): number;
  lastIndexOf(search: string, position?: number): number;
}

/** The offset of the first character of the line holding `offset`. */
export function lineStartOf(text: TextLike, offset: number): number {
  // lastIndexOf with a negative start still looks at index 0: a text starting with a newline would put line 0 at 1.
  return offset <= 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset of the line break that ends the line holding `offset` (before a `\r\n`'s `\r`), or the text's end. */
export function lineEnd(text: string, offset: number): number {
  const at = text.indexOf('\n', offset);
  const end = at < 0 ? text.length : at;
  return end > offset && text[end - 1] === '\r' ? end - 1 : end;
}
