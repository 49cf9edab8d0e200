/**
 * What each check runs on a node's console, and what its output says: the
 * commands per console family and the parsers of their outputs (FRR's JSON,
 * Linux ping and `ip -j`). Pure functions of the output text: output that is
 * malformed, cut short or an error message is a failed verdict that says so,
 * never a pass and never an exception. docs/lab-format.md "Tests" documents
 * the same mapping.
 */
import type { CheckKind, ConsoleFamily } from '../lab/rules/test-checks';

export interface Verdict {
  passed: boolean;
  /** What the check wanted, in words ("2 neighbours in state Full"). */
  expected: string;
  /** What the output showed, in words. */
  actual: string;
}

export interface CheckSettings {
  [name: string]: string | number | undefined;
}

// ------------------------------------------------------------------ commands

/** The console command a check runs on a node of `family`; undefined when the family cannot run it. */
export function checkCommand(
  kind: CheckKind,
  family: ConsoleFamily | undefined,
  settings: CheckSettings,
  address?: string,
): string | undefined {
  switch (kind) {
    case 'command':
      return String(settings.run ?? '');
    case 'ping':
      if (family !== 'linux' || !address) return undefined;
      // -W 1: a lost reply costs a second; -i 0.2: the shortest interval ping allows without extra rights.
      return `ping -n -c ${Number(settings.count ?? DEFAULT_PING_COUNT)} -W 1 -i 0.2 ${address}`;
    case 'ospf-neighbors':
      return family === 'frr' ? 'show ip ospf neighbor json' : undefined;
    case 'bgp-sessions':
      return family === 'frr' ? 'show bgp summary json' : undefined;
    case 'route': {
      const prefix = String(settings.prefix ?? '');
      const v6 = prefix.includes(':');
      if (family === 'frr') return `show ${v6 ? 'ipv6' : 'ip'} route ${frrPrefix(prefix, v6)} json`;
      if (family === 'linux') return `ip -j ${v6 ? '-6' : '-4'} route show ${prefix}`;
      return undefined;
    }
  }
}

export const DEFAULT_PING_COUNT = 3;

/** The command that lists a node's addresses (for a ping `to:` a node or interface). */
export function addressCommand(family: ConsoleFamily | undefined, iface?: string): string | undefined {
  if (family === 'linux') return `ip -j -4 address show${iface ? ` dev ${iface}` : ''}`;
  if (family === 'frr') return `show interface${iface ? ` ${iface}` : ''} json`;
  return undefined;
}

function frrPrefix(prefix: string, v6: boolean): string {
  if (prefix === 'default') return v6 ? '::/0' : '0.0.0.0/0';
  return prefix;
}

// ------------------------------------------------------------------ parsing helpers

type Json = { ok: true; value: unknown } | { ok: false; why: string };

