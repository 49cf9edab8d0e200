/**
 * The language server builds a lab's payload at each pause in typing: configs it read while their
 * directory was watched are not looked at again (no realpath, stat or read) until the watcher hears
 * of a change there (#29: 30,000 file-system calls a pause at 10,000 nodes). Counted by wrapping
 * node's own file-system calls; the watcher and the reads are the real ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Connection } from 'vscode-languageserver/node';
import { parseLab } from '../../common/lab/parse/parse';
import { buildProjectPayload } from '../../common/project-files/payload';
import { ConfigFiles } from '../../server/config-files';
import { Log } from '../../server/log';
import { withTempDir } from '../support/temp-dir';

const NODES = 40;

/** The module object payload.ts calls into (an `import *` gives a copy whose functions cannot be replaced). */
const fsPromises = createRequire(__filename)('node:fs/promises') as Record<string, unknown>;

/** Counts the file-system calls on paths under `dir` while `body` runs. */
async function fsCallsUnder<T>(dir: string, body: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const calls: string[] = [];
  const originals = new Map<string, unknown>();
  for (const name of ['realpath', 'stat', 'lstat', 'open', 'readFile']) {
    const original = fsPromises[name] as (...args: unknown[]) => unknown;
    originals.set(name, original);
    fsPromises[name] = (...args: unknown[]) => {
      if (String(args[0]).startsWith(dir)) calls.push(`${name} ${String(args[0]).slice(dir.length + 1)}`);
      return original(...args);
    };
  }
  try {
    return { result: await body(), calls };
  } finally {
    for (const [name, original] of originals) fsPromises[name] = original;
  }
}

test('configs read while watched are not looked at again until the watcher hears of a change', () =>
  withTempDir('config-watch-', async (labDir) => {
    const configsDir = join(labDir, 'configs');
    await mkdir(configsDir);
    for (let i = 0; i < NODES; i++) await writeFile(join(configsDir, `r${i}.cfg`), `hostname r${i}\n`);
    const path = join(labDir, 'watched.lab.yaml');
    const uri = `file://${path}`;
    const nodes = Array.from(
      { length: NODES },
      (_, i) => `  r${i}:\n    template: frr\n    config: configs/r${i}.cfg\n`,
    );
    const text = `name: watched\nnodes:\n${nodes.join('')}`;
    const model = parseLab(text);

    let heard = 0;
    let wake: (() => void) | undefined;
    const configs = new ConfigFiles(
      () => {
        heard++;
        wake?.();
      },
      new Log({ console: { warn: () => undefined, error: () => undefined } } as unknown as Connection),
    );
    const changeHeard = () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the watcher told of no change within 5 s')), 5000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const build = () =>
      fsCallsUnder(configsDir, async () => {
        configs.follow(uri, path, model);
        return (await buildProjectPayload(path, text, model, configs.cacheOf(uri))).files ?? {};
      });
    try {
      const first = await build();
      assert.equal(Object.keys(first.result).length, NODES);
      assert.ok(first.calls.length >= NODES * 3, `the first build reads every config: ${first.calls.length} calls`);

      // A pause in typing with nothing changed on disk: not one call under the configs' directory.
      for (let pause = 0; pause < 3; pause++) assert.deepEqual((await build()).calls, [], `pause ${pause}`);

      // One config changes: the watcher hears of it, and the next build reads that one alone.
      let heardIt = changeHeard();
      await writeFile(join(configsDir, 'r3.cfg'), 'hostname r3\ninterface eth0\n');
      await heardIt;
      const afterChange = await build();
      assert.equal(afterChange.result['configs/r3.cfg'], 'hostname r3\ninterface eth0\n');
      assert.ok(afterChange.calls.length > 0, 'r3 is read again');
      assert.deepEqual(
        afterChange.calls.filter((call) => !call.endsWith('r3.cfg')),
        [],
        'only r3 is looked at',
      );
      assert.deepEqual((await build()).calls, []);

      // The directory itself moved away and a new one made in its place: read afresh, and watched afresh.
      heardIt = changeHeard();
      await rename(configsDir, join(labDir, 'old-configs'));
      await heardIt;
      await mkdir(configsDir);
      for (let i = 0; i < NODES; i++) await writeFile(join(configsDir, `r${i}.cfg`), `hostname new-r${i}\n`);
      const replaced = await build();
      assert.equal(replaced.result['configs/r0.cfg'], 'hostname new-r0\n');
      assert.equal(Object.keys(replaced.result).length, NODES);
      heardIt = changeHeard();
      await writeFile(join(configsDir, 'r5.cfg'), 'hostname r5 again\n');
      await heardIt;
      assert.equal((await build()).result['configs/r5.cfg'], 'hostname r5 again\n');
      assert.ok(heard >= 3, `the watcher told of ${heard} changes`);
    } finally {
      configs.close(uri);
    }
  }));
