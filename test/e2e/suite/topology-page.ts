/**
 * Reading and driving the topology view's page (the webview) through the runner: its elements'
 * attributes and text, where the drawing shows a point of the lab, and the check that a drag
 * changed exactly one `position` line. Shared by the small lab's tests (scenario.ts, drawn by
 * Cytoscape) and the large lab's (canvas-topology.ts, drawn on the canvas).
 */
import * as assert from 'assert';
import { readFileSync } from 'fs';
import * as vscode from 'vscode';
import { askRunner } from './channel';
import { eventually } from './eventually';

/** Closes every topology view, so that the runner looks into the only webview there is next. */
export async function closeTopologyViews(): Promise<void> {
  const views = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('labAgent.topology'));
  await vscode.window.tabGroups.close(views);
}

interface Point {
  x: number;
  y: number;
}

/** Where the drawing is (body[data-viewport]): a model point p is at p × zoom + pan from the drawing's corner. */
export interface Viewport {
  zoom: number;
  pan: Point;
}

/** The attributes of an element of the topology view's page, once it is there. */
export async function topologyAttributes(selector: string, timeoutMs = 20_000): Promise<Record<string, string>> {
  const response = await askRunner({ action: 'attributes', selector, frame: 'webview', timeoutMs });
  assert.ok(response.ok && response.attributes, `the topology view has no ${selector}: ${response.error}`);
  return response.attributes;
}

/** The text an element of the topology view's page shows, once it matches. */
export async function topologyText(selector: string, match: RegExp): Promise<string> {
  const response = await askRunner({
    action: 'text',
    selector,
    match: match.source,
    flags: match.flags,
    frame: 'webview',
    timeoutMs: 20_000,
  });
  assert.ok(response.ok, `could not read ${selector} in the topology view: ${response.error}`);
  assert.match(response.text ?? '', match, `the topology view shows:\n${response.text}`);
  return response.text ?? '';
}

/** The drawing's viewport as the page publishes it. */
export async function topologyViewport(): Promise<Viewport> {
  const shown = (await topologyAttributes('body[data-viewport]'))['data-viewport'];
  const view = JSON.parse(shown) as Partial<Viewport>;
  assert.ok(
    typeof view.zoom === 'number' && typeof view.pan?.x === 'number' && typeof view.pan.y === 'number',
    `not a viewport: ${shown}`,
  );
  return view as Viewport;
}

/** Where a model point is shown, relative to the drawing's corner (#graph). */
export function onScreen(p: Point, view: Viewport): Point {
  return { x: p.x * view.zoom + view.pan.x, y: p.y * view.zoom + view.pan.y };
}

/**
 * Runs `body` with VS Code's files.autoSave set to `mode`, then as it was. code-server's default is
 * afterDelay (1 s, the web default): a check that an edit is unsaved would race it, so tests say
 * which they mean.
 */
export async function withAutoSave<T>(mode: 'off' | 'afterDelay', body: () => Promise<T>): Promise<T> {
  const files = vscode.workspace.getConfiguration('files');
  const was = files.inspect<string>('autoSave')?.globalValue;
  await files.update('autoSave', mode, vscode.ConfigurationTarget.Global);
  try {
    return await body();
  } finally {
    await files.update('autoSave', was, vscode.ConfigurationTarget.Global);
  }
}

/**
 * Drags the node drawn at model point `at` by (80, 40) pixels with the mouse, and checks the edit:
 * exactly the node's `position` line, where the pointer took it; unsaved, or with `saved` (autosave
 * on) the same one line in the file on disk and nothing left unsaved. Returns the text before.
 */
export async function dragNode(doc: vscode.TextDocument, at: Point, saved = false): Promise<string> {
  const before = doc.getText();
  const view = await topologyViewport();
  const from = onScreen(at, view);
  const to = { x: from.x + 80, y: from.y + 40 };
  const dragged = await askRunner({ action: 'drag', selector: '#graph', from, to, frame: 'webview' });
  assert.ok(dragged.ok, `the drag failed: ${dragged.error}`);
  const after = await eventually('the position edit', () => (doc.getText() !== before ? doc.getText() : undefined));
  assertPositionEdit(before, after, at.x, 80, view.zoom);
  if (!saved) {
    assert.ok(doc.isDirty, "the edit was saved behind the user's back");
    return before;
  }
  const written = await eventually('the edit saved', () => {
    const disk = readFileSync(doc.uri.fsPath, 'utf8');
    return disk !== before && !doc.isDirty ? disk : undefined;
  });
  assertPositionEdit(before, written, at.x, 80, view.zoom);
  assert.equal(written, doc.getText(), 'the file on disk is not what the editor shows');
  return before;
}

/**
 * Checks that `after` differs from `before` in exactly one line, the node's `position` line in the
 * same form, and that its x is where a drag of `dragX` pixels from x `fromX` at `zoom` took it
 * (give or take the few pixels a drag needs before it starts).
 */
function assertPositionEdit(before: string, after: string, fromX: number, dragX: number, zoom: number): void {
  const beforeLines = before.split('\n');
  const afterLines = after.split('\n');
  assert.equal(afterLines.length, beforeLines.length, 'the drag added or removed lines');
  const changed = afterLines.flatMap((line, i) => (line === beforeLines[i] ? [] : [{ line, i }]));
  assert.equal(
    changed.length,
    1,
    `the drag changed ${changed.length} lines:\n${changed.map((c) => c.line).join('\n')}`,
  );
  const moved = /^(\s+)position: \{x: (-?\d+), y: (-?\d+)\}$/.exec(changed[0].line);
  assert.ok(moved, `not a position line: ${changed[0].line}`);
  assert.equal(beforeLines[changed[0].i].replace(/-?\d+/g, '#'), changed[0].line.replace(/-?\d+/g, '#'));
  const expected = fromX + dragX / zoom;
  assert.ok(Math.abs(Number(moved[2]) - expected) <= 8 / zoom + 1, `x moved to ${moved[2]}, not about ${expected}`);
}
