/**
 * The open lab documents, each with its lab model parsed once per version.
 * Edits arrive as incremental changes. The text takes each one at once, at
 * the cost of what it touches (a TextBuffer keeps the edited stretches over
 * the last full text); the model takes them together: each stretch is applied
 * with updateLab, which reparses only the part it touches, when the message
 * queue has drained or as soon as a request reads the model. A burst of edits
 * therefore costs one reparse per place it edited, not one per edit, one
 * publish, and requests never see a model older than the text.
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
import { parseLab, updateLab } from '../common/lab/parse/parse';
import type { LabDocument, Range, TextChange } from '../common/lab/model/types';
import { documentLimitProblem } from '../common/project-files/document-limits';
import { buildProjectPayload } from '../common/project-files/payload';
import { UserFileError } from '../common/project-files/user-file';
import type { AgentProblem } from './agent-problems';
import type { ConfigFiles } from './config-files';
import type { Log } from './log';
import { TextBuffer, type Stretch } from './text-buffer';

/** One applied (coalesced) edit: the model it applied to and the range it replaced there. */
export interface AppliedEdit {
  before: LabDocument;
  start: number;
  end: number;
}

/**
 * Stretches of edits waiting for the model at most: past that, a burst that
 * keeps jumping around applies what it has (each stretch costs the model one
 * small update; merged, they would re-read all the text between them).
 */
const MAX_STRETCHES = 16;
/** Stretches closer than this (in characters) go to the model as one change: one reparse reads them both. */
const NEAR = 2000;

export class LabFile {
  private current: LabDocument;
  /** Results computed from `model` (symbols, lenses), dropped with it. */
  private derived = new Map<string, unknown>();

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
    return this.text.stretches.length > 0;
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
    this.text.update(change, version);
    if (this.text.stretches.length > MAX_STRETCHES) this.applyPending();
  }

  /** Applies the queued edits to the model, one update per place edited, and tells the owner once. */
  applyPending(): void {
    if (this.text.stretches.length === 0) return;
    this.derived = new Map();
    const changes = nearTogether(this.current.text, this.text.stretches);
    const edits: AppliedEdit[] = [];
    let failed = false;
    // From the last change to the first: each one's offsets still hold in the model it applies to.
    for (const change of changes.reverse()) {
      edits.push({ before: this.current, start: change.start, end: change.end });
      if (failed) continue;
      try {
        this.current = updateLab(this.current, change);
      } catch (error) {
        this.log.error(`incremental update of ${this.uri} failed; reparsing the whole document`, error);
        failed = true;
      }
    }
    // The model must describe exactly the editor's text; if an incremental update ever drifts, reparse.
    if (!failed && !this.text.commitAs(this.current.text)) {
      this.log.warn(`incremental update of ${this.uri} drifted from the text; reparsed it`);
      failed = true;
    }
    if (failed) this.current = parseLab(this.text.commit());
    this.updated(this, edits);
  }
}

/** The stretches as changes of `base`, those near each other merged into one with the text between them. */
function nearTogether(base: string, stretches: readonly Stretch[]): TextChange[] {
  const changes: TextChange[] = [];
  for (const { start, end, text } of stretches) {
    const previous = changes.at(-1);
    if (previous && start - previous.end <= NEAR) {
      previous.text += base.slice(previous.end, start) + text;
      previous.end = end;
    } else {
      changes.push({ start, end, text });
    }
  }
  return changes;
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

  close(uri: string): void {
    this.files.delete(uri);
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
