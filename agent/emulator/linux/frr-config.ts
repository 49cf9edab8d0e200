/**
 * A changed startup config reaches a running FRR router live. FRR's own
 * reload tool (frr-reload.py --test, with the old startup config as its
 * "running" input) computes the commands that turn the old startup config
 * into the new one; vtysh runs them on the router. Only that difference is
 * applied, so what was typed on the console and is not part of it stays (a
 * full reload to the new file would undo it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from './command';
import { applyConfigDelta, type ConfigDelta } from '../config-contexts';
import { hostnameOf, runDirOf, runningConfig, vtysh } from './frr';
import { FRR_RELOAD, FRR_RUN_DIR } from './system';

/** Command blocks: a top-level line and the lines under it, as vtysh takes them in `configure`. */
export interface ReloadCommands {
  remove: string[][];
  add: string[][];
}

const RELOAD_TIMEOUT_MS = 30_000;

const withNewline = (text: string) => (text.trim() ? (text.endsWith('\n') ? text : `${text}\n`) : '!\n');

/** The reload tool's --test output, "Lines To Delete" and "Lines To Add", as command blocks. */
export function parseReloadTest(output: string): ReloadCommands {
  const commands: ReloadCommands = { remove: [], add: [] };
  let section: string[][] | undefined;
  for (const line of output.replace(/\r/g, '').split('\n')) {
    if (line === 'Lines To Delete') section = commands.remove;
    else if (line === 'Lines To Add') section = commands.add;
    else if (!section || !line.trim() || /^=+$/.test(line)) continue;
    else if (/^\s/.test(line) && section.length) section[section.length - 1].push(line);
    else section.push([line]);
  }
  return commands;
}

/** The commands that turn startup config `from` into `to`, as FRR's reload tool computes them for router `ns`. */
export async function reloadCommands(ns: string, from: string, to: string): Promise<ReloadCommands> {
  const dir = mkdtempSync(join(runDirOf(ns), 'push-'));
  try {
    const before = join(dir, 'before.conf');
    const after = join(dir, 'after.conf');
    writeFileSync(before, withNewline(from), { mode: 0o600 });
    writeFileSync(after, withNewline(to), { mode: 0o600 });
    // Its vtysh parses both files in the router's own path space (-N), so they read as the router reads them.
    const result = await runProcess(
      'ip',
      [
        ...['netns', 'exec', ns, 'python3', FRR_RELOAD, '--test', '--bindir', '/usr/bin'],
        ...['--confdir', FRR_RUN_DIR, '--rundir', dir, '-N', ns, '--input', before, after],
      ],
      { timeoutMs: RELOAD_TIMEOUT_MS },
    );
    if (result.code !== 0) {
      const said = /line \d+: %[^\\\n]*/.exec(result.stderr)?.[0] ?? result.stderr.trim().split('\n').pop() ?? '';
      throw new Error(`FRR does not take the new config: ${said.trim() || `frr-reload.py exited with ${result.code}`}`);
    }
    return parseReloadTest(result.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the commands on the router: removals one block at a time (FRR refuses
 * some `no` forms in full, so, as its reload tool does, trailing words are
 * dropped until one is taken), then all additions in one configure session.
 */
export async function applyReloadCommands(ns: string, hostname: string, commands: ReloadCommands): Promise<void> {
  for (const block of commands.remove) {
    const cmd = [...block];
    for (;;) {
      const result = await vtysh(ns, hostname, ['configure terminal', ...cmd]);
      if (result.code === 0) break;
      const last = cmd[cmd.length - 1];
      const words = last.trim().split(/\s+/);
      if (words.length <= 2)
        throw new Error(`FRR refused "${block.map((l) => l.trim()).join(' / ')}": ${said(result)}`);
      cmd[cmd.length - 1] = `${/^\s*/.exec(last)?.[0] ?? ''}${words.slice(0, -1).join(' ')}`;
    }
  }
  const add = commands.add.flat();
  if (!add.length) return;
  const result = await vtysh(ns, hostname, ['configure terminal', ...add]);
  if (result.code !== 0) throw new Error(`FRR refused part of the new config: ${said(result)}`);
}

function said(result: { stdout: string; stderr: string }): string {
  return `${result.stdout}${result.stderr}`.trim().split('\n').slice(-2).join(' / ');
}

/**
 * The reload tool's commands as a config delta in FRR's own form: an added
 * block is the statement with its contexts; a removal is written as its `no`
 * form (and the `no` form of a negative statement as the statement itself).
 */
function asDelta(commands: ReloadCommands): ConfigDelta {
  const path = (block: string[]) => block.map((line) => line.trim().replace(/\s+/g, ' '));
  return {
    add: commands.add.map(path),
    remove: commands.remove.map((block) => {
      const lines = path(block);
      const last = lines[lines.length - 1];
      lines[lines.length - 1] = last.startsWith('no ') ? last.slice(3) : `no ${last}`;
      return lines;
    }),
  };
}

/**
 * Applies the difference between two startup configs to a running router and
 * carries it into the node's baseline (what the startup config alone gives),
 * so changes made on the console still count as changes and the push itself
 * does not, even where it makes a console change part of the startup config.
 */
export async function pushConfig(
  ns: string,
  hostname: string,
  node: { baseline?: string },
  from: string,
  to: string,
): Promise<void> {
  const commands = await reloadCommands(ns, from, to);
  await applyReloadCommands(ns, hostname, commands);
  const merged = node.baseline === undefined ? undefined : applyConfigDelta(node.baseline, asDelta(commands));
  node.baseline = merged?.text ?? (await runningConfig(ns, hostnameOf(to, hostname)));
}
