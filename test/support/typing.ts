/**
 * Random edits of a lab as a person makes them, for driving a language
 * server: mostly typing and deleting around a cursor (new keys, new links,
 * half-typed lines, brackets and quotes left open), with the odd pasted line,
 * deleted line and jump elsewhere. The editor's text is mirrored, so every
 * edit is a valid LSP change of the current text. Seeded: a run can be replayed.
 */
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  readonly document: TextDocument;
  private cursor: number;
  /** What is left to type of the current line, one character per edit. */
  private queue: string[] = [];
  private readonly random: () => number;

  constructor(text: string, seed: number) {
    this.document = TextDocument.create('mirror:', 'lab-yaml', 1, text);
    this.random = seededRandom(seed);
    this.cursor = this.lineEnd(this.pick(text.length + 1));
  }

  get text(): string {
    return this.document.getText();
  }

  /** The next edit, already applied to the mirror. */
  next(): TextDocumentContentChangeEvent {
    const length = this.text.length;
    let start = this.cursor;
    let end = this.cursor;
    let inserted: string;
    const roll = this.random();
    // Words are typed after a line's indentation: at the start of a line, the cursor goes to the end of the one before.
    if (this.queue.length === 0 && start > 0 && start === this.lineStart(start)) start = end = this.cursor = start - 1;
    if (this.queue.length > 0) {
      inserted = this.queue.shift() ?? '';
    } else if (roll < 0.03) {
      // A jump elsewhere in the file.
      this.cursor = this.lineEnd(this.pick(length + 1));
      start = end = this.cursor;
      inserted = TYPED[this.pick(TYPED.length)];
    } else if (roll < 0.1) {
      // A new line, then its text typed one character at a time.
      this.cursor = this.lineEnd(this.cursor);
      start = end = this.cursor;
      inserted = '\n';
      this.queue = [...LINES[this.pick(LINES.length)]];
    } else if (roll < 0.11) {
      // A whole line deleted.
      start = this.lineStart(this.cursor);
      end = Math.min(length, this.lineEnd(this.cursor) + 1);
      inserted = '';
    } else if (roll < 0.26 && this.cursor > 0 && this.text[this.cursor - 1] !== '\n') {
      start = this.cursor - 1;
      inserted = '';
    } else if (roll < 0.265) {
      inserted = BREAKING[this.pick(BREAKING.length)];
    } else {
      inserted = TYPED[this.pick(TYPED.length)];
    }
    const range = { start: this.document.positionAt(start), end: this.document.positionAt(end) };
    TextDocument.update(this.document, [{ range, text: inserted }], this.document.version + 1);
    this.cursor = start + inserted.length;
    return { range, text: inserted };
  }

  private pick(n: number): number {
    return Math.floor(this.random() * n);
  }

  private lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  private lineEnd(offset: number): number {
    const newline = this.text.indexOf('\n', offset);
    return newline < 0 ? this.text.length : newline;
  }
}

/** The lab with one `[` left open near the top (in the first node's template): the rest stays readable. */
export function withUnclosedBracket(text: string): string {
  const at = text.indexOf('template: ', text.indexOf('\nnodes:')) + 'template: '.length;
  return `${text.slice(0, at)}[${text.slice(at)}`;
}
