#!/usr/bin/env node
/**
 * The end-to-end suite on desktop VS Code (Electron), for machines that can download VS Code
 * from Microsoft; CI uses test/e2e/run.mjs (code-server) instead, because it cannot.
 *
 * As in run.mjs, the extension under test is the packaged VSIX: it is installed into a fresh
 * extensions folder and extensionDevelopmentPath points at the installed copy. There is no
 * browser driver here, so the suite's tests that need one (screenshots, reading views and
 * terminals) are skipped.
 *
 * Usage: node test/e2e/electron.mjs [--no-build]   (VSCODE_VERSION picks the version, default stable)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import {
  countResults,
  createRunDir,
  removeShortTmp,
  installedExtensionPath,
  root,
  runToEnd,
  sandboxEnv,
  startAgent,
  stopGroups,
  suiteEnv,
  suitePath,
  vsix,
} from './support.mjs';

const dirs = createRunDir('-electron');
const env = sandboxEnv(dirs);
let code = 1;
try {
  if (!process.argv.includes('--no-build')) {
    await runToEnd('npm', ['run', 'package', '--silent'], 'npm run package', {
      env: process.env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  const vscodeExecutablePath = await downloadAndUnzipVSCode({
    version: process.env.VSCODE_VERSION ?? 'stable',
    cachePath: join(root, 'test', 'e2e', '.cache', 'vscode-test'),
  });
  const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath);
  const profile = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const install = spawnSync(cli, [...cliArgs, ...profile, '--install-extension', vsix], { env, stdio: 'inherit' });
  if (install.status !== 0) throw new Error(`installing ${vsix} failed`);

  const agent = await startAgent(dirs, env);
  code = await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: installedExtensionPath(dirs.extensions),
    extensionTestsPath: suitePath,
    extensionTestsEnv: { ...env, ...suiteEnv(dirs, agent, { channel: false }) },
    launchArgs: [
      dirs.workspace,
      ...profile,
      '--disable-workspace-trust',
      '--disable-telemetry',
      '--skip-welcome',
      '--skip-release-notes',
    ],
  });
} catch (error) {
  console.error(`e2e (electron) failed: ${error?.stack ?? error}`);
} finally {
  await stopGroups();
  removeShortTmp(dirs);
}
const { passed, failed } = countResults(dirs);
console.log(`${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);
