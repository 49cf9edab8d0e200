/**
 * Diagnostics of a lab document, from two sources published together:
 * - local checks (source 'lab-yaml'), computed from the cached model and
 *   published at once on every change;
 * - the agent's validateProject (source 'lab-agent'), run once typing pauses,
 *   cancelled when a newer version arrives, and located through each
 *   finding's YAML path in the current model.
 */
import { DiagnosticSeverity, type Connection, type Diagnostic } from 'vscode-languageserver/node';
import { agentCode, boundedText } from '../../common/api/agent-text';
import type { ProjectDiagnostic } from '../../common/api/contract';
import {
  DEFAULT_MESSAGE_EXAMPLES,
  LabChecks,
  validateLab,
  type LocalDiagnostic,
  type MessageExamples,
} from '../../common/lab/rules/validate';
import { MAX_DIAGNOSTICS } from '../../common/project-files/document-limits';
import { lineEnd } from '../../common/text-lines';
import type { AgentProblem } from '../agent-problems';
import type { ConfigFiles } from '../config-files';
import { documentPayload, type AppliedEdit, type LabDocuments, type LabFile } from '../documents';
import type { Log } from '../log';
import type { AgentOf } from '../remote-agent';

export const LOCAL_SOURCE = 'lab-yaml';
export const AGENT_SOURCE = 'lab-agent';
/** Pause after the last edit before asking the agent. */
const VALIDATE_DELAY_MS = 300;
const VALIDATE_TIMEOUT_MS = 15_000;

/** What the agent said about the last version it validated; paths are re-located in newer versions. */
interface AgentFindings {
  diagnostics: ProjectDiagnostic[];
  failure?: AgentProblem;
}

interface LocalFindings {
  version: number;
  /** The first MAX_DIAGNOSTICS findings, of `total`; the others are only counted. */
  found: LocalDiagnostic[];
  total: number;
  /** `found` as published. */
  diagnostics: Diagnostic[];
  /** What identifies each local finding, to drop the agent's copies of it (the agent runs the same checks); made when needed. */
  keys?: Set<string>;
}

interface PendingValidation {
  timer?: NodeJS.Timeout;
  abort: AbortController;
}

