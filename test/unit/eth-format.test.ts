import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileEthFormat, interfaceIndex, interfaceNames } from '../../common/lab/rules/eth-format';

test('a single counter starts at the number in braces', () => {
  assert.deepEqual(interfaceNames('Gi0/{0}', 3), ['Gi0/0', 'Gi0/1', 'Gi0/2']);
  assert.deepEqual(interfaceNames('Gi{1}', 3), ['Gi1', 'Gi2', 'Gi3']);
  assert.deepEqual(interfaceNames('ge-0/0/{0}', 2), ['ge-0/0/0', 'ge-0/0/1']);
  assert.deepEqual(interfaceNames('Gi0/0/0/{0}', 2), ['Gi0/0/0/0', 'Gi0/0/0/1']);
});

test('slot/port formats: slot start, first port, ports per slot', () => {
  assert.deepEqual(interfaceNames('Gi{1}/{0-8}', 10), [
    'Gi1/0',
    'Gi1/1',
    'Gi1/2',
    'Gi1/3',
    'Gi1/4',
    'Gi1/5',
    'Gi1/6',
    'Gi1/7',
    'Gi2/0',
    'Gi2/1',
  ]);
  assert.deepEqual(interfaceNames('e{0}/{0-4}', 6), ['e0/0', 'e0/1', 'e0/2', 'e0/3', 'e1/0', 'e1/1']);
  assert.deepEqual(interfaceNames('Ethernet{1}/{1-2}', 4), [
    'Ethernet1/1',
    'Ethernet1/2',
    'Ethernet2/1',
    'Ethernet2/2',
  ]);
});

test('eth_name entries come first and the format counts on from there', () => {
  assert.deepEqual(interfaceNames('Ethernet{1}', 3, ['Management1']), ['Management1', 'Ethernet1', 'Ethernet2']);
  assert.deepEqual(interfaceNames('Ethernet1/{1}', 3, ['mgmt0']), ['mgmt0', 'Ethernet1/1', 'Ethernet1/2']);
  assert.deepEqual(interfaceNames('eth{1}', 3, ['eth0/mgmt']), ['eth0/mgmt', 'eth1', 'eth2']);
  // An empty entry does not name its interface; the format does.
  assert.deepEqual(interfaceNames('e{0}', 3, ['', 'wan']), ['e0', 'wan', 'e1']);
  // More names than interfaces: only `count` come back.
  assert.deepEqual(interfaceNames('e{0}', 1, ['a', 'b']), ['a']);
});

test('no braces (or no format) means the default prefix e', () => {
  assert.deepEqual(interfaceNames('', 2), ['e0', 'e1']);
  assert.deepEqual(interfaceNames('eth', 2), ['e0', 'e1']);
  assert.deepEqual(compileEthFormat(undefined).names(2), ['e0', 'e1']);
});

test('zero or negative counts name nothing', () => {
  assert.deepEqual(interfaceNames('Gi0/{0}', 0), []);
  assert.deepEqual(interfaceNames('Gi0/{0}', -3), []);
});

test('interfaceIndex is the inverse of interfaceNames', () => {
  const cases: [string, number, string[] | undefined][] = [
    ['Gi0/{0}', 8, undefined],
    ['Gi{1}', 5, undefined],
    ['Gi{1}/{0-8}', 20, undefined],
    ['e{0}/{0-4}', 16, undefined],
    ['Ethernet{1}', 9, ['Management1']],
    ['Ethernet1/{1}', 9, ['mgmt0']],
    ['e{0}', 4, ['', 'wan', '', 'lan']],
    ['', 3, undefined],
  ];
  for (const [format, count, ethName] of cases) {
    const names = interfaceNames(format, count, ethName);
    names.forEach((name, index) =>
      assert.equal(interfaceIndex(format, name, count, ethName), index, `${format} ${name}`),
    );
  }
});

test('interfaceIndex refuses names the format cannot produce or that are beyond the count', () => {
  assert.equal(interfaceIndex('Gi0/{0}', 'Gi0/4', 4), undefined);
  assert.equal(interfaceIndex('Gi0/{0}', 'Gi0/3', 4), 3);
  assert.equal(interfaceIndex('Gi0/{0}', 'Gi0/03', 4), undefined);
  assert.equal(interfaceIndex('Gi0/{0}', 'gi0/1', 4), undefined);
  assert.equal(interfaceIndex('Gi0/{0}', 'Gi0/', 4), undefined);
  assert.equal(interfaceIndex('Gi{1}', 'Gi0', 4), undefined);
  assert.equal(interfaceIndex('e{0}/{0-4}', 'e0/4', 16), undefined);
  assert.equal(interfaceIndex('e{0}/{0-4}', 'e1/0', 16), 4);
  assert.equal(interfaceIndex('e{0}/{0-4}', 'e4/0', 16), undefined);
  assert.equal(interfaceIndex('Ethernet{1}', 'Management1', 0, ['Management1']), undefined);
  assert.equal(interfaceIndex('Ethernet{1}', 'Ethernet0', 9, ['Management1']), undefined);
  assert.equal(interfaceIndex('Ethernet{1}', 'Ethernet8', 9, ['Management1']), 8);
  assert.equal(interfaceIndex('Ethernet{1}', 'Ethernet9', 9, ['Management1']), undefined);
});

test('look-ups do not enumerate every interface', () => {
  const format = compileEthFormat('Gi{1}/{0-48}');
  const names = Array.from({ length: 2000 }, (_, i) => `Gi${(i % 20) + 1}/${i % 48}`);
  const time = (run: () => void) => {
    const started = process.hrtime.bigint();
    run();
    return Number(process.hrtime.bigint() - started);
  };
  // Baseline measured in the same run: naming all interfaces and searching the list.
  const enumerating = time(() => names.forEach((n) => format.names(1000).indexOf(n)));
  const direct = time(() => names.forEach((n) => format.indexOf(n, 1000)));
  assert.ok(direct * 5 < enumerating, `direct ${direct} ns vs enumerating ${enumerating} ns`);
});
