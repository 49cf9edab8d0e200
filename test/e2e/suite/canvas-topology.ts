/// <reference types="mocha" />
/**
 * The topology view of a large lab, which the canvas renderer draws (above DETAILED_LINKS_MAX
 * links; scenario.ts covers the small sample lab, which Cytoscape draws): a generated lab of
 * 500 nodes and its configs are written to the workspace, deployed to the reference agent and
 * one node started; then the view shows it on the canvas with every element counted in the
 * list and the live states, a click on a node reveals it in the lab file, a drag makes exactly
 * one `position` edit (undoable, unsaved; with autosave on, the same one line saved), and the wheel and a drag on empty space zoom and pan.
 * Screenshots: topology-canvas-light.png, topology-canvas-dark.png, topology-canvas-zoomed.png.
 * Runs after scenario.ts, in the same extension host; it logs in itself so that it can run alone
 * (test/e2e/run.mjs --grep canvas).
 */
import * as assert from 'assert';
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { parse } from 'yaml';
import { LabCommand } from '../../../common/commands';
import { generatedProject } from '../../bench/support/labs';
import { askRunner, hasRunnerChannel, recordFailure } from './channel';
import { eventually } from './eventually';
import { removeFromWorkspace } from './workspace-files';
import {
  closeTopologyViews,
  dragNode,
  onScreen,
  withAutoSave,
  topologyAttributes,
  topologyText,
  topologyViewport,
} from './topology-page';
import { simulatedAgentWorkspace } from './log-in';

const NODES = 500;
/** The node the test starts (the others stay stopped), and drags; first in the element list. */
const STARTED = 'r1';
/** A node that stays stopped. */
const STOPPED = 'sw2';
/** Half a node's square on the canvas, in model units (canvas-graph.ts). */
const NODE_HALF = 22;

interface GeneratedLab {
  nodes: Record<string, { position?: { x: number; y: number } }>;
  networks: Record<string, unknown>;
  links: unknown[];
}

function distance(p: { x: number; y: number }, q: { x: number; y: number }): number {
  return Math.hypot(p.x - q.x, p.y - q.y);
}

