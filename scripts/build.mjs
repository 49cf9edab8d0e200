// Builds the bundles (extension host, language server, reference agent, topology webview)
// and compiles the tests, so `npm test` runs exactly what ships.
// With --watch (npm run watch): esbuild rebuilds the bundles and tsc recompiles out/ on every save.
import { context } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: watch ? 'info' : 'warning',
};
const bundles = [
  { ...common, entryPoints: ['client/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { ...common, entryPoints: ['server/main.ts'], outfile: 'dist/server.js' },
  { ...common, entryPoints: ['agent/main.ts'], outfile: 'dist/agent.js' },
  // The command line (package.json bin): lab-agent test LAB.lab.yaml.
  { ...common, entryPoints: ['cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // The webviews run in the browser; each one's content security policy admits only its two files.
  {
    ...common,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    entryPoints: {
      topology: 'client/topology/webview/main.ts',
      'topology-style': 'client/topology/webview/style.css',
      // The live packet list of a capture (client/capture/packet-panel.ts).
      packets: 'client/capture/webview/main.ts',
      'packets-style': 'client/capture/webview/style.css',
    },
    outdir: 'dist',
    // A source map would be fetched from a URL the webview's CSP does not admit.
    sourcemap: false,
  },
];
const tsc = ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'];
const webviewTscs = ['client/topology/webview', 'client/capture/webview'].map((dir) => [
  'node_modules/typescript/bin/tsc',
  '-p',
  `${dir}/tsconfig.json`,
]);

const contexts = await Promise.all(bundles.map((options) => context(options)));
if (watch) {
  await Promise.all(contexts.map((ctx) => ctx.watch()));
  // Tests and type errors: tsc in its own watch mode, which reports each recompilation.
  const checker = spawn(process.execPath, [...tsc, '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
  const stop = async () => {
    checker.kill();
    await Promise.all(contexts.map((ctx) => ctx.dispose()));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  if (!process.argv.includes('--bundles-only')) {
    // Tests import modules directly; tsc emits them to out/ (typecheck happens here too). Emptied
    // first, so a renamed or deleted test does not linger there and run again.
    for (const dir of ['agent', 'cli', 'client', 'common', 'server', 'test'])
      rmSync(`out/${dir}`, { recursive: true, force: true });
    execFileSync(process.execPath, tsc, { stdio: 'inherit' });
    // The webview has DOM types and no Node: type-checked on its own (esbuild bundles it).
    for (const webviewTsc of webviewTscs) execFileSync(process.execPath, webviewTsc, { stdio: 'inherit' });
  }
}
