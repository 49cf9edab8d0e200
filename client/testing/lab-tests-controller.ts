/**
 * The Testing view for lab tests: each lab file with a `tests:` section is a
 * test item, each of its tests a child with the range of its name (so the
 * editor shows run buttons in the gutter). Run one test, a lab's all, or Run
 * All: every deployed lab's (labs the agent says are not deployed are
 * skipped). Runs go through the shared runner (common/testing/runner.ts) with
 * the session's client; a failure is a test message at the test's line with
 * expected and actual. A lab's tests run again after each deploy, push or
 * start when labAgent.tests.runAfter is set, or while the Testing view's
 * continuous run is on for them; a change of the lab's text or of its nodes'
 * states marks its results stale.
 */
import * as vscode from 'vscode';
import { LineIndex } from '../../common/lab/model/positions';
import type { LabDocument, Range } from '../../common/lab/model/types';
import { runLabTests } from '../../common/testing/runner';
import type { AgentClient } from '../../common/api/client';
import { AgentError } from '../../common/api/errors';
import { consolePayload, loadLab, observationPayload, type LabContext } from '../labs/lab-context';
import { findLabFiles, isLabFileName, watchLabFiles } from '../labs/workspace-labs';
import type { LabChange, Services } from '../services';
import { planRun, type Chosen } from './run-plan';

export class LabTestsController implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('labAgent.labTests', 'Lab Tests');
  private readonly disposables: vscode.Disposable[] = [this.controller];
  private readonly profile: vscode.TestRunProfile;
  /** The text each lab's items were made from: the same text again (an open, a rescan) keeps its results. */
  private readonly listedTexts = new Map<string, string>();
  /** The requests of the Testing view's continuous runs that are on. */
  private readonly continuous = new Set<vscode.TestRunRequest>();

  constructor(private readonly services: Services) {
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.loadWorkspace();
    };
    this.controller.refreshHandler = () => this.loadWorkspace();
    this.profile = this.controller.createRunProfile(
      'Run Lab Tests',
      vscode.TestRunProfileKind.Run,
      (request, token) => (request.continuous ? this.watch(request, token) : this.run(request, token)),
      true,
      undefined,
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

  /**
   * Called when a lab's stored or live state changed: its results are stale. After a deploy, push
   * or start its tests run when the setting says so, or those a continuous run watches.
   */
  labChanged(uri: vscode.Uri, change: LabChange | undefined): void {
    const item = this.controller.items.get(uri.toString());
    if (!item) return;
    this.controller.invalidateTestResults(item);
    if (!change) return;
    const runAfter = vscode.workspace.getConfiguration('labAgent').get<boolean>('tests.runAfter', false);
    const requests = runAfter
      ? [new vscode.TestRunRequest([item], undefined, this.profile)]
      : [...this.continuous].filter((request) => (request.include ?? [item]).some((i) => (i.parent ?? i) === item));
    for (const { include, exclude } of requests) {
      const lab = (include ?? [item]).filter((i) => (i.parent ?? i) === item);
      const cancel = new vscode.CancellationTokenSource();
      void this.run(new vscode.TestRunRequest(lab, exclude, this.profile), cancel.token).finally(() =>
        cancel.dispose(),
      );
    }
  }

  /** A continuous run: its tests run after each deploy, push or start of their lab until it is turned off. */
  private watch(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    this.continuous.add(request);
    return new Promise((resolve) => {
      token.onCancellationRequested(() => {
        this.continuous.delete(request);
        resolve();
      });
    });
  }

  private async loadWorkspace(): Promise<void> {
    const files = await findLabFiles();
    const seen = new Set(files.map((uri) => uri.toString()));
    this.controller.items.forEach((item) => {
      if (seen.has(item.id)) return;
      this.controller.items.delete(item.id);
      this.listedTexts.delete(item.id);
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
    const id = uri.toString();
    if (this.listedTexts.get(id) === text) return;
    this.listedTexts.set(id, text);
    const doc = this.services.labParses.parse(id, text);
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
      for (const { labItem, tests, named } of this.planned(request)) {
        if (token.isCancellationRequested) break;
        await this.runLab(run, labItem, tests, named, abort.signal);
      }
    } finally {
      listener.dispose();
      run.end();
    }
  }

  /** The request's tests grouped by lab (run-plan.ts decides which). */
  private planned(
    request: vscode.TestRunRequest,
  ): { labItem: vscode.TestItem; tests: vscode.TestItem[]; named: boolean }[] {
    const labs: vscode.TestItem[] = [];
    this.controller.items.forEach((item) => labs.push(item));
    const chosen = (item: vscode.TestItem): Chosen =>
      item.parent ? { lab: item.parent.id, test: item.id } : { lab: item.id };
    const listed = labs.map((lab) => {
      const tests: string[] = [];
      lab.children.forEach((test) => tests.push(test.id));
      return { id: lab.id, tests };
    });
    return planRun(listed, request.include?.map(chosen), (request.exclude ?? []).map(chosen)).flatMap((plan) => {
      const labItem = this.controller.items.get(plan.id);
      if (!labItem) return [];
      const tests = plan.tests.flatMap((id) => labItem.children.get(id) ?? []);
      return [{ labItem, tests, named: plan.named }];
    });
  }

  private async runLab(
    run: vscode.TestRun,
    labItem: vscode.TestItem,
    tests: vscode.TestItem[],
    named: boolean,
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
    if (!named && !(await isDeployed(client, lab))) {
      run.appendOutput(`${lab.name}: not deployed, its tests were skipped.\r\n`);
      for (const item of tests) run.skipped(item);
      return;
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

/** Whether the agent has the lab; when it cannot tell, the tests run and say what they meet. */
async function isDeployed(client: AgentClient, lab: LabContext): Promise<boolean> {
  try {
    const status = await client.getProjectStatus(observationPayload(lab));
    return status.exists !== false && status.state !== 'absent';
  } catch (error) {
    return !(error instanceof AgentError && error.code === 'lab_not_found');
  }
}

function toRange(lines: LineIndex, range: Range): vscode.Range {
  const start = lines.positionAt(range.start);
  const end = lines.positionAt(range.end);
  return new vscode.Range(start.line, start.character, end.line, end.character);
}
