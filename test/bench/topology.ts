/**
 * The topology webview in headless Chromium: its bundle (dist/topology.js) on
 * the panel's own page, fed generated labs of 50, 500 and 2,000 nodes as the
 * extension feeds it (the language server's topology → the graph model →
 * postMessage). Measured: the first render, and the update after a one-line
 * edit (a node's position), each from the message until the renderer has
 * drawn the result (Cytoscape's `render` event, or the canvas drawing's
 * frame; the page marks it as data-painted) and the frame with it is on
 * screen (the next animation frame). Labs above DETAILED_LINKS_MAX links are
 * drawn on the canvas, the others by Cytoscape. Each size's drawing is saved
 * as out/bench/topology-<size>.png, to look at. The messages are the host's:
 * the whole drawing first, then only what changed (graph-delta.ts).
 *
 * On the host, the update's message is timed too: finding what changed,
 * against building the drawing (which the host does for any update).
 *
 * Baseline, in the same page: drawing the same nodes, links and labels with
 * bare canvas 2D calls, the least any drawing of the lab costs.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { GraphSender } from '../../client/topology/graph-delta';
import { buildGraph } from '../../client/topology/graph-model';
import type { GraphData, HostMessage } from '../../client/topology/messages';
import { PAGE_BODY } from '../../client/topology/page';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import type { Connection } from 'vscode-languageserver/node';
import type { LabDocument } from '../../common/lab/model/types';
import { LabFile } from '../../server/documents';
import { Log } from '../../server/log';
import { TextBuffer } from '../../server/text-buffer';
import { topologyOf } from '../../server/services/topology';
import CHROMIUM_ARGS from '../support/chromium-args.json';
import { generateLab } from '../support/generate-lab';
import { DIST, ROOT } from './support/paths';
import { median } from './support/stats';
import { progress, report, runSection } from './support/report';

const SIZES = [50, 500, 2000];
const FIRST_RENDER_SAMPLES = 3;
const UPDATE_SAMPLES = 11;
const FIRST_RENDER_TARGET_MS = 1000;
const UPDATE_TARGET_MS = 100;

const URI = 'file:///bench/lab.lab.yaml';
const SCREENSHOTS = join(ROOT, 'out', 'bench');

/** The server's view of a document, outside a server: nothing listens for updates or logs. */
function labFile(version: number, text: string, model: LabDocument): LabFile {
  const silent = new Log({ console: { warn: () => undefined, error: () => undefined } } as unknown as Connection);
  return new LabFile(URI, new TextBuffer(text, version), model, () => undefined, silent);
}

/** The graph of a generated lab, and of the same lab after one node's position line changed (and how to build it again). */
function graphs(nodes: number): { first: GraphData; edited: GraphData; build: () => GraphData } {
  const text = generateLab(nodes);
  const model = parseLab(text);
  const live = { connected: false, mode: 'managed' as const };
  const first = buildGraph(topologyOf(labFile(1, text, model)), live);
  const found = /position: \{x: (\d+)/.exec(text);
  if (!found) throw new Error('the generated lab has no position to edit');
  const start = found.index + found[0].length - found[1].length;
  const value = String(Number(found[1]) + 40);
  const editedText = text.slice(0, start) + value + text.slice(start + found[1].length);
  const editedModel = updateLab(model, { start, end: start + found[1].length, text: value });
  const editedTopology = topologyOf(labFile(2, editedText, editedModel));
  const build = (): GraphData => buildGraph(editedTopology, live);
  return { first, edited: build(), build };
}

async function openPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (error) => progress(`page error: ${error.message}`));
  await page.setContent(`<!DOCTYPE html><html><head></head><body>${PAGE_BODY}</body></html>`);
  await page.addStyleTag({ content: readFileSync(join(DIST, 'topology-style.css'), 'utf8') });
  await page.addScriptTag({ content: PAGE_HELPERS });
  await page.addScriptTag({ content: readFileSync(join(DIST, 'topology.js'), 'utf8') });
  return page;
}

/** In-page helpers (the page's own JavaScript: this file compiles without DOM types). */
const PAGE_HELPERS = `
window.acquireVsCodeApi = () => ({ postMessage: () => undefined });
const twoFrames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
/** Posts a message of the host and times it until the frame that shows the drawing is painted. */
window.benchGraph = async (message) => {
  const before = Number(document.body.dataset.applied ?? 0);
  const start = performance.now();
  window.postMessage(message, '*');
  while (Number(document.body.dataset.painted ?? 0) <= before) await new Promise((resolve) => requestAnimationFrame(resolve));
  await new Promise((resolve) => requestAnimationFrame(resolve));
  return performance.now() - start;
};
/** The same nodes, links and labels drawn with bare canvas calls. */
window.benchBaseline = async (graph) => {
  const start = performance.now();
  const canvas = document.createElement('canvas');
  canvas.width = 1400;
  canvas.height = 900;
  document.body.append(canvas);
  const context = canvas.getContext('2d');
  const at = new Map();
  graph.nodes.forEach((n, i) => at.set(n.id, n.position ?? { x: (i % 60) * 140, y: Math.floor(i / 60) * 140 }));
  context.scale(0.1, 0.1);
  context.font = '11px sans-serif';
  for (const link of graph.links) {
    const a = at.get(link.source);
    const b = at.get(link.target);
    if (!a || !b) continue;
    context.beginPath();
    context.moveTo(a.x, a.y);
    context.lineTo(b.x, b.y);
    context.stroke();
    context.fillText(link.sourceLabel, a.x, a.y);
    context.fillText(link.targetLabel, b.x, b.y);
  }
  for (const node of graph.nodes) {
    const p = at.get(node.id);
    context.strokeRect(p.x - 22, p.y - 22, 44, 44);
    context.fillText(node.name, p.x - 22, p.y + 34);
  }
  await twoFrames();
  canvas.remove();
  return performance.now() - start;
};
`;

