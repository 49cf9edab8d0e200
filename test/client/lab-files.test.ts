import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  emulatorLabBaseName,
  emulatorLabPathProblem,
  labDisplayName,
  labFileStem,
  safeRelativeSegments,
} from '../../client/model/lab-files';

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

test('a lab is called by its name, else by its file name', () => {
  assert.equal(labDisplayName('core', 'x.lab.yaml'), 'core');
  assert.equal(labDisplayName(undefined, 'campus.lab.yaml'), 'campus');
  assert.equal(labDisplayName('  ', 'campus.lab.yml'), 'campus');
});
