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

/** Whole lines a person types or pastes: new keys, nodes and links, some of them wrong. */
const LINES = [
  '    cpu: 2\n',
  '    console: vnc\n',
  '    foo: bar\n',
  '  n900:\n    template: vios\n',
  '  - endpoints: [r1:Gi0/7, sw2:Gi3/3]\n',
  '  - endpoints: [r1:\n',
  '    position: {x: 1, y: 2}\n',
  '      - r1:\n',
  '# a comment\n',
  '\n',
];
/** What is typed at the cursor: characters, and brackets and quotes in pairs, as the editor closes them. */
const TYPED = [...'abcxyz0123456789::  -\n\n', '[]', '{}', '""'];
/** Characters that stay unbalanced when typed alone (rarely, as when the editor's auto-close is undone). */
const BREAKING = [...'[]{}"\'#'];

export class TypingSimulator {
  readonly document: TextDocument;
  private cursor: number;
  private readonly random: () => number;

  constructor(text: string, seed: number) {
    this.document = TextDocument.create('mirror:', 'lab-yaml', 1, text);
    this.random = seededRandom(seed);
    this.cursor = this.pick(text.length + 1);
  }

  get text(): string {
    return this.document.getText();
  }

  /** The next edit, already applied to the mirror. */
  next(): TextDocumentContentChangeEvent {
    const length = this.text.length;
    const roll = this.random();
    let start = this.cursor;
    let end = this.cursor;
    let inserted: string;
    if (roll < 0.03) {
      // A jump: elsewhere in the file, at a line start.
      this.cursor = this.lineStart(this.pick(length + 1));
      start = end = this.cursor;
      inserted = TYPED[this.pick(TYPED.length)];
    } else if (roll < 0.035) {
      inserted = BREAKING[this.pick(BREAKING.length)];
    } else if (roll < 0.08) {
      start = end = this.lineStart(this.cursor);
      inserted = LINES[this.pick(LINES.length)];
    } else if (roll < 0.1) {
      start = this.lineStart(this.cursor);
      const newline = this.text.indexOf('\n', start);
      end = newline < 0 ? length : newline + 1;
      inserted = '';
    } else if (roll < 0.25 && this.cursor > 0) {
      start = this.cursor - 1;
      inserted = '';
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
}

/** The lab with one `[` left open near the top (in the first node's template): the rest stays readable. */
export function withUnclosedBracket(text: string): string {
  const at = text.indexOf('template: ', text.indexOf('\nnodes:')) + 'template: '.length;
  return `${text.slice(0, at)}[${text.slice(at)}`;
}
