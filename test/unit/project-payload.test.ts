import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseLab } from '../../common/lab/parse/parse';
import { buildProjectPayload, buildProjectPayloadWithState } from '../../common/project-files/payload';
import { statePathFor, writeLabState } from '../../common/project-files/state-file';
import { UserFileError } from '../../common/project-files/user-file';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { mkfifo, within } from '../support/user-files';
import { withTempDir } from '../support/temp-dir';

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
  withTempDir('lab-payload-', async (root) => {
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
  withTempDir('lab-payload-', async (dir) => {
    const text = 'name: x\nnodes:\n  a:\n    template: vios\n';
    const payload = await buildProjectPayload(join(dir, 'x.lab.yaml'), text, parseLab(text));
    assert.deepEqual(payload, { yaml: text, files: {} });
  }));

/** A lab whose one node names `config`. */
function labNaming(config: string): string {
  return `name: x\nnodes:\n  r1:\n    template: vios\n    config: ${config}\n`;
}

async function refusedPayload(dir: string, config: string, pattern: RegExp): Promise<void> {
  const text = labNaming(config);
  await assert.rejects(within(buildProjectPayload(join(dir, 'x.lab.yaml'), text, parseLab(text)), 3000), (err) => {
    assert.ok(err instanceof UserFileError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

test('a config that is a FIFO is refused at once, naming it; later reads still work', () =>
  withTempDir('lab-payload-', async (dir) => {
    for (let i = 0; i < 6; i++) mkfifo(join(dir, `pipe${i}.cfg`));
    for (let i = 0; i < 6; i++)
      await refusedPayload(dir, `pipe${i}.cfg`, new RegExp(`startup config pipe${i}\\.cfg.*not a regular file`));
    await writeFile(join(dir, 'ok.cfg'), 'hostname ok\n');
    const text = labNaming('ok.cfg');
    const payload = await within(buildProjectPayload(join(dir, 'x.lab.yaml'), text, parseLab(text)), 3000);
    assert.deepEqual(payload.files, { 'ok.cfg': 'hostname ok\n' });
  }));

test('a config larger than a request to the agent is refused before it is read', () =>
  withTempDir('lab-payload-', async (dir) => {
    const handle = await open(join(dir, 'huge.cfg'), 'w');
    await handle.truncate(300 * 1000 * 1000);
    await handle.close();
    await refusedPayload(dir, 'huge.cfg', /startup config huge\.cfg.*300000000 bytes, over the limit/);
  }));

test('configs that together exceed a request to the agent are refused', () =>
  withTempDir('lab-payload-', async (dir) => {
    const half = Buffer.alloc(MAX_BODY_BYTES / 2 + 1, 0x61);
    await writeFile(join(dir, 'a.cfg'), half);
    await writeFile(join(dir, 'b.cfg'), half);
    const text = 'name: x\nnodes:\n  r1:\n    config: a.cfg\n  r2:\n    config: b.cfg\n';
    await assert.rejects(
      buildProjectPayload(join(dir, 'x.lab.yaml'), text, parseLab(text)),
      /after the lab and its other configs/,
    );
  }));

test('a config that is a directory is refused', () =>
  withTempDir('lab-payload-', async (dir) => {
    await mkdir(join(dir, 'configs'));
    await refusedPayload(dir, 'configs', /startup config configs .*is a directory/);
  }));

test('a corrupt state file fails the payload instead of reading as no state', () =>
  withTempDir('lab-payload-', async (dir) => {
    await mkdir(join(dir, '.lab-agent'));
    await writeFile(statePathFor(join(dir, 'x.lab.yaml')), '{"lab": "/imported/x.unl", "sta');
    await refusedPayload(dir, 'none.cfg', /state file .* is corrupt/);
  }));

test('a command that loaded the stored state builds its payload without reading the state file again', () =>
  withTempDir('lab-payload-', async (dir) => {
    const labPath = join(dir, 'core.lab.yaml');
    // A state file that every read refuses (corrupt): the payload must come from the state given.
    await mkdir(join(dir, '.lab-agent'), { recursive: true });
    await writeFile(statePathFor(labPath), '{ not json');
    await assert.rejects(buildProjectPayload(labPath, LAB, parseLab(LAB)), UserFileError);
    const payload = await buildProjectPayloadWithState(labPath, LAB, parseLab(LAB), {
      lab: '/x.unl',
      state: { revision: 2 },
      manifest: 'm2',
    });
    assert.deepEqual(payload.state, { revision: 2 });
    assert.equal(payload.manifest, 'm2');
    assert.equal(payload.lab, undefined);
  }));
