import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directionOf, loginArgsOf, nodeListOf, stopModeOf, targetOfArg } from '../../client/model/command-args';

test('a lens argument names the lab and maybe a node', () => {
  assert.deepEqual(targetOfArg({ uri: 'file:///w/a.lab.yaml' }), { uri: 'file:///w/a.lab.yaml' });
  assert.deepEqual(targetOfArg({ uri: 'file:///w/a.lab.yaml', node: 'r1' }), {
    uri: 'file:///w/a.lab.yaml',
    node: 'r1',
  });
  assert.deepEqual(targetOfArg({ uri: 'file:///w/a.lab.yaml', node: '' }), { uri: 'file:///w/a.lab.yaml' });
});

test('a tree row carries its target under data', () => {
  const row = { id: 'x', label: 'r1', data: { uri: 'file:///w/a.lab.yaml', node: 'r1' } };
  assert.deepEqual(targetOfArg(row), { uri: 'file:///w/a.lab.yaml', node: 'r1' });
});

test('a Uri object (explorer, editor menus) is accepted', () => {
  class FakeUri {
    scheme = 'file';
    path = '/w/a.lab.yaml';
    toString(): string {
      return 'file:///w/a.lab.yaml';
    }
  }
  assert.deepEqual(targetOfArg(new FakeUri()), { uri: 'file:///w/a.lab.yaml' });
  assert.deepEqual(targetOfArg('file:///w/a.lab.yaml'), { uri: 'file:///w/a.lab.yaml' });
});

test('anything else names no target', () => {
  for (const arg of [
    undefined,
    null,
    42,
    '',
    [],
    {},
    { uri: 42 },
    { scheme: 'file', path: '/x' },
    { data: { node: 'r1' } },
  ]) {
    assert.equal(targetOfArg(arg), undefined, JSON.stringify(arg));
  }
});

test('login arguments keep only well-typed fields', () => {
  assert.deepEqual(
    loginArgsOf({ agent: 'eve', url: 'https://a:8787', username: 'lab', password: '', pin: 'AB', extra: 1 }),
    {
      agent: 'eve',
      url: 'https://a:8787',
      username: 'lab',
      password: '',
      pin: 'AB',
    },
  );
  assert.deepEqual(loginArgsOf({ agent: 3, url: 7, password: 8 }), {
    agent: undefined,
    url: undefined,
    username: undefined,
    password: undefined,
    pin: undefined,
  });
  assert.deepEqual(loginArgsOf(undefined), {
    agent: undefined,
    url: undefined,
    username: undefined,
    password: undefined,
    pin: undefined,
  });
});

test('stop modes, directions and node lists are checked', () => {
  assert.equal(stopModeOf(0), 0);
  assert.equal(stopModeOf(3), 3);
  assert.equal(stopModeOf(4), undefined);
  assert.equal(stopModeOf('1'), undefined);
  assert.equal(directionOf('from_emu'), 'from_emu');
  assert.equal(directionOf('pull'), undefined);
  assert.deepEqual(nodeListOf(['r1', '', 3, 'r2']), ['r1', 'r2']);
  assert.equal(nodeListOf([]), undefined);
  assert.equal(nodeListOf('r1'), undefined);
});
