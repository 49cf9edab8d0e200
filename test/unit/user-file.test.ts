/**
 * readUserFile on every kind of path a lab can name: a regular file, a huge
 * one, a FIFO (which must neither hang nor hold a file-system thread), a
 * symbolic link, a directory, a missing file, a file that grows past the limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readUserFile, UserFileError } from '../../common/project-files/user-file';
import { mkfifo, refused, within } from '../support/user-files';
import { withTempDir } from '../support/temp-dir';

const LIMITS = { maxBytes: 1024 * 1024, timeoutMs: 5000 };

test('a regular file is read whole, as UTF-8', () =>
  withTempDir('user-file-', async (dir) => {
    const path = join(dir, 'r1.cfg');
    await writeFile(path, 'hostname r1\ndescription Zürich\n');
    assert.equal(await readUserFile(path, 'the config', LIMITS), 'hostname r1\ndescription Zürich\n');
    await writeFile(path, '');
    assert.equal(await readUserFile(path, 'the config', LIMITS), '');
  }));

test('a file of exactly the limit is read; one byte more is refused, naming the size and the limit', () =>
  withTempDir('user-file-', async (dir) => {
    const path = join(dir, 'edge.cfg');
    await writeFile(path, 'x'.repeat(1000));
    assert.equal((await readUserFile(path, 'the config', { maxBytes: 1000, timeoutMs: 5000 })).length, 1000);
    await writeFile(path, 'x'.repeat(1001));
    const err = await refused(readUserFile(path, 'the config', { maxBytes: 1000, timeoutMs: 5000 }), 'too_large', path);
    assert.match(err.message, /1001 bytes, over the limit of 1000 bytes/);
  }));

test('a huge file is refused from its size, without reading it', () =>
  withTempDir('user-file-', async (dir) => {
    const path = join(dir, 'huge.cfg');
    // Sparse: 300 MB on paper, nothing on disk.
    const handle = await open(path, 'w');
    await handle.truncate(300 * 1000 * 1000);
    await handle.close();
    const before = process.memoryUsage().rss;
    await refused(within(readUserFile(path, 'the config', LIMITS), 2000, 'refusing a huge file'), 'too_large', path);
    assert.ok(process.memoryUsage().rss - before < 50 * 1024 * 1024, 'the huge file was not loaded');
  }));

test('a FIFO is refused at once, and many of them leave file reads working', () =>
  withTempDir('user-file-', async (dir) => {
    const fifos = Array.from({ length: 8 }, (_, i) => join(dir, `pipe${i}.cfg`));
    for (const fifo of fifos) mkfifo(fifo);
    const errors = await within(
      Promise.all(fifos.map((f) => readUserFile(f, 'the config', LIMITS).catch((err: unknown) => err))),
      2000,
      'refusing FIFOs',
    );
    for (const [i, err] of errors.entries()) {
      assert.ok(err instanceof UserFileError && err.problem === 'not_regular', String(err));
      assert.match(err.message, new RegExp(`pipe${i}\\.cfg.*not a regular file`));
    }
    // Node's thread pool has 4 threads: a blocking open of each FIFO would have taken them all.
    const plain = join(dir, 'after.cfg');
    await writeFile(plain, 'still fine');
    assert.equal(await within(readFile(plain, 'utf8'), 2000, 'a plain read after the FIFOs'), 'still fine');
  }));

test('a symbolic link is refused (callers resolve and check links themselves)', () =>
  withTempDir('user-file-', async (dir) => {
    const target = join(dir, 'target.cfg');
    await writeFile(target, 'x');
    const link = join(dir, 'link.cfg');
    await symlink(target, link);
    await refused(readUserFile(link, 'the config', LIMITS), 'symlink', link);
  }));

test('a directory is refused as such', () =>
  withTempDir('user-file-', async (dir) => {
    const path = join(dir, 'configs');
    await mkdir(path);
    const err = await refused(readUserFile(path, 'the config', LIMITS), 'not_regular', path);
    assert.match(err.message, /is a directory/);
  }));

test('a missing file, or one under a file, is missing', () =>
  withTempDir('user-file-', async (dir) => {
    const missing = join(dir, 'none.cfg');
    await refused(readUserFile(missing, 'the config', LIMITS), 'missing', missing);
    const plain = join(dir, 'plain');
    await writeFile(plain, 'x');
    await refused(readUserFile(join(plain, 'below.cfg'), 'the config', LIMITS), 'missing', join(plain, 'below.cfg'));
  }));
