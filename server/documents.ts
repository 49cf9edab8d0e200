/**
 * The open lab documents, each with its lab model parsed once per version.
 * Edits arrive as incremental changes. The text takes each one at once (that
 * is cheap); the model takes them together: queued edits are coalesced into
 * one change and applied with updateLab, which reparses only the part that
 * change touches, when the message queue has drained or as soon as a request
 * reads the model. A burst of edits therefore costs one reparse, not one per
 * edit, and requests never see a model older than the text.
 */
import { fileURLToPath } from 'node:url';
import type {
  DidChangeTextDocumentParams,
  DidOpenTextDocumentParams,
  Position,
  Range as LspRange,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { ProjectPayload } from '../common/api/contract';
import { parseLab, updateLab } from '../common/lab/parse';
import type { LabDocument, Range } from '../common/lab/types';
import { buildProjectPayload } from '../common/project/payload';
import { UserFileError } from '../common/project/user-file';
import type { AgentProblem } from './agent-problems';
import type { Log } from './log';

/** One applied (coalesced) edit: the model it applied to and the range it replaced there. */
export interface AppliedEdit {
  before: LabDocument;
  start: number;
  end: number;
}

/** The edits not yet applied to the model, as one: model.text[start, oldEnd) became text[start, newEnd). */
interface PendingEdit {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/** Queued edits further apart than this (in characters) are not merged into one change. */
const FAR_APART = 2000;

export class LabFile {
  private current: LabDocument;
  private pending: PendingEdit | undefined;
  /** Results computed from `model` (symbols, lenses), dropped with it. */
  private derived = new Map<string, unknown>();

  constructor(
    readonly uri: string,
    /** The text with its line index; positions ↔ offsets go through it. */
    readonly text: TextDocument,
    model: LabDocument,
    private readonly updated: (file: LabFile, edit: AppliedEdit) => void,
    private readonly log: Log,
  ) {
    this.current = model;
  }

  /** The model of the current text: queued edits are applied first. */
  get model(): LabDocument {
    this.applyPending();
    return this.current;
  }

  get version(): number {
    return this.text.version;
  }

  /** What `compute` gives for the current model, computed once per model (per version). */
  cached<T>(key: string, compute: (file: LabFile) => T): T {
    const model = this.model;
    if (this.derived.has(key)) return this.derived.get(key) as T;
    const value = compute(this);
    // A model applied while computing (it read `model` again) must not take this older value.
    if (this.current === model) this.derived.set(key, value);
    return value;
  }

  /** Whether edits wait to be applied to the model. */
  get stale(): boolean {
    return this.pending !== undefined;
  }

  /** The file system path of a file: URI; undefined for untitled or virtual documents. */
  get path(): string | undefined {
    if (!this.uri.startsWith('file:')) return undefined;
    try {
      return fileURLToPath(this.uri);
    } catch {
      return undefined;
    }
  }

  offsetAt(position: Position): number {
    return this.text.offsetAt(position);
  }

  toLspRange(range: Range): LspRange {
    return { start: this.text.positionAt(range.start), end: this.text.positionAt(range.end) };
  }

  /** Takes one change into the text and the pending edit; the model follows in applyPending. */
  change(change: TextDocumentContentChangeEvent, version: number): void {
    const length = this.text.getText().length;
    let from = 0;
    let to = length;
    if ('range' in change) {
      const a = this.text.offsetAt(change.range.start);
      const b = this.text.offsetAt(change.range.end);
      // TextDocument.update accepts a reversed range by swapping its ends; do the same here.
      [from, to] = a <= b ? [a, b] : [b, a];
    }
    // Edits far apart (a jump elsewhere in a burst) are applied one by one: merged, the change would span the
    // text between them, and the reparse would re-read all of it.
    const far = this.pending && (from > this.pending.newEnd + FAR_APART || to + FAR_APART < this.pending.start);
    if (far) this.applyPending();
    TextDocument.update(this.text, [change], version);
    const newEnd = to + this.text.getText().length - length;
    const pending = this.pending;
    if (!pending) {
      this.pending = { start: from, oldEnd: to, newEnd };
      return;
    }
    // Merge: the union of both replaced stretches, its end mapped back into the model's text.
    const end = Math.max(pending.newEnd, to);
    this.pending = {
      start: Math.min(pending.start, from),
      oldEnd: pending.oldEnd + (end - pending.newEnd),
      newEnd: end + (newEnd - to),
    };
  }

  /** Applies the queued edits to the model as one change; tells the owner. */
  applyPending(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.derived = new Map();
    const before = this.current;
    const text = this.text.getText();
    const change = { start: pending.start, end: pending.oldEnd, text: text.slice(pending.start, pending.newEnd) };
    try {
      this.current = updateLab(before, change);
    } catch (error) {
      this.log.error(`incremental update of ${this.uri} failed; reparsing the whole document`, error);
      this.current = parseLab(text);
    }
    // The model must describe exactly the editor's text; if an incremental update ever drifts, reparse.
    if (this.current.text.length !== text.length) {
      this.log.warn(`incremental update of ${this.uri} drifted from the text; reparsed it`);
      this.current = parseLab(text);
    }
    this.updated(this, { before, start: pending.start, end: pending.oldEnd });
  }
}

export class LabDocuments {
  private readonly files = new Map<string, LabFile>();

  /** `updated` hears of every new model, after its edits were applied. */
  constructor(
    private readonly log: Log,
    private readonly updated: (file: LabFile, edit: AppliedEdit) => void,
  ) {}

  get(uri: string): LabFile | undefined {
    return this.files.get(uri);
  }

  all(): LabFile[] {
    return [...this.files.values()];
  }

  open(params: DidOpenTextDocumentParams): LabFile {
    const { uri, languageId, version, text } = params.textDocument;
    const document = TextDocument.create(uri, languageId, version, text);
    const file = new LabFile(uri, document, parseLab(text), this.updated, this.log);
    this.files.set(uri, file);
    return file;
  }

  /** Takes the changes of one didChange into the text; the model follows later. Undefined for a document not open. */
  change(params: DidChangeTextDocumentParams): LabFile | undefined {
    const file = this.files.get(params.textDocument.uri);
    if (!file) return undefined;
    for (const change of params.contentChanges) file.change(change, params.textDocument.version);
    return file;
  }

  /** Applies every document's queued edits. */
  applyPending(): void {
    for (const file of this.files.values()) file.applyPending();
  }

  close(uri: string): void {
    this.files.delete(uri);
  }
}

/**
 * The payload of a document: with its configs and stored state when it is a
 * file on disk; or why a file it needs was refused (reported like an agent failure).
 */
export async function projectPayload(file: LabFile): Promise<{ payload: ProjectPayload } | { problem: AgentProblem }> {
  const text = file.model.text;
  const path = file.path;
  if (path === undefined) return { payload: { yaml: text, files: {} } };
  try {
    return { payload: await buildProjectPayload(path, text, file.model) };
  } catch (error) {
    if (!(error instanceof UserFileError)) throw error;
    return { problem: { code: 'file_refused', message: error.message, affectsSession: false } };
  }
}
