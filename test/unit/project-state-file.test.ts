import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLabState, statePathFor, writeLabState } from '../../common/project/state-file';

async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-state-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the state file sits in .lab-agent beside the lab, named after it', () => {
  assert.equal(statePathFor('/labs/core.lab.yaml'), join('/labs', '.lab-agent', 'core.lab.yaml.state.json'));
});

test('a written state reads back unchanged and leaves no temp file', () =>
  withTempDir(async (dir) => {
    const lab = join(dir, 'core.lab.yaml');
    const value = {
      lab: '/lab-agent/core.unl',
      state: { revision: 3, nodes: { r1: 1 } },
      source: ['x'],
      manifest: 'm',
    };
    await writeLabState(lab, value);
    assert.deepEqual(await readLabState(lab), value);
    assert.deepEqual(await readdir(join(dir, '.lab-agent')), ['core.lab.yaml.state.json']);
  }));

test('a second write replaces the first', () =>
  withTempDir(async (dir) => {
    const lab = join(dir, 'a.lab.yaml');
    await writeLabState(lab, { state: 1 });
    await writeLabState(lab, { state: 2 });
    assert.deepEqual(await readLabState(lab), { state: 2 });
    assert.equal(JSON.parse(await readFile(statePathFor(lab), 'utf8')).state, 2);
  }));

test('a missing state file reads as undefined', () =>
  withTempDir(async (dir) => {
    assert.equal(await readLabState(join(dir, 'none.lab.yaml')), undefined);
  }));

test('a corrupt or non-object state file reads as undefined', () =>
  withTempDir(async (dir) => {
    const lab = join(dir, 'bad.lab.yaml');
    await mkdir(join(dir, '.lab-agent'));
    for (const content of ['{not json', '[1,2]', '"text"', 'null', '\u0000\u0001\u00ff']) {
      await writeFile(statePathFor(lab), content);
      assert.equal(await readLabState(lab), undefined, `content ${JSON.stringify(content)}`);
    }
  }));

test('wrong-typed fields are dropped, usable ones kept', () =>
  withTempDir(async (dir) => {
    const lab = join(dir, 'mixed.lab.yaml');
    await mkdir(join(dir, '.lab-agent'));
    await writeFile(statePathFor(lab), JSON.stringify({ lab: 5, manifest: {}, state: { a: 1 } }));
    assert.deepEqual(await readLabState(lab), { state: { a: 1 } });
  }));
