/**
 * What the user downloads and loads: the production bundles and the VSIX,
 * built in a temporary staging folder (so the work tree's dist/ is left as it
 * is), and what loading the extension's bundle costs in plain Node.
 *
 * Activation itself needs the real `vscode` module, which only VS Code has
 * (and which is not stubbed here). What can be measured without it is a lower
 * bound: compiling dist/client.js, plus running the top level of the
 * dependencies it requires at load time. If even that is over the target,
 * activation is too.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { build as esbuild } from 'esbuild';
import { join } from 'node:path';
import { ROOT } from './support/paths';
import { progress, report, runSection } from './support/report';

const SOURCES = ['client', 'server', 'agent', 'common', 'node_modules'];
/** What `vsce package` reads, besides the bundles (.vscodeignore decides what goes in). */
const PACKAGE_FILES = ['package.json', 'README.md', 'LICENSE', '.vscodeignore', 'CHANGELOG.md', 'syntaxes', 'media', 'samples'];
const LOAD_SAMPLES = 7;
const KB = 1000;

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/**
 * Times of loading a bundle as Node's module loader does, in a fresh process
 * each time (V8 caches compiled code within a process): `compileMs` to read and
 * compile it, `evaluateMs` to run its top level.
 */
function loadTimes(bundle: string, evaluate: boolean): { compileMs: number[]; evaluateMs: number[] } {
  const probe = `
    const { readFileSync } = require('node:fs');
    const Module = require('node:module');
    const vm = require('node:vm');
    const file = ${JSON.stringify(bundle)};
    const start = performance.now();
    const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file });
    const compiled = performance.now();
    if (process.argv[1] === 'evaluate') {
      const module = new Module(file, null);
      module.filename = file;
      module.paths = Module._nodeModulePaths(require('node:path').dirname(file));
      script.runInThisContext().call(module.exports, module.exports, (id) => module.require(id), module, file, require('node:path').dirname(file));
    }
    process.stdout.write(JSON.stringify([compiled - start, performance.now() - compiled]));
  `;
  const times = { compileMs: [] as number[], evaluateMs: [] as number[] };
  for (let i = 0; i < LOAD_SAMPLES; i++) {
    const result = spawnSync(process.execPath, ['-e', probe, evaluate ? 'evaluate' : 'compile'], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`loading ${bundle} failed:\n${result.stderr}`);
    const [compileMs, evaluateMs] = JSON.parse(result.stdout) as [number, number];
    times.compileMs.push(compileMs);
    times.evaluateMs.push(evaluateMs);
  }
  return times;
}

/** The arguments `npm run package` gives vsce, with the VSIX written to `out`. */
function packageArgs(out: string): string[] {
  const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts?.package ?? '';
  const words = /\bvsce\s+(package\b[^&|;]*)/.exec(script)?.[1].trim().split(/\s+/) ?? ['package', '--no-dependencies'];
  const at = words.indexOf('--out');
  if (at !== -1) words.splice(at, 2);
  return [...words, '--out', out];
}

/** Removes the links to the work tree from the staging folder. */
function unlinkSources(stage: string): void {
  for (const name of SOURCES) {
    const link = join(stage, name);
    try {
      if (lstatSync(link).isSymbolicLink()) unlinkSync(link);
    } catch {
      // Not there.
    }
  }
}

async function main(): Promise<void> {
  const stage = mkdtempSync(join(tmpdir(), 'lab-bench-vsix-'));
  try {
    progress('extension: production build and VSIX in a staging folder');
    for (const name of SOURCES) symlinkSync(join(ROOT, name), join(stage, name));
    for (const name of PACKAGE_FILES) if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(stage, name), { recursive: true });
    // The project's own build script, run in the staging folder: same options as `npm run package` ships.
    const build = run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--production', '--bundles-only'], stage);
    unlinkSources(stage);
    if (!build.ok) throw new Error(`production build failed:\n${build.output}`);

    for (const name of ['client', 'server', 'agent']) {
      report({ name: `bundle size dist/${name}.js (production)`, value: statSync(join(stage, 'dist', `${name}.js`)).size / KB, unit: 'KB' });
    }

    // vsce with the options of `npm run package`, writing to the staging folder.
    const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const vsix = join(stage, 'lab-agent.vsix');
    const packed = run(process.execPath, [vsce, ...packageArgs(vsix)], stage);
    if (!packed.ok) throw new Error(`vsce package failed:\n${packed.output}`);
    report({ name: 'VSIX size', value: statSync(vsix).size / KB / KB, unit: 'MB', targets: [{ on: 'value', op: '<=', limit: 1 }] });

    progress('extension: bundle load time');
    const client = join(stage, 'dist', 'client.js');
    // Only compiled: evaluating it needs the real `vscode` module.
    const clientCompile = Math.min(...loadTimes(client, false).compileMs);
    report({
      name: 'extension bundle read + compile (plain Node)',
      value: clientCompile,
      unit: 'ms',
      note: 'fastest of fresh processes',
    });
    // undici and yaml are required at the top of the bundle, so their module code runs before activate() does.
    const deps = join(stage, 'dist', 'deps.js');
    await esbuild({
      stdin: { contents: "require('undici'); require('yaml');", resolveDir: ROOT, loader: 'js' },
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minify: true,
      outfile: deps,
      logLevel: 'warning',
    });
    const depsEvaluate = Math.min(...loadTimes(deps, true).evaluateMs);
    report({
      name: 'undici + yaml top-level evaluation (as bundled)',
      value: depsEvaluate,
      unit: 'ms',
      note: 'fastest of fresh processes; dist/client.js runs both at its top level',
    });
    report({
      name: 'extension activation, lower bound',
      value: clientCompile + depsEvaluate,
      unit: 'ms',
      targets: [{ on: 'value', op: '<=', limit: 50 }],
      lowerBound: true,
      note: 'the two figures above: part of what loading dist/client.js costs before activate() runs; activation itself needs VS Code',
    });
  } finally {
    // The links first, so that removing the folder can never reach the work tree.
    unlinkSources(stage);
    rmSync(stage, { recursive: true, force: true });
  }
}

runSection(main);
