/**
 * The suite's line to test/e2e/run.mjs, which drives the browser around the workbench: the
 * extension host cannot take screenshots, read what views and terminals show or click a tree
 * row, Playwright can.
 * A request is a file in the channel folder; the runner answers with a response file beside it.
 * Without a channel (the desktop runner, test/e2e/electron.mjs) tests that need one skip.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'fs';
import * as path from 'path';

export type RunnerRequest = (
  | /** Save <run>/screenshots/<name>.png, once `waitFor` (a Playwright selector) is visible. */
    { action: 'screenshot'; name: string; waitFor?: string; timeoutMs?: number }
    /** The innerText of the first element matching `selector`, once it matches the regex `match` with `flags` (or times out). */
  | { action: 'text'; selector: string; match?: string; flags?: string; timeoutMs?: number }
  /** The attributes of the first element matching `selector`, once it is in the page. */
  | { action: 'attributes'; selector: string; timeoutMs?: number }
  /** Click the first element matching `selector`, as a user would: at its centre, or at the point `at` inside it; `right`: a right click (context menu). */
  | { action: 'click'; selector: string; at?: { x: number; y: number }; button?: 'right'; timeoutMs?: number }
  /** Move the mouse over the first element matching `selector` (shows what the workbench draws on hover). */
  | { action: 'hover'; selector: string; timeoutMs?: number }
  /** Turn the mouse wheel by `deltaY` with the pointer at the point `at` inside the first element matching `selector`. */
  | { action: 'wheel'; selector: string; at: { x: number; y: number }; deltaY: number; timeoutMs?: number }
  /** The colour, [r, g, b, a], that the first canvas matching `selector` shows at the point `at` inside it. */
  | { action: 'canvasPixel'; selector: string; at: { x: number; y: number }; timeoutMs?: number }
  /** Type `text` into the first element matching `selector` (an input box), then press Enter. */
  | { action: 'fill'; selector: string; text: string; timeoutMs?: number }
  /** Cut or restore the TCP link the extension reaches the agent through (the agent keeps running). */
  | { action: 'link'; op: 'cut' | 'restore'; timeoutMs?: number }
  /** Stop, start or restart the reference agent (same port, data and certificate; sessions are lost). */
  | { action: 'agent'; op: 'stop' | 'start' | 'restart'; timeoutMs?: number }
  /** kill -9 the Linux emulator agent alone (its labs keep running) and start it again on the same port and data. */
  | { action: 'agent'; op: 'crash-restart-linux'; timeoutMs?: number }
  /** Drag with the mouse from one point to another, both relative to the first element matching `selector`. */
  | {
      action: 'drag';
      selector: string;
      from: { x: number; y: number };
      to: { x: number; y: number };
      timeoutMs?: number;
    }
) & {
  /** 'webview': `selector` and `waitFor` are looked up inside the webview's page instead of the workbench. */
  frame?: 'webview';
};

export interface RunnerResponse {
  ok: boolean;
  text?: string;
  path?: string;
  attributes?: Record<string, string>;
  rgba?: number[];
  error?: string;
}

const channel = process.env.LAB_AGENT_E2E_CHANNEL;
let sequence = 0;

export function hasRunnerChannel(): boolean {
  return channel !== undefined && channel !== '';
}

export async function askRunner(request: RunnerRequest): Promise<RunnerResponse> {
  if (!channel) throw new Error('no runner channel (LAB_AGENT_E2E_CHANNEL is not set)');
  const id = String(++sequence).padStart(3, '0');
  const partial = path.join(channel, `${id}.request.partial`);
  writeFileSync(partial, JSON.stringify(request));
  renameSync(partial, path.join(channel, `${id}.request.json`));
  const responseFile = path.join(channel, `${id}.response.json`);
  // The runner waits up to request.timeoutMs (15 s by default) for the page, twice for `text` with `match`.
  const timeoutMs = 2 * (request.timeoutMs ?? 15_000) + 15_000;
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(responseFile)) {
    if (Date.now() > deadline)
      throw new Error(`the runner did not answer ${JSON.stringify(request)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return JSON.parse(readFileSync(responseFile, 'utf8')) as RunnerResponse;
}

/** Asks for a screenshot and fails the test if it could not be taken. */
export async function screenshot(name: string, waitFor?: string): Promise<string> {
  const response = await askRunner({ action: 'screenshot', name, waitFor });
  if (!response.ok || !response.path) throw new Error(`screenshot ${name} failed: ${response.error}`);
  return response.path;
}

/**
 * What the user would see when a test failed: the notifications (which say why a command failed)
 * in the log, and a screenshot `failed-<title>.png`.
 */
export async function recordFailure(title: string): Promise<void> {
  if (!hasRunnerChannel()) return;
  const toasts = await askRunner({ action: 'text', selector: '.notifications-toasts', timeoutMs: 1000 });
  if (toasts.ok && toasts.text) console.log(`notifications:\n${toasts.text}`);
  await askRunner({ action: 'screenshot', name: `failed-${title.replace(/\W+/g, '-')}` });
}