/** The output as JSON, or why it is not: an error message from the device, or JSON cut short. */
function readJson(output: string): Json {
  const text = output.trim();
  if (text === '') return { ok: false, why: 'the output is empty' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const first = text.split('\n', 1)[0].slice(0, 200);
    if (text.startsWith('{') || text.startsWith('['))
      return { ok: false, why: `the output is not complete JSON (it may have been cut short): ${first}…` };
    return { ok: false, why: `the node answered "${first}" instead of JSON` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function failed(expected: string, actual: string): Verdict {
  return { passed: false, expected, actual };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

// ------------------------------------------------------------------ ping

const PING_SUMMARY =
  /(\d+) packets transmitted, (\d+) (?:packets )?received(?:, \+\d+ errors)?(?:, \+\d+ duplicates)?, ([\d.]+)% packet loss/;

/** Linux (iputils) ping: passes when the loss is at most `lossAllowed` percent. */
export function pingVerdict(output: string, lossAllowed: number): Verdict {
  const expected = lossAllowed === 0 ? 'every reply' : `at most ${lossAllowed}% loss`;
  const summary = PING_SUMMARY.exec(output);
  if (!summary) {
    const first = output.trim().split('\n', 1)[0]?.slice(0, 200) ?? '';
    return failed(expected, first ? `no ping statistics in the output ("${first}")` : 'no output');
  }
  const [, sent, received, loss] = summary;
  const lost = Number(loss);
  return {
    passed: Number.isFinite(lost) && lost <= lossAllowed && Number(received) > 0,
    expected,
    actual: `${received} of ${sent} replies (${loss}% loss)`,
  };
}

// ------------------------------------------------------------------ addresses

/** The first IPv4 address of an interface, or of the first interface that has one (loopback last). */
export function linuxAddress(output: string, iface?: string): string | Verdict {
  const expected = `an IPv4 address on ${iface ?? 'the node'}`;
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!Array.isArray(json.value)) return failed(expected, 'the output of ip -j is not a list of interfaces');
  const found: { name: string; address: string }[] = [];
  for (const link of json.value) {
    if (!isObject(link) || !Array.isArray(link.addr_info)) continue;
    const name = text(link.ifname) ?? '';
    for (const info of link.addr_info)
      if (isObject(info) && info.family === 'inet' && typeof info.local === 'string')
        found.push({ name, address: info.local });
  }
  return pickAddress(found, expected, iface);
}

export function frrAddress(output: string, iface?: string): string | Verdict {
  const expected = `an IPv4 address on ${iface ?? 'the node'}`;
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!isObject(json.value)) return failed(expected, 'the output is not a map of interfaces');
  const found: { name: string; address: string }[] = [];
  for (const [name, details] of Object.entries(json.value)) {
    if (!isObject(details) || !Array.isArray(details.ipAddresses)) continue;
    for (const entry of details.ipAddresses) {
      const address = isObject(entry) ? text(entry.address) : undefined;
      if (address && !address.includes(':')) found.push({ name, address: address.split('/')[0] });
    }
  }
  return pickAddress(found, expected, iface);
}

function pickAddress(found: { name: string; address: string }[], expected: string, iface?: string): string | Verdict {
  const usable = iface === undefined ? found : found.filter((f) => f.name === iface);
  const chosen =
    usable.find((f) => f.name !== 'lo' && !f.address.startsWith('127.')) ??
    usable.find((f) => !f.address.startsWith('127.'));
  if (chosen) return chosen.address;
  return failed(expected, iface === undefined ? 'no IPv4 address on any interface' : `no IPv4 address on ${iface}`);
}

// ------------------------------------------------------------------ OSPF (FRR)

export function frrOspfVerdict(output: string, settings: CheckSettings): Verdict {
  const state = String(settings.state ?? 'Full');
  const count = settings.count === undefined ? undefined : Number(settings.count);
  const where = settings.interface === undefined ? '' : ` on ${String(settings.interface)}`;
  const who = settings.neighbor === undefined ? '' : ` with router ID ${String(settings.neighbor)}`;
  const expected =
    count === undefined
      ? `at least one neighbour${who}${where} in state ${state}`
      : `${plural(count, 'neighbour')}${who}${where} in state ${state}`;
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!isObject(json.value) || !isObject(json.value.neighbors))
    return failed(expected, 'the output has no "neighbors" map (is ospfd running?)');
  const seen: string[] = [];
  let matching = 0;
  for (const [routerId, entries] of Object.entries(json.value.neighbors)) {
    if (!Array.isArray(entries)) return failed(expected, `neighbour ${routerId} is not a list in the output`);
    for (const entry of entries) {
      if (!isObject(entry)) return failed(expected, `neighbour ${routerId} is not a map in the output`);
      // FRR 8 says nbrState ("Full/-"); older releases state.
      const fullState = text(entry.nbrState) ?? text(entry.state);
      const ifaceName = text(entry.ifaceName)?.split(':')[0];
      if (fullState === undefined) return failed(expected, `neighbour ${routerId} has no state in the output`);
      const bare = fullState.split('/')[0];
      seen.push(`${routerId} ${bare}${ifaceName ? ` on ${ifaceName}` : ''}`);
      if (settings.interface !== undefined && ifaceName !== settings.interface) continue;
      if (settings.neighbor !== undefined && routerId !== settings.neighbor) continue;
      if (bare.toLowerCase() === state.toLowerCase()) matching++;
    }
  }
  const actual = `${matching} in state ${state}${where}${who}; neighbours: ${seen.length ? seen.join(', ') : 'none'}`;
  return { passed: count === undefined ? matching >= 1 : matching === count, expected, actual };
}

// ------------------------------------------------------------------ BGP (FRR)

export function frrBgpVerdict(output: string, settings: CheckSettings): Verdict {
  const count = settings.count === undefined ? undefined : Number(settings.count);
  const peer = settings.peer === undefined ? undefined : String(settings.peer);
  const expected =
    peer !== undefined
      ? `the session with ${peer} Established`
      : count !== undefined
        ? `${plural(count, 'session')} Established`
        : 'every configured session Established (at least one)';
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!isObject(json.value)) return failed(expected, 'the output is not a map of address families');
  // One entry per address family (ipv4Unicast, ipv6Unicast, …), each with its peers; a peer counts once.
  const states = new Map<string, string>();
  for (const family of Object.values(json.value)) {
    if (!isObject(family) || !isObject(family.peers)) continue;
    for (const [address, details] of Object.entries(family.peers)) {
      const state = isObject(details) ? (text(details.state) ?? 'unknown') : 'unknown';
      if (states.get(address) !== 'Established') states.set(address, state);
    }
  }
  if (states.size === 0) return failed(expected, 'no BGP sessions in the output (is BGP configured?)');
  const established = [...states.values()].filter((s) => s === 'Established').length;
  const actual = `${established} of ${plural(states.size, 'session')} Established: ${[...states].map(([a, s]) => `${a} ${s}`).join(', ')}`;
  let passed: boolean;
  if (peer !== undefined) passed = states.get(peer) === 'Established';
  else if (count !== undefined) passed = established === count;
  else passed = established === states.size;
  return { passed, expected, actual };
}

