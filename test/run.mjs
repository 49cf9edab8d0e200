// Runs every compiled unit and integration test (out/test/**/*.test.js) with node's test runner.
// Node 20's runner does not expand globs, so the files are listed here. The console gets a quiet
// report (failures, skips and one `N passed, N failed` line); the full TAP goes to out/test.tap.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'e2e' || name === 'bench' ? [] : find(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const filter = process.argv[2];
const files = find('out/test')
  .filter((f) => !filter || f.includes(filter))
  .sort();
if (files.length === 0) {
  console.error('no test files found under out/test');
  process.exit(1);
}
const reporter = fileURLToPath(new URL('./reporter.mjs', import.meta.url));
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    '--test-reporter-destination=out/test.tap',
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
