// Builds the three bundles (extension host, language server, reference agent)
// and compiles the tests, so `npm test` runs exactly what ships.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';

const production = process.argv.includes('--production');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, entryPoints: ['client/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['server/main.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['agent/main.ts'], outfile: 'dist/agent.js' }),
]);

if (!process.argv.includes('--bundles-only')) {
  // Tests import modules directly; tsc emits them to out/ (typecheck happens here too).
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
