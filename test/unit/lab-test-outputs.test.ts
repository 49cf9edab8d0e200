/**
 * The lab tests' output parsers against real outputs recorded from FRR 8.4.4
 * and Linux hosts on the linux agent (test/unit/lab-tests-recorded/), and
 * against the same outputs cut short or replaced by error messages: those
 * fail with a reason, never pass and never throw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkCommand,
  commandVerdict,
  frrAddress,
  frrBgpVerdict,
  frrOspfVerdict,
  frrRouteVerdict,
  linuxAddress,
  linuxRouteVerdict,
  pingVerdict,
  type Verdict,
} from '../../common/testing/check-outputs';

const recorded = (name: string) =>
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'unit', 'lab-tests-recorded', name), 'utf8');

/** Every way a JSON output can go wrong: nothing, cut at several places, an error line or another shape instead. */
function broken(output: string): string[] {
  const whole = output.trimEnd();
  const cuts = [0.25, 0.5, 0.9].map((f) => whole.slice(0, Math.floor(whole.length * f))).concat(whole.slice(0, -1));
  return [
    '',
    '   \n',
    ...cuts,
    '% Unknown command: show ip ospf neighbour json',
    'ospfd is not running',
    'null',
    '[]',
    '{"neighbors": 3}',
  ];
}

function assertFailsClearly(verdict: Verdict, what: string): void {
  assert.equal(verdict.passed, false, `${what}: ${JSON.stringify(verdict)}`);
  assert.ok(verdict.actual.length > 0 && verdict.expected.length > 0, what);
}

test("ospf-neighbors: both of r2's neighbours are Full, on eth0 and eth1", () => {
  const output = recorded('frr-ospf-neighbors-r2-full.json');
  assert.equal(frrOspfVerdict(output, { count: 2 }).passed, true);
  assert.equal(frrOspfVerdict(output, {}).passed, true);
  assert.equal(frrOspfVerdict(output, { count: 1, interface: 'eth0' }).passed, true);
  assert.equal(frrOspfVerdict(output, { count: 1, neighbor: '10.255.0.3' }).passed, true);
  const three = frrOspfVerdict(output, { count: 3 });
  assert.equal(three.passed, false);
  assert.equal(three.expected, '3 neighbours in state Full');
  assert.equal(three.actual, '2 in state Full; neighbours: 10.255.0.1 Full on eth0, 10.255.0.3 Full on eth1');
  assert.equal(frrOspfVerdict(output, { count: 2, state: 'Init' }).passed, false);
  assert.equal(frrOspfVerdict(output, { interface: 'eth2' }).passed, false);
});

test('ospf-neighbors: r1 with r2 stopped has none; count 0 passes', () => {
  const output = recorded('frr-ospf-neighbors-r1-r2-stopped.json');
  const verdict = frrOspfVerdict(output, { count: 1 });
  assert.equal(verdict.passed, false);
  assert.match(verdict.actual, /^0 in state Full; neighbours: none$/);
  assert.equal(frrOspfVerdict(output, { count: 0 }).passed, true);
});