export class DiagnosticsService {
  private readonly pending = new Map<string, PendingValidation>();
  private readonly findings = new Map<string, AgentFindings>();
  private readonly local = new Map<string, LocalFindings>();
  /** Per document, what the local checks found on each element, so that a new version re-checks what changed. */
  private readonly checks = new Map<string, LabChecks>();
  /**
   * Documents whose diagnostics are being written to the client, and whether a
   * newer set waits: one publish per document is in flight, so a client that
   * reads slowly never makes the server hold a backlog of stale publishes.
   */
  private readonly writing = new Map<string, { again: boolean }>();
  /** Each agent's examples for local messages (see message-examples.ts); EVE-NG's until the agent says. */
  private readonly examples = new Map<string, MessageExamples>();
  /**
   * Documents still open whose file was deleted from disk: their Problems are gone until the text
   * changes (VS Code may keep a closed editor's document open long after the file went).
   */
  private readonly deleted = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: LabDocuments,
    private readonly agentOf: AgentOf,
    private readonly configs: ConfigFiles,
    private readonly log: Log,
  ) {}

  /**
   * A new version of `file`: publish local findings now, ask the agent once
   * typing pauses. Until the agent answers, its earlier findings stay, except
   * those on text the edits touched: they may no longer hold.
   */
  documentChanged(file: LabFile, edits: readonly AppliedEdit[] = []): void {
    this.deleted.delete(file.uri);
    this.cancel(file.uri);
    const findings = this.findings.get(file.uri);
    if (findings && edits.length > 0) {
      findings.diagnostics = findings.diagnostics.filter((finding) => !edits.some((edit) => touches(edit, finding)));
    }
    this.publish(file);
    this.schedule(file);
  }

  /** A config the lab names was created, changed or deleted: ask the agent again (the local checks read no configs). */
  configsChanged(file: LabFile): void {
    this.cancel(file.uri);
    this.schedule(file);
  }

  documentClosed(uri: string): void {
    this.deleted.delete(uri);
    this.forget(uri);
  }

  /** The lab file was deleted from disk: its Problems go, even while VS Code keeps its document open. */
  fileDeleted(uri: string): void {
    if (!this.documents.get(uri)) return;
    this.deleted.add(uri);
    this.forget(uri);
  }

  /** A deleted lab file is back on disk: its document's Problems are shown again. */
  fileCreated(uri: string): void {
    const file = this.documents.get(uri);
    if (!file || !this.deleted.delete(uri)) return;
    this.publish(file);
    this.schedule(file);
  }

  private forget(uri: string): void {
    this.cancel(uri);
    this.findings.delete(uri);
    this.local.delete(uri);
    this.checks.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] }).catch(() => undefined);
  }

  /** Local messages of the agent's documents give these examples from now on: their local findings are made again. */
  useExamples(agent: string, wanted: MessageExamples | undefined): void {
    const examples = wanted ?? DEFAULT_MESSAGE_EXAMPLES;
    const before = this.examplesOf(agent);
    // The same examples again (an EVE-NG agent's are the defaults): nothing to publish.
    if (examples.template === before.template && examples.interfaceName === before.interfaceName) return;
    this.examples.set(agent, examples);
    for (const file of this.documents.all()) {
      if (this.agentOf(file.uri).name !== agent) continue;
      this.checks.delete(file.uri);
      this.local.delete(file.uri);
      this.publish(file);
    }
  }

  revalidateAll(): void {
    this.revalidate(() => true);
  }

  /** The agent's session or the document's binding changed: what the agent said no longer holds; ask again. */
  revalidate(which: (uri: string) => boolean): void {
    for (const file of this.documents.all()) {
      if (!which(file.uri)) continue;
      this.cancel(file.uri);
      this.findings.delete(file.uri);
      this.publish(file);
      this.schedule(file);
    }
  }

  private schedule(file: LabFile): void {
    // The agent cannot say anything useful about text that is not YAML; the local syntax errors say it all.
    if (!this.agentOf(file.uri).active || file.model.syntaxErrors.length > 0 || this.deleted.has(file.uri)) return;
    const pending: PendingValidation = { abort: new AbortController() };
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      this.validate(file, file.version, pending.abort.signal).catch((error: unknown) => {
        this.log.error(`validating ${file.uri} failed`, error);
      });
    }, VALIDATE_DELAY_MS);
    this.pending.set(file.uri, pending);
  }

  private cancel(uri: string): void {
    const pending = this.pending.get(uri);
    if (!pending) return;
    if (pending.timer) clearTimeout(pending.timer);
    pending.abort.abort();
    this.pending.delete(uri);
  }

  private async validate(file: LabFile, version: number, signal: AbortSignal): Promise<void> {
    const built = await documentPayload(file, this.configs);
    if (signal.aborted) return;
    if ('refused' in built) {
      // What the agent would answer, without sending it a document it does not read.
      this.findings.set(file.uri, { diagnostics: [built.refused] });
      this.publish(file);
      return;
    }
    const agent = this.agentOf(file.uri);
    const outcome =
      'problem' in built
        ? { ok: false as const, problem: built.problem, cancelled: false }
        : await agent.call((client) =>
            client.validateProject(built.payload, { timeoutMs: VALIDATE_TIMEOUT_MS, signal }),
          );
    // A newer version (or session, or agent) took over while the agent worked: its own validation will publish.
    if (
      outcome === undefined ||
      signal.aborted ||
      file.version !== version ||
      this.documents.get(file.uri) !== file ||
      this.agentOf(file.uri) !== agent
    )
      return;
    if (outcome.ok) {
      this.findings.set(file.uri, { diagnostics: readProjectDiagnostics(outcome.value.diagnostics) });
    } else if (!outcome.cancelled) {
      this.findings.set(file.uri, { diagnostics: [], failure: outcome.problem });
    }
    this.publish(file);
  }

  private publish(file: LabFile): void {
    // Edits wait for the model: their apply (always queued behind them) publishes the newer version instead.
    if (file.stale || this.deleted.has(file.uri)) return;
    const writing = this.writing.get(file.uri);
    if (writing) {
      writing.again = true;
      // The local checks still follow this version when that costs what its edits touched: the next version
      // published can then be followed from it (see LabChecks.follow), not checked by a look at every element.
      this.checks.get(file.uri)?.follow(file.model);
      return;
    }
    const local = this.localFindings(file);
    const agent = file.model.syntaxErrors.length > 0 ? [] : this.agentDiagnostics(file, local);
    const mine = { again: false };
    this.writing.set(file.uri, mine);
    const diagnostics = capped([...local.diagnostics, ...agent], local.total + agent.length);
    void this.connection
      .sendDiagnostics({ uri: file.uri, version: file.version, diagnostics })
      .catch((error: unknown) => this.log.error('could not publish diagnostics', error))
      .finally(() => {
        this.writing.delete(file.uri);
        // The newest diagnostics of a document still open follow the ones just written.
        const current = this.documents.get(file.uri);
        if (mine.again && current) this.publish(current);
      });
  }

  private localFindings(file: LabFile): LocalFindings {
    const cached = this.local.get(file.uri);
    if (cached?.version === file.version) return cached;
    let checks = this.checks.get(file.uri);
    if (!checks) {
      checks = new LabChecks(this.examplesOf(this.agentOf(file.uri).name));
      this.checks.set(file.uri, checks);
    }
    const { shown, total } = checks.check(file.model, MAX_DIAGNOSTICS);
    const findings = {
      version: file.version,
      found: shown,
      total,
      diagnostics: shown.map((d) => toLspDiagnostic(file, d)),
    };
    this.local.set(file.uri, findings);
    return findings;
  }

  private localKeys(file: LabFile, local: LocalFindings): ReadonlySet<string> {
    if (local.keys) return local.keys;
    const keys = new Set<string>();
    const all =
      local.total > local.found.length
        ? validateLab(file.model, this.examplesOf(this.agentOf(file.uri).name))
        : local.found;
    all.forEach((d, i) => {
      const diagnostic = local.diagnostics[i] ?? toLspDiagnostic(file, d);
      keys.add(rangeKey(diagnostic, d.code));
      keys.add(rangeKey(diagnostic, d.message));
      if (d.path) keys.add(pathKey(d.path, d.code));
    });
    local.keys = keys;
    return keys;
  }

  private examplesOf(agent: string): MessageExamples {
    return this.examples.get(agent) ?? DEFAULT_MESSAGE_EXAMPLES;
  }

  private agentDiagnostics(file: LabFile, local: LocalFindings): Diagnostic[] {
    const findings = this.findings.get(file.uri);
    if (!findings) return [];
    // An agent down or logged out is said once, on the plan lens (and the status bar), not on every lab of it.
    if (findings.failure?.affectsSession) return [];
    if (findings.failure) {
      const firstLine = file.text.positionAt(Math.max(0, lineEnd(file.model.text, 0)));
      return [
        {
          range: { start: { line: 0, character: 0 }, end: firstLine },
          severity: DiagnosticSeverity.Warning,
          source: AGENT_SOURCE,
          code: findings.failure.code,
          message: `The agent could not validate this lab: ${findings.failure.message}`,
        },
      ];
    }
    const result: Diagnostic[] = [];
    const localKeys = findings.diagnostics.length > 0 ? this.localKeys(file, local) : new Set<string>();
    for (const finding of findings.diagnostics) {
      const path = finding.path ?? [];
      const range = file.model.rangeOfPath(path) ?? { start: 0, end: 0 };
      const diagnostic: Diagnostic = {
        range: file.toLspRange(range),
        severity: toSeverity(finding.severity),
        source: AGENT_SOURCE,
        message: finding.message ?? 'The agent reported a problem here.',
      };
      if (finding.code !== undefined) diagnostic.code = finding.code;
      const duplicate =
        localKeys.has(rangeKey(diagnostic, finding.code)) ||
        localKeys.has(rangeKey(diagnostic, diagnostic.message)) ||
        localKeys.has(pathKey(path, finding.code));
      if (!duplicate) result.push(diagnostic);
    }
    return result;
  }
}