describe('The topology view of a large lab, drawn on the canvas', function () {
  this.timeout(120_000);
  let labUri: vscode.Uri;
  let text: string;
  let lab: GeneratedLab;
  let deployed = false;
  /** The generated lab's folder in the workspace. */
  let dir: string | undefined;

  /** Where the lab file puts a node (the drawing shows it there). */
  function positionOf(node: string): { x: number; y: number } {
    const position = lab.nodes[node]?.position;
    assert.ok(position, `${node} has no position in the generated lab`);
    return position;
  }

  /** The nodes the lab file places, with their positions. */
  function placed(): { name: string; x: number; y: number }[] {
    return Object.entries(lab.nodes).flatMap(([name, n]) => (n.position ? [{ name, ...n.position }] : []));
  }

  /** The placed node nearest the middle of the placed nodes (its YAML is far down the file). */
  function centreNode(): { name: string; x: number; y: number } {
    const all = placed();
    const middle = {
      x: all.reduce((sum, p) => sum + p.x, 0) / all.length,
      y: all.reduce((sum, p) => sum + p.y, 0) / all.length,
    };
    return all.sort((p, q) => distance(p, middle) - distance(q, middle))[0];
  }

  /** The colour the canvas shows at a point (relative to the drawing's corner). */
  async function pixelAt(at: { x: number; y: number }): Promise<number[]> {
    const response = await askRunner({ action: 'canvasPixel', selector: '#graph > canvas', at, frame: 'webview' });
    assert.ok(response.ok && response.rgba, `could not read the canvas at ${JSON.stringify(at)}: ${response.error}`);
    return response.rgba;
  }

  /**
   * Screenshots of the whole lab, in the light and dark themes, with the view's editor group
   * maximised (beside the editor, the drawing is a narrow strip); then the layout and the view as before.
   */
  async function screenshots(): Promise<void> {
    const before = await topologyViewport();
    const fit = async (): Promise<void> => {
      assert.ok((await askRunner({ action: 'click', selector: '#fit', frame: 'webview' })).ok, 'could not click Fit');
    };
    // Shown again, the view takes the focus: its group is the one maximised.
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: labUri.toString() });
    await vscode.commands.executeCommand('workbench.action.toggleMaximizeEditorGroup');
    try {
      await eventually('the view fitted to the larger drawing', async () => {
        await fit();
        return (await topologyViewport()).zoom > before.zoom ? true : undefined;
      });
      const workbench = vscode.workspace.getConfiguration('workbench');
      for (const [theme, kind] of [
        ['Default Light Modern', 'light'],
        ['Default Dark Modern', 'dark'],
      ]) {
        await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        // The page has the theme's colours (and the drawing redraws with them in its next frame).
        await topologyAttributes(`body.vscode-${kind}`);
        // The drawing shows the states too: the running node is filled in another colour than a stopped one.
        const view = await topologyViewport();
        const [running, stopped] = await eventually(
          `the running node drawn in its own colour (${theme})`,
          async () => {
            const colours = await Promise.all([STARTED, STOPPED].map((n) => pixelAt(onScreen(positionOf(n), view))));
            return colours[0].join() !== colours[1].join() ? colours : undefined;
          },
          5000,
        );
        console.log(
          `${theme}: ${STARTED} (running) is drawn rgba(${running.join()}), ${STOPPED} (stopped) rgba(${stopped.join()})`,
        );
        const shot = await askRunner({ action: 'screenshot', name: `topology-canvas-${kind}`, frame: 'webview' });
        assert.ok(shot.ok, `screenshot ${kind} failed: ${shot.error}`);
      }
    } finally {
      await vscode.commands.executeCommand('workbench.action.toggleMaximizeEditorGroup');
    }
    await eventually('the view fitted as before', async () => {
      await fit();
      const view = await topologyViewport();
      return Math.abs(view.zoom - before.zoom) < 1e-9 ? true : undefined;
    });
  }

  before(async function () {
    if (!hasRunnerChannel()) this.skip();
    const folder = await simulatedAgentWorkspace();
    const project = generatedProject(NODES);
    dir = path.join(folder.uri.fsPath, `generated-${NODES}`);
    for (const [file, content] of Object.entries({ ...project.files, 'big.lab.yaml': project.yaml })) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    text = project.yaml;
    lab = parse(text) as GeneratedLab;
    labUri = vscode.Uri.file(path.join(dir, 'big.lab.yaml'));
    // The same side bar as when this file runs alone: while the Labs and Consoles views are visible
    // they ask the agent about every lab at each refresh (a 500-node lab's status and consoles), and
    // the view's timing would include theirs.
    await vscode.commands.executeCommand('workbench.view.explorer');
    // The small lab's view (scenario.ts) is closed: the runner looks into the only webview.
    await closeTopologyViews();
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(labUri), vscode.ViewColumn.One);
    const result = await vscode.commands.executeCommand<{ lab?: string }>(LabCommand.deploy, {
      uri: labUri.toString(),
      confirmed: true,
    });
    assert.ok(result?.lab, 'deploy failed');
    deployed = true;
    const started = await vscode.commands.executeCommand<unknown>(LabCommand.startNode, {
      uri: labUri.toString(),
      node: STARTED,
    });
    assert.ok(started, `starting ${STARTED} failed`);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
  });

  after(async () => {
    if (deployed) await vscode.commands.executeCommand(LabCommand.destroy, { uri: labUri.toString(), confirmed: true });
    await closeTopologyViews();
    if (dir) await removeFromWorkspace(dir);
  });

  it('draws the lab on the canvas, lists every element and shows the live node states, in light and dark themes', async () => {
    const links = lab.links.length;
    assert.ok(links > 300, `the generated lab has ${links} links: Cytoscape would draw it`);
    await vscode.commands.executeCommand(LabCommand.showTopology, { uri: labUri.toString() });
    await topologyAttributes('body[data-renderer="canvas"] #graph > canvas');
    // The list's section titles count the elements (CSS upper-cases them).
    const networks = Object.keys(lab.networks).length;
    await topologyText(
      '#elements',
      new RegExp(`Nodes \\(${NODES}\\)[^]*Networks \\(${networks}\\)[^]*Links \\(${links}\\)`, 'i'),
    );
    await topologyAttributes(`#elements button[data-id="node:${STARTED}"][data-state="running"]`, 30_000);
    await topologyAttributes(`#elements button[data-id="node:${STOPPED}"][data-state="stopped"]`);
    await topologyText('#status', new RegExp(`Live: \\w+ \\(1/${NODES} up\\)`));
    await screenshots();
  });

  it('reveals a node in the lab file when it is clicked on the canvas', async () => {
    const node = centreNode();
    const line = text.split('\n').indexOf(`  ${node.name}:`);
    assert.ok(line >= 0, `${node.name} is not in the lab file`);
    const editor = await vscode.window.showTextDocument(labUri, { viewColumn: vscode.ViewColumn.One });
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    editor.revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
    const at = onScreen(node, await topologyViewport());
    const clicked = await askRunner({ action: 'click', selector: '#graph', at, frame: 'webview' });
    assert.ok(clicked.ok, `the click failed: ${clicked.error}`);
    const active = await eventually(`${node.name} selected in the lab file`, () => {
      const shown = vscode.window.activeTextEditor;
      return shown?.document.uri.toString() === labUri.toString() && !shown.selection.isEmpty ? shown : undefined;
    });
    const selected = active.selection;
    assert.deepStrictEqual(
      [selected.start.line, selected.start.character, selected.end.line, selected.end.character],
      [line, 2, line, 2 + node.name.length],
      `the click selected ${JSON.stringify(selected)}, not the name of ${node.name} on line ${line}`,
    );
    // Scrolled to it (the file was shown from its top).
    await eventually(`line ${line} in view`, () =>
      active.visibleRanges.some((r) => r.contains(selected)) ? true : undefined,
    );
  });

  it('drags a node on the canvas: the edit is exactly its position line, unsaved, and undoable', async () => {
    const doc = await vscode.workspace.openTextDocument(labUri);
    await withAutoSave('off', async () => {
      const before = await dragNode(doc, positionOf(STARTED));
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      await vscode.commands.executeCommand('undo');
      await eventually('the undo', () => (doc.getText() === before ? true : undefined));
      assert.ok(!doc.isDirty, 'the undone edit left the document dirty');
      assert.equal(readFileSync(labUri.fsPath, 'utf8'), text, 'the lab file was written');
    });
  });

  it("with autosave on (code-server's default), the saved file gets the same one-line edit, and the undo is saved too", async () => {
    const doc = await vscode.workspace.openTextDocument(labUri);
    await withAutoSave('afterDelay', async () => {
      await dragNode(doc, positionOf(STARTED), true);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
      await vscode.commands.executeCommand('undo');
      await eventually('the undo saved', () =>
        !doc.isDirty && readFileSync(labUri.fsPath, 'utf8') === text ? true : undefined,
      );
      assert.equal(doc.getText(), text, 'the undo did not restore the text');
    });
  });

  it('zooms with the wheel about the pointer, and pans by dragging empty space', async () => {
    const fitted = await topologyViewport();
    // Zoom in at the middle of the placed nodes, at the node nearest it.
    const centre = centreNode();
    const pointer = onScreen(centre, fitted);
    const wheeled = await askRunner({
      action: 'wheel',
      selector: '#graph',
      at: pointer,
      deltaY: -1000,
      frame: 'webview',
    });
    assert.ok(wheeled.ok, `the wheel failed: ${wheeled.error}`);
    const zoomed = await eventually('the zoom', async () => {
      const view = await topologyViewport();
      return view.zoom > fitted.zoom ? view : undefined;
    });
    assert.ok(zoomed.zoom > fitted.zoom * 3, `the zoom went from ${fitted.zoom} to ${zoomed.zoom} only`);
    // The point the zoom keeps in place (pan' = fixed − (fixed − pan) × scale) is the pointer's,
    // give or take the pointer's rounding to whole pixels.
    const scale = zoomed.zoom / fitted.zoom;
    const fixed = {
      x: (zoomed.pan.x - scale * fitted.pan.x) / (1 - scale),
      y: (zoomed.pan.y - scale * fitted.pan.y) / (1 - scale),
    };
    assert.ok(
      Math.abs(fixed.x - pointer.x) <= 1 && Math.abs(fixed.y - pointer.y) <= 1,
      `the zoom kept ${JSON.stringify(fixed)} in place, not the pointer at ${JSON.stringify(pointer)}`,
    );
    // Half a column right and half a row down from that node (the generator spaces them 60 × 80), no
    // node is drawn (the nodes without a position are placed below all these): a drag there pans.
    const empty = { x: centre.x + 30, y: centre.y + 40 };
    for (const p of placed())
      assert.ok(Math.abs(p.x - empty.x) > NODE_HALF || Math.abs(p.y - empty.y) > NODE_HALF, `${p.name} is there`);
    const doc = await vscode.workspace.openTextDocument(labUri);
    const from = onScreen(empty, zoomed);
    const to = { x: from.x + 60, y: from.y + 30 };
    const dragged = await askRunner({ action: 'drag', selector: '#graph', from, to, frame: 'webview' });
    assert.ok(dragged.ok, `the drag failed: ${dragged.error}`);
    const panned = await eventually('the pan', async () => {
      const view = await topologyViewport();
      return view.pan.x !== zoomed.pan.x ? view : undefined;
    });
    assert.equal(panned.zoom, zoomed.zoom);
    assert.ok(
      Math.abs(panned.pan.x - zoomed.pan.x - 60) < 1 && Math.abs(panned.pan.y - zoomed.pan.y - 30) < 1,
      `the view panned from ${JSON.stringify(zoomed.pan)} to ${JSON.stringify(panned.pan)}, not by (60, 30)`,
    );
    assert.ok(!doc.isDirty, 'panning edited the lab file');
    const shot = await askRunner({ action: 'screenshot', name: 'topology-canvas-zoomed', frame: 'webview' });
    assert.ok(shot.ok, `screenshot failed: ${shot.error}`);
  });
});
