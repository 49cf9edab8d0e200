#!/usr/bin/env node
/**
 * Runs the benchmarks (`npm run bench`): each section in its own process, from
 * the compiled bench (out/test/bench, built by scripts/build.mjs), and prints
 * one line per figure with its ratio to the baseline measured in the same run
 * and its target, then a summary of the targets met and missed.
 *
 * Usage: node test/bench/run.mjs [section ...] [--strict]
 *   sections      lsp, lsp-pressure, api-client, console, agent-load, agent-deploy, extension, refresh, refresh-agents, topology, linux-lab, capture, eveng-deploy (default: all)
 *   --strict      exit 1 when a target is missed (a section that fails always does)
 * Environment:
 *   BENCH_OUT_DIR        the compiled bench (default out/test/bench)
 *   BENCH_AGENT_BUNDLE   another build of the agent to run (default dist/agent.js)
 *   BENCH_AGENT_NODE_ARGS  extra node options for the agent, e.g. --cpu-prof
 *   BENCH_SECTION_LIMIT_S  each section's time limit in seconds, instead of its own (a 200-router linux-lab takes longer)
 *   BENCH_LAB_SCHEMA     the JSON Schema given to yaml-language-server (default syntaxes/lab.schema.json)
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = process.env.BENCH_OUT_DIR ?? join(root, 'out', 'test', 'bench');
const FIGURE_PREFIX = '@@figure ';

/**
 * Each section and how long it may take. Two are long: lsp (yaml-language-server
 * takes seconds an answer on the 10,000-node lab: about 11 minutes there alone)
 * and linux-lab (an OSPF ring of BENCH_LINUX_LAB_SIZES routers, built twice: by the agent and by its baseline).
 */
const SECTIONS = [
  { name: 'lsp', title: 'Language server over stdio (ours vs yaml-language-server)', limitMs: 1_200_000 },
  { name: 'lsp-pressure', title: 'Language server under a fuzz of typing bursts', limitMs: 180_000 },
  { name: 'api-client', title: 'API client per-call overhead', limitMs: 90_000 },
  { name: 'console', title: 'Console stream', limitMs: 90_000 },
  { name: 'agent-load', title: 'Reference agent under load', limitMs: 60_000 },
  { name: 'agent-deploy', title: 'Reference agent deploy throughput and growth with the lab', limitMs: 900_000 },
  { name: 'extension', title: 'Extension bundle and VSIX', limitMs: 120_000 },
  { name: 'refresh', title: 'Live views: agent requests of an idle extension', limitMs: 60_000 },
  { name: 'refresh-agents', title: 'Live views: 3 agents × 10 idle labs against 1 agent × 30', limitMs: 180_000 },
  { name: 'topology', title: 'Topology webview in headless Chromium', limitMs: 180_000 },
  { name: 'linux-lab', title: 'Real labs on the Linux emulator (namespaces + FRR)', limitMs: 900_000 },
  { name: 'capture', title: 'Packet capture through the agent (Linux emulator)', limitMs: 600_000 },
  // Needs UNETLAB_SRC (a git clone of dainok/unetlab); fails with the harness's refusal without it.
  { name: 'eveng-deploy', title: "EVE-NG backend deploy against UNetLab's own code (harness)", limitMs: 900_000 },
];

/** A section's time limit: BENCH_SECTION_LIMIT_S when set, else its own. */
function limitMs(section) {
  const seconds = Number(process.env.BENCH_SECTION_LIMIT_S);
  return seconds > 0 ? seconds * 1000 : section.limitMs;
}

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const wanted = args.filter((a) => !a.startsWith('--'));
const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w));
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const sections = SECTIONS.filter((s) => wanted.length === 0 || wanted.includes(s.name));
for (const [what, path] of [
  ['the compiled bench', join(outDir, 'lsp.js')],
  ['dist/server.js', join(root, 'dist', 'server.js')],
  ['dist/agent.js', join(root, 'dist', 'agent.js')],
]) {
  if (!existsSync(path)) {
    console.error(`${what} is missing (${path}): run \`node scripts/build.mjs\` first, or \`npm run bench\`.`);
    process.exit(2);
  }
}

// ------------------------------------------------------------------ formatting

const NAME_WIDTH = 58;

function formatNumber(value) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(abs >= 1 ? 2 : 3);
}

