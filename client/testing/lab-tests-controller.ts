/**
 * The Testing view for lab tests: each lab file with a `tests:` section is a
 * test item, each of its tests a child with the range of its name (so the
 * editor shows run buttons in the gutter). Runs go through the shared runner
 * (common/testing/runner.ts) with the session's client; a failure is a test
 * message at the test's line with expected and actual. With
 * labAgent.tests.runAfter set, a lab's tests run after each deploy, push or
 * start; an edit of a lab marks its results stale.
 */
import * as vscode from 'vscode';
import { LineIndex } from '../../common/lab/model/positions';
import type { LabDocument, Range } from '../../common/lab/model/types';
import { runLabTests } from '../../common/testing/runner';
import { consolePayload, loadLab } from '../labs/lab-context';
import { findLabFiles, isLabFileName, watchLabFiles } from '../labs/workspace-labs';
import type { LabChange, Services } from '../services';

export class LabTestsController implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('labAgent.labTests', 'Lab Tests');
  private readonly disposables: vscode.Disposable[] = [this.controller];

  constructor(private readonly services: Services) {
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.loadWorkspace();
    };
    this.controller.refreshHandler = () => this.loadWorkspace();
    this.controller.createRunProfile(
      'Run Lab Tests',
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
    this.disposables.push(
      watchLabFiles(() => void this.loadWorkspace()),
      vscode.workspace.onDidOpenTextDocument((document) => this.update(document.uri, document.getText())),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0) return;
        this.update(event.document.uri, event.document.getText());
      }),
    );
    for (const document of vscode.workspace.textDocuments) this.update(document.uri, document.getText());
  }

  /** Called when a lab's stored or live state changed; runs its tests after a deploy, push or start when the setting says so. */
  labChanged(uri: vscode.Uri, change: LabChange | undefined): void {
    const item = this.controller.items.get(uri.toString());
    if (!item) return;
    this.controller.invalidateTestResults(item);
    const runAfter = vscode.workspace.getConfiguration('labAgent').get<boolean>('tests.runAfter', false);
    if (!change || !runAfter) return;
    const request = new vscode.TestRunRequest([item]);
    const cancel = new vscode.CancellationTokenSource();
    void this.run(request, cancel.token).finally(() => cancel.dispose());
  }

  private async loadWorkspace(): Promise<void> {
    const files = await findLabFiles();
    const seen = new Set(files.map((uri) => uri.toString()));
    this.controller.items.forEach((item) => {
      if (!seen.has(item.id)) this.controller.items.delete(item.id);
    });
    for (const uri of files) {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      this.update(uri, text);
    }
  }

  /** Lists the lab's tests as they now read; results of a lab that changed are stale. */
  private update(uri: vscode.Uri, text: string): void {
    if (uri.scheme !== 'file' || !isLabFileName(uri.fsPath)) return;
    const doc = this.services.labParses.parse(uri.toString(), text);
    const id = uri.toString();
    if (doc.tests.length === 0) {
      this.controller.items.delete(id);
      return;
    }
    let labItem = this.controller.items.get(id);
    if (!labItem) {
      labItem = this.controller.createTestItem(id, vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(labItem);
    } else {
      this.controller.invalidateTestResults(labItem);
    }
    const lines = new LineIndex(text);
    labItem.range = toRange(lines, doc.rangeOfPath(['tests']) ?? { start: 0, end: 0 });
    labItem.children.replace(
      doc.tests.map((test) => {
        const item = this.controller.createTestItem(`${id}#${test.name}`, test.name, uri);
        item.range = toRange(lines, test.nameRange);
        return item;
      }),
    );
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      for (const [labItem, tests] of this.selected(request)) {
        if (token.isCancellationRequested) break;
        await this.runLab(run, labItem, tests, abort.signal);
      }
    } finally {
      listener.dispose();
      run.end();
    }
  }

  /** The chosen tests grouped by lab: a lab item stands for all its tests. */
  private selected(request: vscode.TestRunRequest): Map<vscode.TestItem, vscode.TestItem[]> {
    const byLab = new Map<vscode.TestItem, vscode.TestItem[]>();
    const excluded = new Set(request.exclude ?? []);
    const add = (item: vscode.TestItem) => {
      if (excluded.has(item)) return;
      if (item.parent) {
        const list = byLab.get(item.parent) ?? [];
        if (!list.includes(item)) list.push(item);
        byLab.set(item.parent, list);
      } else item.children.forEach(add);
    };
    if (request.include) request.include.forEach(add);
    else this.controller.items.forEach(add);
    return byLab;
  }

  private async runLab(
    run: vscode.TestRun,
    labItem: vscode.TestItem,
    tests: vscode.TestItem[],
    signal: AbortSignal,
  ): Promise<void> {
    for (const item of tests) run.enqueued(item);
    const fail = (message: string) => {
      for (const item of tests) run.errored(item, new vscode.TestMessage(message));
    };
    if (!labItem.uri) return fail('The lab file is not known.');
    let client;
    try {
      client = this.services.labAgents.sessionOf(labItem.uri).agent();
    } catch (error) {
      return fail(`${(error as Error).message} Log in, then run the tests again.`);
    }
    let lab;
    let payload;
    try {
      lab = await loadLab(labItem.uri, this.services.labParses);
      payload = await consolePayload(lab, {});
    } catch (error) {
      return fail((error as Error).message);
    }
    const byName = new Map(tests.map((item) => [item.label, item]));
    const doc: LabDocument = lab.doc;
    const lines = new LineIndex(lab.text);
    await runLabTests(doc, {
      client,
      payload,
      only: [...byName.keys()],
      signal,
      onStart: (test) => {
        const item = byName.get(test.name);
        if (item) run.started(item);
      },
      onResult: (result, test) => {
        const item = byName.get(result.name);
        if (!item) return;
        run.appendOutput(`${result.message.replace(/\n/g, '\r\n')}\r\n`, undefined, item);
        if (result.passed) return run.passed(item, result.durationMs);
        const message = vscode.TestMessage.diff(result.message, result.expected, result.actual);
        message.location = new vscode.Location(lab.uri, toRange(lines, test.nameRange));
        run.failed(item, message, result.durationMs);
      },
    });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}

function toRange(lines: LineIndex, range: Range): vscode.Range {
  const start = lines.positionAt(range.start);
  const end = lines.positionAt(range.end);
  return new vscode.Range(start.line, start.character, end.line, end.character);
}
