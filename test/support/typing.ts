/**
 * Random edits of a lab as a person makes them, for driving a language
 * server: mostly typing and deleting around a cursor (new keys, new links,
 * half-typed lines, brackets and quotes left open), with the odd pasted line,
 * deleted line and jump elsewhere. The editor's text is mirrored, so every
 * edit is a valid LSP change of the current text. Seeded: a run can be replayed.
 */
import type { Position, TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol';
import { seededRandom } from './random';

/** Lines a person types, character by character: new keys, nodes and links, some of them wrong. */
const LINES = [
  '    cpu: 2',
  '    console: vnc',
  '    foo: bar',
  '  n900:\n    template: vios',
  '  - endpoints: [r1:Gi0/7, sw2:Gi3/3]',
  '  - endpoints: [r1:',
  '    position: {x: 1, y: 2}',
  '      - r1:',
  '# a comment',
  '',
];
/** What is typed at the cursor between lines: words, and brackets and quotes in pairs, as the editor closes them. */
const TYPED = [...'abcxyz0123456789 ', '[]', '{}', '""'];
/** Characters that stay unbalanced (rarely: as when the editor's auto-close is undone). */
const BREAKING = [...'[]{}"\':-#'];

export class TypingSimulator {
  /**
   * The mirror, one string per line. A flat text is copied whole at each
   * keystroke, and its line offsets shifted to the end: on the 2,000-node lab
   * that took more CPU than the server under test, on the same cores.
   */
  private readonly lines: string[];
  private length: number;
  private joined: string | undefined;
  private cursor: Position;
  /** What is left to type of the current line, one character per edit. */
  private queue: string[] = [];
  private readonly random: () => number;

  constructor(text: string, seed: number) {
    this.lines = text.split('\n');
    this.length = text.length;
    this.joined = text;
    this.random = seededRandom(seed);
    this.cursor = this.endOfLine(this.lineAt(this.pick(text.length + 1)));
  }

  get text(): string {
    this.joined ??= this.lines.join('\n');
    return this.joined;
  }

  /** The next edit, already applied to the mirror. */
  next(): TextDocumentContentChangeEvent {
    let start = this.cursor;
    let end = this.cursor;
    let inserted: string;
    const roll = this.random();
    // Words are typed after a line's indentation: at the start of a line, the cursor goes to the end of the one before.
    if (this.queue.length === 0 && start.line > 0 && start.character === 0)
      start = end = this.cursor = this.endOfLine(start.line - 1);
    if (this.queue.length > 0) {
      inserted = this.queue.shift() ?? '';
    } else if (roll < 0.03) {
      // A jump elsewhere in the file.
      this.cursor = this.endOfLine(this.lineAt(this.pick(this.length + 1)));
      start = end = this.cursor;
      inserted = TYPED[this.pick(TYPED.length)];
    } else if (roll < 0.1) {
      // A new line, then its text typed one character at a time.
      this.cursor = this.endOfLine(this.cursor.line);
      start = end = this.cursor;
      inserted = '\n';
      this.queue = [...LINES[this.pick(LINES.length)]];
    } else if (roll < 0.11) {
      // A whole line deleted, with its line break when it has one.
      const line = this.cursor.line;
      start = { line, character: 0 };
      end = line + 1 < this.lines.length ? { line: line + 1, character: 0 } : this.endOfLine(line);
      inserted = '';
    } else if (roll < 0.26 && this.cursor.character > 0) {
      start = { line: this.cursor.line, character: this.cursor.character - 1 };
      inserted = '';
    } else if (roll < 0.265) {
      inserted = BREAKING[this.pick(BREAKING.length)];
    } else {
      inserted = TYPED[this.pick(TYPED.length)];
    }
    this.cursor = this.replace(start, end, inserted);
    return { range: { start, end }, text: inserted };
  }

  /** Replaces the text between two positions; returns the position after the inserted text. */
  private replace(start: Position, end: Position, inserted: string): Position {
    const removed = this.lengthBetween(start, end);
    const parts = inserted.split('\n');
    const last = parts.length - 1;
    const after = { line: start.line + last, character: parts[last].length + (last === 0 ? start.character : 0) };
    parts[0] = this.lines[start.line].slice(0, start.character) + parts[0];
    parts[last] += this.lines[end.line].slice(end.character);
    this.lines.splice(start.line, end.line - start.line + 1, ...parts);
    this.length += inserted.length - removed;
    this.joined = undefined;
    return after;
  }

  /** The line holding an offset (an offset at a line break belongs to the line it ends). */
  private lineAt(offset: number): number {
    let line = 0;
    for (let lineEnd = this.lines[0].length; lineEnd < offset; lineEnd += this.lines[line].length + 1) line++;
    return line;
  }

  /** How many characters lie between two positions. */
  private lengthBetween(start: Position, end: Position): number {
    if (start.line === end.line) return end.character - start.character;
    let length = this.lines[start.line].length - start.character + 1 + end.character;
    for (let line = start.line + 1; line < end.line; line++) length += this.lines[line].length + 1;
    return length;
  }

  private endOfLine(line: number): Position {
    return { line, character: this.lines[line].length };
  }

  private pick(n: number): number {
    return Math.floor(this.random() * n);
  }
}

/** The lab with one `[` left open near the top (in the first node's template): the rest stays readable. */
export function withUnclosedBracket(text: string): string {
  const at = text.indexOf('template: ', text.indexOf('\nnodes:')) + 'template: '.length;
  return `${text.slice(0, at)}[${text.slice(at)}`;
}
