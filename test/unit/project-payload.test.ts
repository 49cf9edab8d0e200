import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLab } from '../../common/lab/parse';
import { buildProjectPayload } from '../../common/project/payload';
import { writeLabState } from '../../common/project/state-file';

async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-payload-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const LAB = `name: core
defaults:
  config: configs/default.cfg
nodes:
  r1:
    template: vios
    config: configs/r1.cfg
  r2:
    template: vios
  r3:
    template: vios
    config: configs/missing.cfg
  r4:
    template: vios
    config: ../outside.cfg
  r5:
    template: vios
    config: configs/link.cfg
`;

test('the payload carries the text, the node configs (defaults applied) and the stored state', () =>
  withTempDir(async (root) => {
    const dir = join(root, 'lab');
    await mkdir(join(dir, 'configs'), { recursive: true });
    await writeFile(join(dir, 'configs', 'r1.cfg'), 'hostname r1\n');
    await writeFile(join(dir, 'configs', 'default.cfg'), 'hostname default\n');
    await writeFile(join(root, 'outside.cfg'), 'secret\n');
    await symlink(join(root, 'outside.cfg'), join(dir, 'configs', 'link.cfg'));
    const labPath = join(dir, 'core.lab.yaml');
    await writeLabState(labPath, { lab: '/imported/x.unl', state: { revision: 1 }, source: { s: 1 }, manifest: 'm1' });

    const payload = await buildProjectPayload(labPath, LAB, parseLab(LAB));
    assert.equal(payload.yaml, LAB);
    // r3's file is missing, r4's escapes the folder, r5's symlink points outside: all left out.
    assert.deepEqual(payload.files, { 'configs/r1.cfg': 'hostname r1\n', 'configs/default.cfg': 'hostname default\n' });
    assert.deepEqual(payload.state, { revision: 1 });
    assert.deepEqual(payload.source, { s: 1 });
    assert.equal(payload.manifest, 'm1');
    // The stored lab may name an import's source lab: it must never become the payload's target.
    assert.equal(payload.lab, undefined);
  }));

test('without stored state or configs the payload is just the text', () =>
  withTempDir(async (dir) => {
    const text = 'name: x\nnodes:\n  a:\n    template: vios\n';
    const payload = await buildProjectPayload(join(dir, 'x.lab.yaml'), text, parseLab(text));
    assert.deepEqual(payload, { yaml: text, files: {} });
  }));
