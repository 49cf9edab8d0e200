import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyConfigDelta, configDelta, sameConfig } from '../../agent/emulator/config-contexts';

const R1 = readFileSync(join(__dirname, '..', '..', '..', 'samples', 'ospf', 'configs', 'r1.conf'), 'utf8');

/** r1's running config as FRR 8.4 prints it after booting from the sample file. */
const RUNNING = `frr version 8.4.4
frr defaults traditional
hostname r1
!
interface eth0
 description to h1
 ip address 10.0.1.1/24
 ip ospf dead-interval 4
 ip ospf passive
exit
!
interface eth1
 description to r2
 ip address 10.0.12.1/30
 ip ospf dead-interval 4
 ip ospf hello-interval 1
 ip ospf network point-to-point
exit
!
interface lo
 ip address 10.255.0.1/32
exit
!
router ospf
 ospf router-id 10.255.0.1
 network 10.0.0.0/8 area 0
exit
!
end`;

/** Lines of `after` not in `before` and the other way round (a line diff, enough for these texts). */
function lineDiff(before: string, after: string): { added: string[]; removed: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  return { added: b.filter((l) => !a.includes(l)), removed: a.filter((l) => !b.includes(l)) };
}

test("a file and FRR's running config of it are the same config", () => {
  assert.ok(sameConfig(R1, RUNNING));
  assert.ok(!sameConfig(R1, RUNNING.replace(' ip ospf passive\n', '')));
});

test('one console change becomes one added line in the file, in its context, order and comments kept', () => {
  const changed = RUNNING.replace(
    ' ip ospf dead-interval 4\n ip ospf hello-interval 1',
    ' ip ospf cost 77\n ip ospf dead-interval 4\n ip ospf hello-interval 1',
  );
  const merged = applyConfigDelta(`! my router\n${R1}`, configDelta(RUNNING, changed));
  assert.deepEqual(merged?.unmapped, []);
  const text = merged?.text ?? '';
  assert.deepEqual(lineDiff(`! my router\n${R1}`, text), { added: [' ip ospf cost 77'], removed: [] });
  assert.match(text, /^! my router\nhostname r1\n/);
  assert.match(text, / ip ospf dead-interval 4\n ip ospf cost 77\n!\nrouter ospf/);
});

test('removed lines and contexts go, a new context is appended with the file separator', () => {
  const changed = RUNNING.replace(' ip ospf passive\n', '').replace(
    'interface lo\n ip address 10.255.0.1/32\nexit\n!\n',
    'interface eth2\n ip address 10.9.9.1/24\nexit\n!\n',
  );
  const merged = applyConfigDelta(R1, configDelta(RUNNING, changed));
  assert.deepEqual(merged?.unmapped, []);
  const diff = lineDiff(R1, merged?.text ?? '');
  assert.deepEqual(diff.removed, ['interface lo', ' ip address 10.255.0.1/32', ' ip ospf passive']);
  assert.deepEqual(diff.added, ['interface eth2', ' ip address 10.9.9.1/24']);
  assert.ok(sameConfig(merged?.text ?? '', changed));
});

test('a statement the file writes differently is reported as unmapped', () => {
  const file = R1.replace('interface eth0', 'int eth0');
  const changed = RUNNING.replace(' ip ospf passive\n', '');
  assert.deepEqual(applyConfigDelta(file, configDelta(RUNNING, changed))?.unmapped, [
    ['interface eth0', 'ip ospf passive'],
  ]);
  assert.equal(applyConfigDelta('interface eth0\n\tip address 1.2.3.4/24\n', configDelta(RUNNING, changed)), undefined);
});