/** At most MAX_DIAGNOSTICS of `total` (the first ones of which are `diagnostics`), the last one saying how many more there are. */
function capped(diagnostics: Diagnostic[], total: number): Diagnostic[] {
  if (total <= MAX_DIAGNOSTICS) return diagnostics;
  const shown = diagnostics.slice(0, MAX_DIAGNOSTICS - 1);
  const more = total - shown.length;
  shown.push({
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Warning,
    source: LOCAL_SOURCE,
    code: 'more-problems',
    message: `${more} more problems in this file are not listed (at most ${MAX_DIAGNOSTICS} are); fix the ones listed first`,
  });
  return shown;
}

function touches(edit: AppliedEdit, finding: ProjectDiagnostic): boolean {
  const range = edit.before.rangeOfPath(finding.path ?? []);
  return range === undefined || (edit.start <= range.end && range.start <= edit.end);
}

function toLspDiagnostic(file: LabFile, d: LocalDiagnostic): Diagnostic {
  return {
    range: file.toLspRange(d.range),
    severity: d.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Error,
    source: LOCAL_SOURCE,
    code: d.code,
    message: d.message,
  };
}

/** The agent's diagnostics, taken defensively: a malformed entry is kept as far as it is usable. */
function readProjectDiagnostics(raw: unknown): ProjectDiagnostic[] {
  if (!Array.isArray(raw)) return [];
  const result: ProjectDiagnostic[] = [];
  for (const item of raw as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const entry = item as Record<string, unknown>;
    const path = Array.isArray(entry.path)
      ? entry.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number')
      : [];
    const diagnostic: ProjectDiagnostic = { path };
    // Bounded: a broken agent must not flood the Problems view.
    if (typeof entry.message === 'string') diagnostic.message = boundedText(entry.message);
    if (entry.severity === 'error' || entry.severity === 'warning' || entry.severity === 'info')
      diagnostic.severity = entry.severity;
    const code = agentCode(entry.code);
    if (code !== undefined) diagnostic.code = code;
    result.push(diagnostic);
  }
  return result;
}

function toSeverity(severity: ProjectDiagnostic['severity']): DiagnosticSeverity {
  if (severity === 'warning') return DiagnosticSeverity.Warning;
  if (severity === 'info') return DiagnosticSeverity.Information;
  return DiagnosticSeverity.Error;
}

function rangeKey(d: Diagnostic, discriminator: unknown): string {
  const { start, end } = d.range;
  return `${start.line}:${start.character}-${end.line}:${end.character} ${String(discriminator)}`;
}

function pathKey(path: readonly (string | number)[], code: unknown): string {
  return `${JSON.stringify(path.map(String))} ${String(code)}`;
}
