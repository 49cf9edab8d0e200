import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readLabState, setAsideLabState, statePathFor, writeLabState } from '../../common/project-files/state-file';
import { mkfifo, refused } from '../support/user-files';
import { withTempDir } from '../support/temp-dir';

test('the state file sits in .lab-agent beside the lab, named after it', () => {
  assert.equal(statePathFor('/labs/core.lab.yaml'), join('/labs', '.lab-agent', 'core.lab.yaml.state.json'));
});

test('a written state reads back unchanged and leaves no temp file', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'core.lab.yaml');
    const value = {
      lab: '/lab-agent/core.unl',
      state: { revision: 3, nodes: { r1: 1 } },
      source: ['x'],
      manifest: 'm',
    };
    await writeLabState(lab, value);
    assert.deepEqual(await readLabState(lab), value);
    assert.deepEqual((await readdir(join(dir, '.lab-agent'))).sort(), ['.gitignore', 'core.lab.yaml.state.json']);
  }));

test('a .lab-agent folder the extension makes ignores itself in git; one the user made is left alone', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'core.lab.yaml');
    await writeLabState(lab, { state: 1 });
    const ignore = await readFile(join(dir, '.lab-agent', '.gitignore'), 'utf8');
    assert.deepEqual(
      ignore.split('\n').filter((l) => l !== '' && !l.startsWith('#')),
      ['*'],
    );
    await writeLabState(lab, { state: 2 });
    assert.equal(await readFile(join(dir, '.lab-agent', '.gitignore'), 'utf8'), ignore, 'written once');

    const own = join(dir, 'own');
    await mkdir(join(own, '.lab-agent'), { recursive: true });
    await writeLabState(join(own, 'x.lab.yaml'), { state: 1 });
    assert.deepEqual(await readdir(join(own, '.lab-agent')), ['x.lab.yaml.state.json']);
  }));

test('a second write replaces the first', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'a.lab.yaml');
    await writeLabState(lab, { state: 1 });
    await writeLabState(lab, { state: 2 });
    assert.deepEqual(await readLabState(lab), { state: 2 });
    assert.equal(JSON.parse(await readFile(statePathFor(lab), 'utf8')).state, 2);
  }));

test('a missing state file reads as undefined', () =>
  withTempDir('lab-state-', async (dir) => {
    assert.equal(await readLabState(join(dir, 'none.lab.yaml')), undefined);
  }));

test('a corrupt or non-object state file is reported as corrupt, never read as "no state"', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'bad.lab.yaml');
    await mkdir(join(dir, '.lab-agent'));
    for (const content of ['{not json', '[1,2]', '"text"', 'null', '\u0000\u0001\u00ff', '']) {
      await writeFile(statePathFor(lab), content);
      const err = await refused(readLabState(lab), 'corrupt', statePathFor(lab));
      assert.match(
        err.message,
        /is corrupt: it is not (valid JSON|a JSON object)/,
        `content ${JSON.stringify(content)}`,
      );
    }
  }));

test('a corrupt state file set aside keeps its content beside it, and the next read finds no state', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'bad.lab.yaml');
    await mkdir(join(dir, '.lab-agent'));
    await writeFile(statePathFor(lab), '{"lab": "/imported/x.unl", "state": {');
    const aside = await setAsideLabState(lab);
    assert.match(aside, /bad\.lab\.yaml\.state\.json\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z$/);
    assert.equal(await readFile(aside, 'utf8'), '{"lab": "/imported/x.unl", "state": {');
    assert.equal(await readLabState(lab), undefined);
  }));

test('a .lab-agent folder that is a symbolic link is refused for reads and writes; nothing lands outside', () =>
  withTempDir('lab-state-', async (dir) => {
    const labDir = join(dir, 'lab');
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(labDir);
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'x.lab.yaml.state.json'), '{"lab": "/planted.unl"}');
    await symlink(elsewhere, join(labDir, '.lab-agent'));
    const lab = join(labDir, 'x.lab.yaml');
    const folder = join(labDir, '.lab-agent');
    const read = await refused(readLabState(lab), 'symlink', folder);
    assert.match(read.message, /symbolic link.*Replace it with a real folder/);
    await refused(writeLabState(lab, { state: 1 }), 'symlink', folder);
    assert.deepEqual(await readdir(elsewhere), ['x.lab.yaml.state.json']);
    assert.equal(await readFile(join(elsewhere, 'x.lab.yaml.state.json'), 'utf8'), '{"lab": "/planted.unl"}');
  }));

test('a .lab-agent that is a file is refused', () =>
  withTempDir('lab-state-', async (dir) => {
    await writeFile(join(dir, '.lab-agent'), 'not a folder');
    const lab = join(dir, 'x.lab.yaml');
    await refused(readLabState(lab), 'not_regular', join(dir, '.lab-agent'));
    await assert.rejects(writeLabState(lab, { state: 1 }));
  }));

test('a state file that is a FIFO, a directory or a symbolic link is refused, without hanging', () =>
  withTempDir('lab-state-', async (dir) => {
    await mkdir(join(dir, '.lab-agent'));
    const fifoLab = join(dir, 'fifo.lab.yaml');
    mkfifo(statePathFor(fifoLab));
    await refused(readLabState(fifoLab), 'not_regular', statePathFor(fifoLab));
    const dirLab = join(dir, 'dir.lab.yaml');
    await mkdir(statePathFor(dirLab));
    await refused(readLabState(dirLab), 'not_regular', statePathFor(dirLab));
    const linkLab = join(dir, 'link.lab.yaml');
    await writeFile(join(dir, 'real.json'), '{}');
    await symlink(join(dir, 'real.json'), statePathFor(linkLab));
    await refused(readLabState(linkLab), 'symlink', statePathFor(linkLab));
  }));

test('wrong-typed fields are dropped, usable ones kept', () =>
  withTempDir('lab-state-', async (dir) => {
    const lab = join(dir, 'mixed.lab.yaml');
    await mkdir(join(dir, '.lab-agent'));
    await writeFile(statePathFor(lab), JSON.stringify({ lab: 5, manifest: {}, state: { a: 1 } }));
    assert.deepEqual(await readLabState(lab), { state: { a: 1 } });
  }));
