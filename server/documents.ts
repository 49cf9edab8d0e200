/**
 * The open lab documents, each with its lab model parsed once per version.
 * Edits arrive as incremental changes and are applied to the model with
 * updateLab, which reparses only the part an edit touches: requests read the
 * cached model and never parse.
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

export class LabFile {
  constructor(
    readonly uri: string,
    /** The text with its line index, kept in step with `model`; positions ↔ offsets go through it. */
    readonly text: TextDocument,
    public model: LabDocument,
  ) {}

  get version(): number {
    return this.text.version;
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
}

/** One applied edit: the model it applied to and the range it replaced there. */
export interface AppliedEdit {
  before: LabDocument;
  start: number;
  end: number;
}

export class LabDocuments {
  private readonly files = new Map<string, LabFile>();

  constructor(private readonly log: Log) {}

  get(uri: string): LabFile | undefined {
    return this.files.get(uri);
  }

  all(): LabFile[] {
    return [...this.files.values()];
  }

  open(params: DidOpenTextDocumentParams): LabFile {
    const { uri, languageId, version, text } = params.textDocument;
    const file = new LabFile(uri, TextDocument.create(uri, languageId, version, text), parseLab(text));
    this.files.set(uri, file);
    return file;
  }

  /** Applies the changes of one didChange; undefined for a document that is not open. */
  change(params: DidChangeTextDocumentParams): { file: LabFile; edits: AppliedEdit[] } | undefined {
    const file = this.files.get(params.textDocument.uri);
    if (!file) return undefined;
    const edits = params.contentChanges.map((change) => this.applyChange(file, change, params.textDocument.version));
    // The model must describe exactly the editor's text; if an incremental update ever drifts, reparse.
    if (file.model.text.length !== file.text.getText().length) {
      this.log.warn(`incremental update of ${file.uri} drifted from the text; reparsed it`);
      file.model = parseLab(file.text.getText());
    }
    return { file, edits };
  }

  close(uri: string): void {
    this.files.delete(uri);
  }

  private applyChange(file: LabFile, change: TextDocumentContentChangeEvent, version: number): AppliedEdit {
    const before = file.model;
    if (!('range' in change)) {
      TextDocument.update(file.text, [change], version);
      file.model = parseLab(change.text);
      return { before, start: 0, end: before.text.length };
    }
    // Offsets are taken in the text before this change, as updateLab expects.
    const from = file.text.offsetAt(change.range.start);
    const to = file.text.offsetAt(change.range.end);
    // TextDocument.update accepts a reversed range by swapping its ends; do the same here.
    const [start, end] = from <= to ? [from, to] : [to, from];
    TextDocument.update(file.text, [change], version);
    try {
      file.model = updateLab(file.model, { start, end, text: change.text });
    } catch (error) {
      this.log.error(`incremental update of ${file.uri} failed; reparsing the whole document`, error);
      file.model = parseLab(file.text.getText());
    }
    return { before, start, end };
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