function formatRatio(ratio) {
  if (!Number.isFinite(ratio)) return String(ratio);
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio >= 0.1 ? ratio.toFixed(2) : ratio.toFixed(3)}×`;
}

const symbols = { '<=': '≤', '>=': '≥' };

function targetText(target, unit) {
  return `${symbols[target.op]} ${formatNumber(target.limit)}${target.on === 'ratio' ? '×' : ` ${unit}`}`;
}

/** 'OK', 'MISSED', or 'not shown' (a lower bound under its target proves nothing). */
function verdict(figure) {
  if (!figure.targets?.length) return undefined;
  const met = figure.targets.every((t) => {
    const value = t.on === 'ratio' ? figure.ratio : figure.value;
    if (!Number.isFinite(value)) return false;
    return t.op === '<=' ? value <= t.limit : value >= t.limit;
  });
  if (!met) return 'MISSED';
  return figure.lowerBound ? 'not shown' : 'OK';
}

function line(figure) {
  const value = `${formatNumber(figure.value)} ${figure.unit}`;
  const ratio =
    figure.ratio !== undefined && figure.ratio !== null
      ? `ratio ${formatRatio(figure.ratio)} ${figure.baseline?.name ?? 'baseline'}${figure.baseline ? ` (${formatNumber(figure.baseline.value)} ${figure.unit})` : ''}`
      : '';
  const targets = figure.targets?.length
    ? `target ${figure.targets.map((t) => targetText(t, figure.unit)).join(', ')}`
    : '';
  const result = verdict(figure) ?? '';
  return `${figure.name.padEnd(NAME_WIDTH)} ${value.padStart(12)}   ${ratio.padEnd(58)} ${targets.padEnd(20)} ${result}`.trimEnd();
}

// ------------------------------------------------------------------ running

function runSection(section) {
  return new Promise((resolve) => {
    const started = Date.now();
    const figures = [];
    const child = spawn(process.execPath, [join(outDir, `${section.name}.js`)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdoutRest = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      const lines = (stdoutRest + chunk.toString()).split('\n');
      stdoutRest = lines.pop();
      for (const text of lines) {
        if (!text.startsWith(FIGURE_PREFIX)) {
          if (text.trim()) console.log(`  ${text}`);
          continue;
        }
        const figure = JSON.parse(text.slice(FIGURE_PREFIX.length));
        figures.push(figure);
        console.log(line(figure));
        if (figure.note) console.log(`${' '.repeat(4)}↳ ${figure.note}`);
      }
    });
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString();
      stderr = (stderr + text).slice(-8000);
      // Progress lines start with "  ·"; anything else is kept for the failure report.
      for (const progressLine of text.split('\n').filter((l) => l.startsWith('  · ')))
        console.log(`\x1b[2m${progressLine}\x1b[0m`);
    });
    const timer = setTimeout(() => {
      console.log(`  ${section.name}: over its ${limitMs(section) / 1000} s limit; stopped`);
      child.kill('SIGTERM');
    }, limitMs(section));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ok = code === 0;
      if (!ok) {
        const detail = stderr
          .split('\n')
          .filter((l) => !l.startsWith('  · '))
          .join('\n')
          .trim();
        console.log(
          `  ${section.name} FAILED (${signal ?? `exit ${code}`})${detail ? `:\n${detail.replace(/^/gm, '    ')}` : ''}`,
        );
      }
      resolve({ section, ok, figures, seconds: (Date.now() - started) / 1000 });
    });
  });
}

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

const started = Date.now();
console.log(
  `Lab Agent benchmarks — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)}, commit ${commit()}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
);
console.log(
  'Each ratio is against a baseline measured in this run; absolute times depend on the machine and its load.',
);

const results = [];
for (const section of sections) {
  console.log(`\n== ${section.title}`);
  results.push(await runSection(section));
}

// ------------------------------------------------------------------ summary

const withTargets = results.flatMap((r) => r.figures).filter((f) => f.targets?.length);
const byVerdict = (v) => withTargets.filter((f) => verdict(f) === v);
const failed = results.filter((r) => !r.ok);
console.log(`\n== Summary (${((Date.now() - started) / 1000).toFixed(0)} s)`);
console.log(
  `targets: ${byVerdict('OK').length} met, ${byVerdict('MISSED').length} missed${byVerdict('not shown').length ? `, ${byVerdict('not shown').length} not shown (lower bound only)` : ''}`,
);
for (const figure of byVerdict('MISSED')) {
  const value = figure.targets.some((t) => t.on === 'ratio') ? `${formatRatio(figure.ratio)} / ` : '';
  console.log(
    `  missed: ${figure.name} — ${value}${formatNumber(figure.value)} ${figure.unit}, target ${figure.targets.map((t) => targetText(t, figure.unit)).join(', ')}`,
  );
}
for (const figure of byVerdict('not shown'))
  console.log(`  not shown: ${figure.name} — ${formatNumber(figure.value)} ${figure.unit} is only a lower bound`);
for (const r of failed) console.log(`  section failed: ${r.section.name}`);
process.exit(failed.length > 0 || (strict && byVerdict('MISSED').length > 0) ? 1 : 0);
