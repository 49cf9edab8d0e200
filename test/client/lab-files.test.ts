import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  emulatorLabBaseName,
  emulatorLabPathProblem,
  labDisplayName,
  labFileStem,
  safeRelativeSegments,
} from '../../client/model/lab-files';
import { LAB_PATH_MAX_LENGTH, labPathProblem } from '../../common/api/lab-path';

test('config file names stay inside the lab folder', () => {
  assert.deepEqual(safeRelativeSegments('configs/r1.cfg'), ['configs', 'r1.cfg']);
  assert.deepEqual(safeRelativeSegments('./r1.cfg'), ['r1.cfg']);
  assert.deepEqual(safeRelativeSegments('configs\\r1.cfg'), ['configs', 'r1.cfg']);
  for (const bad of ['', '/etc/passwd', '../x', 'a/../../x', 'C:\\x', 'c:/x', 'a\0b', '.', './']) {
    assert.equal(safeRelativeSegments(bad), undefined, JSON.stringify(bad));
  }
});

test('imported lab names become safe file stems', () => {
  assert.equal(labFileStem('Campus Core', 'x'), 'Campus-Core');
  assert.equal(labFileStem('core.unl', 'x'), 'core');
  assert.equal(labFileStem('../..', 'fallback'), 'fallback');
  assert.equal(labFileStem(undefined, 'fallback'), 'fallback');
  assert.equal(labFileStem('a/b', 'x'), 'a-b');
});

test('emulator lab paths', () => {
  assert.equal(emulatorLabBaseName('/examples/campus.unl'), 'campus');
  assert.equal(emulatorLabPathProblem('/examples/campus.unl'), undefined);
  assert.equal(emulatorLabPathProblem('  /my labs/core-1+2.unl '), undefined);
  assert.match(emulatorLabPathProblem('') ?? '', /Enter the path/);
  assert.match(emulatorLabPathProblem('examples/campus.unl') ?? '', /starts with "\/"/);
  assert.match(emulatorLabPathProblem('/examples/campus') ?? '', /\.unl/);
  assert.match(emulatorLabPathProblem('/ex$amples/campus.unl') ?? '', /Only letters/);
});

test('the import prompt refuses every lab path the agent refuses, with the same reason', () => {
  // The agent's rule (common/api/lab-path.ts): no empty or blank folder, a length limit.
  for (const bad of ['//x.unl', '/ .unl', '/a//b/ /.unl', '/a/ /b.unl', `/${'a'.repeat(LAB_PATH_MAX_LENGTH)}.unl`]) {
    const problem = emulatorLabPathProblem(bad);
    assert.ok(problem, bad.slice(0, 40));
    assert.equal(problem, labPathProblem(bad.trim()), bad.slice(0, 40));
  }
  assert.match(emulatorLabPathProblem('/a//b.unl') ?? '', /empty or blank/);
  assert.match(emulatorLabPathProblem(`/${'a'.repeat(300)}.unl`) ?? '', /at most 255/);
  for (const good of ['/examples/campus.unl', '/my labs/core-1+2.unl', `/${'a'.repeat(LAB_PATH_MAX_LENGTH - 5)}.unl`])
    assert.equal(emulatorLabPathProblem(good), labPathProblem(good), good.slice(0, 40));
});

test('a lab is called by its name, else by its file name', () => {
  assert.equal(labDisplayName('core', 'x.lab.yaml'), 'core');
  assert.equal(labDisplayName(undefined, 'campus.lab.yaml'), 'campus');
  assert.equal(labDisplayName('  ', 'campus.lab.yml'), 'campus');
});
