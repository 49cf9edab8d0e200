/**
 * The open lab documents, each with its lab model parsed once per version.
 * Edits arrive as incremental changes. The text takes each one at once, at
 * the cost of what it touches (a TextBuffer keeps the edited stretches over
 * the last full text, and is made whole only once they are many or long);
 * the model takes them together: the edits queued since the last update, each
 * merged with the one before when it touches what that one wrote, are applied
 * with updateLab, which reparses only the part each touches, when the message
 * queue has drained or as soon as a request reads the model. A burst of
 * edits therefore costs one reparse per place it edited, not one per edit,
 * one publish, and requests never see a model older than the text.
 */
import { fileURLToPath } from 'node:url';
import type {
  DidChangeTextDocumentParams,
  DidOpenTextDocumentParams,
  Position,
  Range as LspRange,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver/node';
import type { ProjectDiagnostic, ProjectPayload } from '../common/api/contract';
import { parseLab, textLengthOf, updateLab } from '../common/lab/parse/parse';
import type { LabDocument, Range, TextChange } from '../common/lab/model/types';
import { documentLimitProblem } from '../common/project-files/document-limits';
import { buildProjectPayload } from '../common/project-files/payload';
import { UserFileError } from '../common/project-files/user-file';
import type { AgentProblem } from './agent-problems';
import type { ConfigFiles } from './config-files';
import type { Log } from './log';
import { TextBuffer } from './text-buffer';

/** One applied (coalesced) edit: the model it applied to and the range it replaced there. */
export interface AppliedEdit {
  before: LabDocument;
  start: number;
  end: number;
}

/** Edits waiting for the model at most (each far from the one before is its own small reparse): past that, a burst that keeps jumping around applies what it has. */
const MAX_PENDING = 64;
/**
 * Stretches the text keeps over its base at most, and characters in them: past
 * either it is made whole again (a copy of the text and its line index, which
 * at 10,000 nodes cost milliseconds: not at every keystroke).
 */
const MAX_STRETCHES = 16;
const MAX_STRETCHED = 64 * 1024;

export class LabFile {
  private current: LabDocument;
  /** Results computed from `model` (symbols, lenses), dropped with it. */
  private derived = new Map<string, unknown>();
  /** Edits not yet applied to the model, each in the text the one before it left. */
  private pending: TextChange[] = [];

  constructor(
    readonly uri: string,
    /** The editor's text with its line index, edits not yet applied to the model included; positions ↔ offsets go through it. */
    readonly text: TextBuffer,
    model: LabDocument,
    private readonly updated: (file: LabFile, edits: readonly AppliedEdit[]) => void,
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
    return this.pending.length > 0;
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

  /** Takes one change into the text; the model follows in applyPending. */
  change(change: TextDocumentContentChangeEvent, version: number): void {
    let edit: TextChange;
    if ('range' in change) {
      const [a, b] = [this.text.offsetAt(change.range.start), this.text.offsetAt(change.range.end)];
      edit = { start: Math.min(a, b), end: Math.max(a, b), text: change.text };
    } else {
      edit = { start: 0, end: this.text.length, text: change.text };
    }
    this.text.update(change, version);
    const last = this.pending.at(-1);
    const merged = last && mergedEdit(last, edit);
    if (merged) this.pending[this.pending.length - 1] = merged;
    else this.pending.push(edit);
    if (this.pending.length > MAX_PENDING) this.applyPending();
  }

  /** Applies the queued edits to the model, one update per place edited, and tells the owner once. */
  applyPending(): void {
    if (this.pending.length === 0) return;
    this.derived = new Map();
    const edits: AppliedEdit[] = [];
    let failed = false;
    for (const change of this.pending) {
      edits.push({ before: this.current, start: change.start, end: change.end });
      if (failed) continue;
      try {
        this.current = updateLab(this.current, change);
        // What each version replaced is known only once its census is read: the checks then follow every step.
        void this.current.replaced;
      } catch (error) {
        this.log.error(`incremental update of ${this.uri} failed; reparsing the whole document`, error);
        failed = true;
      }
    }
    this.pending = [];
    // The model must describe exactly the editor's text; if an incremental update ever drifts, reparse.
    if (!failed && textLengthOf(this.current) !== this.text.length) {
      this.log.warn(`incremental update of ${this.uri} drifted from the text; reparsed it`);
      failed = true;
    }
    if (failed) this.current = parseLab(this.text.commit());
    else this.commitWhenLong();
    this.updated(this, edits);
  }

  /**
   * Makes the text whole again once its stretches are many or long, sharing
   * the model's copy of it, which must be the same text (else the model is
   * read again from the editor's).
   */
  private commitWhenLong(): void {
    const stretches = this.text.stretches;
    if (stretches.length <= MAX_STRETCHES && stretches.reduce((sum, s) => sum + s.text.length, 0) <= MAX_STRETCHED)
      return;
    if (this.text.commitAs(this.current.text)) return;
    this.log.warn(`incremental update of ${this.uri} drifted from the text; reparsed it`);
    this.current = parseLab(this.text.commit());
  }
}

/**
 * `a` then `b` as one edit of the text before `a`, when `b` touches what `a`
 * wrote (typing, deleting backwards): one reparse then reads both.
 */
function mergedEdit(a: TextChange, b: TextChange): TextChange | undefined {
  const written = a.start + a.text.length;
  if (b.start > written || b.end < a.start) return undefined;
  const grown = a.text.length - (a.end - a.start);
  const before = b.start > a.start ? a.text.slice(0, b.start - a.start) : '';
  const after = b.end < written ? a.text.slice(b.end - a.start) : '';
  return { start: Math.min(a.start, b.start), end: Math.max(written, b.end) - grown, text: before + b.text + after };
}

export class LabDocuments {
  private readonly files = new Map<string, LabFile>();

  /** `updated` hears of every new model, after its edits were applied. */
  constructor(
    private readonly log: Log,
    private readonly updated: (file: LabFile, edits: readonly AppliedEdit[]) => void,
  ) {}

  get(uri: string): LabFile | undefined {
    return this.files.get(uri);
  }

  all(): LabFile[] {
    return [...this.files.values()];
  }

  open(params: DidOpenTextDocumentParams): LabFile {
    const { uri, version, text } = params.textDocument;
    const file = new LabFile(uri, new TextBuffer(text, version), parseLab(text), this.updated, this.log);
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

  /** Forgets the document; returns how long its text was (0 when it was not open). */
  close(uri: string): number {
    const length = this.files.get(uri)?.text.length ?? 0;
    this.files.delete(uri);
    return length;
  }
}

/**
 * The payload of a document: with its configs (read through `configs`, which
 * then watches them) and stored state when it is a file on disk; or why it is
 * not sent: the diagnostic the agent would answer for a document it does not
 * read (its nesting and alias limits), or why a file it needs was refused
 * (reported like an agent failure).
 */
export async function documentPayload(
  file: LabFile,
  configs: ConfigFiles,
): Promise<{ payload: ProjectPayload } | { problem: AgentProblem } | { refused: ProjectDiagnostic }> {
  const text = file.model.text;
  const refused = documentLimitProblem(text);
  if (refused) return { refused };
  const path = file.path;
  if (path === undefined) return { payload: { yaml: text, files: {} } };
  configs.follow(file.uri, path, file.model);
  try {
    return { payload: await buildProjectPayload(path, text, file.model, configs.cacheOf(file.uri)) };
  } catch (error) {
    if (!(error instanceof UserFileError)) throw error;
    return { problem: { code: 'file_refused', message: error.message, affectsSession: false } };
  }
}