interface PageHelpers {
  benchGraph(message: HostMessage): Promise<number>;
  benchBaseline(graph: GraphData): Promise<number>;
}

/** Times the message that brings the page's drawing to `graph`, as the host sends it. */
function timeGraph(page: Page, sender: GraphSender, graph: GraphData): Promise<number> {
  const message = sender.message(graph);
  if (!message) throw new Error('the drawing did not change');
  return page.evaluate((m) => (globalThis as unknown as PageHelpers).benchGraph(m), message);
}

/** The host's work for an update: building the drawing, and the message of what changed (median ms of each). */
function hostTimes(first: GraphData, build: () => GraphData): { build: number; message: number; bytes: number } {
  const sender = new GraphSender();
  sender.message(first);
  const [builds, messages] = [[] as number[], [] as number[]];
  let bytes = 0;
  for (let i = 0; i < UPDATE_SAMPLES; i++) {
    let start = performance.now();
    const graph = i % 2 === 0 ? build() : first;
    builds.push(performance.now() - start);
    start = performance.now();
    const message = sender.message(graph);
    messages.push(performance.now() - start);
    bytes = JSON.stringify(message).length;
  }
  return { build: median(builds), message: median(messages), bytes };
}

function timeBaseline(page: Page, graph: GraphData): Promise<number> {
  return page.evaluate((g) => (globalThis as unknown as PageHelpers).benchBaseline(g), graph);
}

async function main(): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    for (const size of SIZES) {
      const { first, edited, build } = graphs(size);
      progress(`${size} nodes: ${first.nodes.length} nodes and networks, ${first.links.length} links`);
      const firstTimes: number[] = [];
      const baselines: number[] = [];
      let page: Page | undefined;
      let sender = new GraphSender();
      for (let i = 0; i < FIRST_RENDER_SAMPLES; i++) {
        await page?.close();
        page = await openPage(browser);
        sender = new GraphSender();
        baselines.push(await timeBaseline(page, first));
        firstTimes.push(await timeGraph(page, sender, first));
      }
      if (!page) throw new Error('no page');
      const headings = await page.locator('#elements h2').allTextContents();
      const counted = headings.reduce((sum, h) => sum + Number(/\((\d+)\)/.exec(h)?.[1] ?? 0), 0);
      if (counted !== first.nodes.length + first.links.length)
        throw new Error(`the element list counts ${counted} elements, not ${first.nodes.length + first.links.length}`);
      const rows = await page.locator('#elements button.element').count();
      progress(`${size} nodes: ${rows} rows of the element list in the page`);
      const updates: number[] = [];
      for (let i = 0; i < UPDATE_SAMPLES; i++)
        updates.push(await timeGraph(page, sender, i % 2 === 0 ? edited : first));
      await page.screenshot({ path: join(SCREENSHOTS, `topology-${size}.png`) });
      await page.close();
      const baseline = { name: `bare canvas drawing (${size})`, value: median(baselines) };
      report({
        name: `topology first render (${size} nodes)`,
        value: median(firstTimes),
        unit: 'ms',
        baseline,
        targets: [{ on: 'value', op: '<=', limit: FIRST_RENDER_TARGET_MS }],
        note: `median of ${FIRST_RENDER_SAMPLES} fresh pages, postMessage to the painted frame that shows the drawing`,
      });
      report({
        name: `topology update after a one-line edit (${size} nodes)`,
        value: median(updates),
        unit: 'ms',
        baseline,
        targets: [{ on: 'value', op: '<=', limit: UPDATE_TARGET_MS }],
        note: `median of ${UPDATE_SAMPLES} updates (a node's position line changed and back)`,
      });
      const host = hostTimes(first, build);
      report({
        name: `topology update message on the host (${size} nodes)`,
        value: host.message,
        unit: 'ms',
        baseline: { name: `building the drawing (${size})`, value: host.build },
        note: `median of ${UPDATE_SAMPLES}: what changed since the last message, ${host.bytes.toLocaleString('en-US')} bytes of JSON (the whole drawing: ${JSON.stringify(first).length.toLocaleString('en-US')})`,
      });
    }
  } finally {
    await browser.close();
  }
}

runSection(main);