// ------------------------------------------------------------------ routes

function routeExpected(settings: CheckSettings): string {
  const protocol = settings.protocol === undefined ? '' : ` by ${String(settings.protocol)}`;
  const via = settings.nexthop === undefined ? '' : ` via ${String(settings.nexthop)}`;
  return `a route to ${String(settings.prefix)}${protocol}${via}`;
}

/** FRR `show ip route PREFIX json`: the selected route for exactly that prefix. */
export function frrRouteVerdict(output: string, settings: CheckSettings): Verdict {
  const expected = routeExpected(settings);
  const prefix = String(settings.prefix);
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!isObject(json.value)) return failed(expected, 'the output is not a map of prefixes');
  const wanted = prefix === 'default' ? ['0.0.0.0/0', '::/0'] : [prefix];
  const entries = wanted.flatMap((p) =>
    Array.isArray((json.value as Record<string, unknown>)[p]) ? (json.value as Record<string, unknown[]>)[p] : [],
  );
  if (entries.length === 0) return failed(expected, `no route to ${prefix}`);
  const described: string[] = [];
  let passed = false;
  for (const entry of entries) {
    if (!isObject(entry)) return failed(expected, `a route to ${prefix} is not a map in the output`);
    const protocol = text(entry.protocol) ?? 'unknown';
    const hops = Array.isArray(entry.nexthops) ? entry.nexthops.filter(isObject) : [];
    const via = hops.map((h) => text(h.ip) ?? text(h.interfaceName) ?? '?');
    const selected = entry.selected === true;
    described.push(`${protocol}${selected ? ' (selected)' : ''} via ${via.join(', ') || 'nothing'}`);
    if (!selected) continue;
    if (settings.protocol !== undefined && protocol !== settings.protocol) continue;
    if (settings.nexthop !== undefined && !hops.some((h) => h.ip === settings.nexthop)) continue;
    passed = true;
  }
  return { passed, expected, actual: `routes to ${prefix}: ${described.join('; ')}` };
}

/** Linux `ip -j route show PREFIX`: a route for exactly that prefix (`proto` is "boot" when ip omits it). */
export function linuxRouteVerdict(output: string, settings: CheckSettings): Verdict {
  const expected = routeExpected(settings);
  const prefix = String(settings.prefix);
  const json = readJson(output);
  if (!json.ok) return failed(expected, json.why);
  if (!Array.isArray(json.value)) return failed(expected, 'the output of ip -j is not a list of routes');
  const described: string[] = [];
  let passed = false;
  for (const route of json.value) {
    if (!isObject(route)) return failed(expected, 'a route is not a map in the output');
    const dst = text(route.dst) ?? '';
    // ip prints a host route without its /32.
    if (dst !== prefix && `${dst}/32` !== prefix && !(prefix === '0.0.0.0/0' && dst === 'default')) continue;
    const protocol = text(route.protocol) ?? 'boot';
    const gateway = text(route.gateway);
    described.push(`${protocol} via ${gateway ?? text(route.dev) ?? '?'}`);
    if (settings.protocol !== undefined && protocol !== settings.protocol) continue;
    if (settings.nexthop !== undefined && gateway !== settings.nexthop) continue;
    passed = true;
  }
  if (described.length === 0) return failed(expected, `no route to ${prefix}`);
  return { passed, expected, actual: `routes to ${prefix}: ${described.join('; ')}` };
}

// ------------------------------------------------------------------ command

export function commandVerdict(output: string, settings: CheckSettings): Verdict {
  const wants: string[] = [];
  const shows: string[] = [];
  let passed = true;
  if (settings.contains !== undefined) {
    const needle = String(settings.contains);
    const has = output.includes(needle);
    wants.push(`contains "${needle}"`);
    shows.push(has ? `contains "${needle}"` : `does not contain "${needle}"`);
    passed &&= has;
  }
  if (settings['not-contains'] !== undefined) {
    const needle = String(settings['not-contains']);
    const has = output.includes(needle);
    wants.push(`does not contain "${needle}"`);
    shows.push(has ? `contains "${needle}"` : `does not contain "${needle}"`);
    passed &&= !has;
  }
  if (settings.matches !== undefined) {
    const source = String(settings.matches);
    let pattern: RegExp;
    try {
      pattern = new RegExp(source);
    } catch (error) {
      return failed(
        `a line matching /${source}/`,
        `the pattern does not compile: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const lines = output.split(/\r?\n/).filter((line) => pattern.test(line)).length;
    const count = settings.count === undefined ? undefined : Number(settings.count);
    wants.push(count === undefined ? `a line matching /${source}/` : `${plural(count, 'line')} matching /${source}/`);
    shows.push(`${plural(lines, 'line')} matching`);
    passed &&= count === undefined ? lines > 0 : lines === count;
  }
  if (wants.length === 0) return failed('an expectation (contains, not-contains or matches)', 'none was written');
  return { passed, expected: `the output ${wants.join(' and ')}`, actual: `the output ${shows.join(' and ')}` };
}
