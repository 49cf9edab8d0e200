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
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/paths';
import { progress, report, runSection } from './support/report';

const SOURCES = ['client', 'server', 'agent', 'common', 'node_modules'];
/** What `vsce package` reads, besides the bundles (.vscodeignore decides what goes in). */
const PACKAGE_FILES = [
  'package.json',
  'README.md',
  'LICENSE',
  '.vscodeignore',
  'CHANGELOG.md',
  'syntaxes',
  'media',
  'samples',
];
const LOAD_SAMPLES = 7;
const KB = 1000;

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/**
 * Times to read and compile a bundle as Node's module loader does, in a fresh
 * process each time (V8 caches compiled code within a process).
 */
function compileTimes(bundle: string): number[] {
  const probe = `
    const { readFileSync } = require('node:fs');
    const Module = require('node:module');
    const vm = require('node:vm');
    const file = ${JSON.stringify(bundle)};
    const start = performance.now();
    new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file });
    process.stdout.write(JSON.stringify(performance.now() - start));
  `;
  const times: number[] = [];
  for (let i = 0; i < LOAD_SAMPLES; i++) {
    const result = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`loading ${bundle} failed:\n${result.stderr}`);
    times.push(JSON.parse(result.stdout) as number);
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
    for (const name of PACKAGE_FILES)
      if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(stage, name), { recursive: true });
    // The project's own build script, run in the staging folder: same options as `npm run package` ships.
    const build = run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--production', '--bundles-only'], stage);
    unlinkSources(stage);
    if (!build.ok) throw new Error(`production build failed:\n${build.output}`);

    for (const name of ['client', 'server', 'agent']) {
      report({
        name: `bundle size dist/${name}.js (production)`,
        value: statSync(join(stage, 'dist', `${name}.js`)).size / KB,
        unit: 'KB',
      });
    }

    // vsce with the options of `npm run package`, writing to the staging folder.
    const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const vsix = join(stage, 'lab-agent.vsix');
    const packed = run(process.execPath, [vsce, ...packageArgs(vsix)], stage);
    if (!packed.ok) throw new Error(`vsce package failed:\n${packed.output}`);
    report({
      name: 'VSIX size',
      value: statSync(vsix).size / KB / KB,
      unit: 'MB',
      targets: [{ on: 'value', op: '<=', limit: 1 }],
    });

    progress('extension: bundle load time');
    const client = join(stage, 'dist', 'client.js');
    // Only compiled: evaluating it needs the real `vscode` module.
    const clientCompile = Math.min(...compileTimes(client));
    report({
      name: 'extension bundle read + compile (plain Node)',
      value: clientCompile,
      unit: 'ms',
      note: 'fastest of fresh processes',
    });
    report({
      name: 'extension activation, lower bound',
      value: clientCompile,
      unit: 'ms',
      targets: [{ on: 'value', op: '<=', limit: 50 }],
      lowerBound: true,
      note: 'compiling dist/client.js; undici, yaml and the language client load on first use, after activate(); activation itself needs VS Code',
    });
  } finally {
    // The links first, so that removing the folder can never reach the work tree.
    unlinkSources(stage);
    rmSync(stage, { recursive: true, force: true });
  }
}

runSection(main);