test('ospf-neighbors: text output, errors and cut JSON fail with the reason', () => {
  assert.match(frrOspfVerdict(recorded('frr-ospf-neighbors-r2.txt'), {}).actual, /instead of JSON/);
  assert.match(frrOspfVerdict(recorded('frr-unknown-command.txt'), {}).actual, /answered "% Unknown command/);
  for (const output of broken(recorded('frr-ospf-neighbors-r2-full.json')))
    assertFailsClearly(frrOspfVerdict(output, { count: 0 }), JSON.stringify(output.slice(0, 40)));
  assert.match(
    frrOspfVerdict(recorded('frr-ospf-neighbors-r2-full.json').slice(0, 300), {}).actual,
    /not complete JSON/,
  );
});

test('bgp-sessions: b1 has one Established session and one Active', () => {
  const output = recorded('frr-bgp-summary-b1.json');
  assert.equal(frrBgpVerdict(output, { peer: '10.9.0.2' }).passed, true);
  assert.equal(frrBgpVerdict(output, { count: 1 }).passed, true);
  const all = frrBgpVerdict(output, {});
  assert.equal(all.passed, false);
  assert.equal(all.actual, '1 of 2 sessions Established: 10.9.0.2 Established, 10.9.0.9 Active');
  assert.equal(frrBgpVerdict(output, { peer: '10.9.0.9' }).passed, false);
  assert.match(frrBgpVerdict(recorded('frr-bgp-summary-no-bgpd.json'), {}).actual, /answered "bgpd is not running"/);
  assert.match(frrBgpVerdict('{}', {}).actual, /no BGP sessions/);
  for (const bad of broken(output)) assertFailsClearly(frrBgpVerdict(bad, { count: 0 }), bad.slice(0, 40));
});

test('route (FRR): r1 has the OSPF route to 10.0.2.0/24 via r2; b1 the BGP route', () => {
  const output = recorded('frr-route-r1-10.0.2.0.json');
  const settings = { prefix: '10.0.2.0/24', protocol: 'ospf', nexthop: '10.0.12.2' };
  assert.equal(frrRouteVerdict(output, settings).passed, true);
  assert.equal(frrRouteVerdict(output, { prefix: '10.0.2.0/24' }).passed, true);
  const bgp = frrRouteVerdict(output, { ...settings, protocol: 'bgp' });
  assert.equal(bgp.passed, false);
  assert.equal(bgp.actual, 'routes to 10.0.2.0/24: ospf (selected) via 10.0.12.2');
  assert.equal(frrRouteVerdict(output, { ...settings, nexthop: '10.0.12.9' }).passed, false);
  assert.equal(
    frrRouteVerdict(recorded('frr-route-r1-missing.json'), { prefix: '10.9.9.0/24' }).actual,
    'no route to 10.9.9.0/24',
  );
  assert.equal(
    frrRouteVerdict(recorded('frr-route-b1-bgp.json'), {
      prefix: '10.9.255.2/32',
      protocol: 'bgp',
      nexthop: '10.9.0.2',
    }).passed,
    true,
  );
  // The whole table: only exactly the prefix counts, and only the selected route (10.0.1.0/24 by OSPF is not).
  const table = recorded('frr-routes-r1.json');
  assert.equal(frrRouteVerdict(table, { prefix: '10.0.1.0/24', protocol: 'connected' }).passed, true);
  assert.equal(frrRouteVerdict(table, { prefix: '10.0.1.0/24', protocol: 'ospf' }).passed, false);
  assert.equal(frrRouteVerdict(table, { prefix: '10.0.2.0/23' }).passed, false);
  assert.match(frrRouteVerdict(recorded('frr-routes-r1.txt'), { prefix: '10.0.2.0/24' }).actual, /instead of JSON/);
  for (const bad of broken(output))
    assertFailsClearly(frrRouteVerdict(bad, { prefix: '10.0.2.0/24' }), bad.slice(0, 40));
});

test('route (Linux): h1 has a default route via r1 and no route to 10.0.2.0/24', () => {
  const output = recorded('linux-route-h1-default.json');
  assert.equal(linuxRouteVerdict(output, { prefix: 'default', nexthop: '10.0.1.1' }).passed, true);
  assert.equal(linuxRouteVerdict(output, { prefix: 'default', protocol: 'boot' }).passed, true);
  assert.equal(linuxRouteVerdict(output, { prefix: 'default', protocol: 'ospf' }).passed, false);
  assert.equal(
    linuxRouteVerdict(recorded('linux-route-h1-missing.json'), { prefix: '10.0.2.0/24' }).actual,
    'no route to 10.0.2.0/24',
  );
  for (const bad of broken(output)) assertFailsClearly(linuxRouteVerdict(bad, { prefix: 'default' }), bad.slice(0, 40));
});

test('ping: the replies and the loss come from the statistics line', () => {
  const ok = pingVerdict(recorded('linux-ping-h1-h2.txt'), 0);
  assert.deepEqual(ok, { passed: true, expected: 'every reply', actual: '3 of 3 replies (0% loss)' });
  for (const name of ['linux-ping-h1-unreachable.txt', 'linux-ping-h1-noroute.txt', 'linux-ping-h1-no-answer.txt']) {
    const verdict = pingVerdict(recorded(name), 100);
    // Even with all loss allowed, a ping without a single reply fails.
    assert.equal(verdict.passed, false, name);
    assert.equal(verdict.actual, '0 of 3 replies (100% loss)', name);
  }
  assert.match(
    pingVerdict(recorded('frr-ping.txt'), 0).actual,
    /no ping statistics in the output \("ping: socktype: SOCK_RAW"\)/,
  );
  // Cut before or inside the statistics line: no pass even though replies were printed.
  const whole = recorded('linux-ping-h1-h2.txt');
  const statistics = whole.indexOf('3 packets transmitted');
  for (const cut of [
    '',
    whole.slice(0, whole.indexOf('---')),
    whole.slice(0, statistics + 30),
    'ping: connect: Network is unreachable',
  ])
    assertFailsClearly(pingVerdict(cut, 0), cut.slice(0, 40));
});

test("addresses for ping targets: a host's eth0, a router's interfaces, loopback last", () => {
  assert.equal(linuxAddress(recorded('linux-ip-addr-h2.json')), '10.0.2.10');
  assert.equal(linuxAddress(recorded('linux-ip-addr-h2.json'), 'eth0'), '10.0.2.10');
  assert.equal((linuxAddress(recorded('linux-ip-addr-h2.json'), 'eth9') as Verdict).actual, 'no IPv4 address on eth9');
  const interfaces = recorded('frr-interfaces-r1.json');
  assert.equal(frrAddress(interfaces), '10.0.1.1');
  assert.equal(frrAddress(interfaces, 'eth1'), '10.0.12.1');
  assert.equal(frrAddress(interfaces, 'lo'), '10.255.0.1');
  for (const output of broken(interfaces)) assert.equal(typeof frrAddress(output), 'object', output.slice(0, 40));
  for (const output of broken(recorded('linux-ip-addr-h2.json')))
    assert.equal(typeof linuxAddress(output), 'object', output.slice(0, 40));
});

test('command: contains, not-contains, matching lines and their count, on the text route table', () => {
  const output = recorded('frr-routes-r1.txt');
  assert.equal(commandVerdict(output, { contains: '10.0.2.0/24' }).passed, true);
  assert.equal(commandVerdict(output, { 'not-contains': '10.0.2.0/24' }).passed, false);
  assert.equal(commandVerdict(output, { matches: '^O>\\* ', count: 4 }).passed, true);
  const three = commandVerdict(output, { matches: '^O>\\* ', count: 3 });
  assert.deepEqual(three, {
    passed: false,
    expected: 'the output 3 lines matching /^O>\\* /',
    actual: 'the output 4 lines matching',
  });
  assert.equal(commandVerdict('', { contains: 'Full' }).passed, false);
  assert.match(commandVerdict(output, { matches: '(' }).actual, /does not compile/);
  assert.equal(commandVerdict(output, {}).passed, false);
});

test('the commands each family runs', () => {
  assert.equal(checkCommand('ospf-neighbors', 'frr', {}), 'show ip ospf neighbor json');
  assert.equal(checkCommand('ospf-neighbors', 'linux', {}), undefined);
  assert.equal(checkCommand('route', 'frr', { prefix: 'default' }), 'show ip route 0.0.0.0/0 json');
  assert.equal(checkCommand('route', 'linux', { prefix: '10.0.2.0/24' }), 'ip -j -4 route show 10.0.2.0/24');
  assert.equal(checkCommand('ping', 'linux', { count: 5 }, '10.0.2.10'), 'ping -n -c 5 -W 1 -i 0.2 10.0.2.10');
  assert.equal(checkCommand('ping', 'frr', {}, '10.0.2.10'), undefined);
  assert.equal(checkCommand('command', 'cisco', { run: 'show ip ospf neighbor' }), 'show ip ospf neighbor');
});
