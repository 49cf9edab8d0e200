/**
 * The checks a lab's `tests:` section may hold, with their settings, and the
 * console families that can run each: one table that the reader, the
 * diagnostics, completion, hover and the runner (common/testing) all read.
 * docs/lab-format.md "Tests" describes the same in prose.
 */

export const CHECK_KINDS = ['ping', 'command', 'ospf-neighbors', 'bgp-sessions', 'route'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/**
 * What a setting holds: a node of the lab; a ping target (a node, `node:interface` or an
 * address); free text; a regular expression; a whole number within limits.
 */
export type ParamType = 'node' | 'target' | 'text' | 'pattern' | 'number';

export interface ParamSpec {
  type: ParamType;
  required?: boolean;
  /** For numbers. */
  min?: number;
  max?: number;
  /** One line for hover and completion. */
  doc: string;
}

export interface CheckSpec {
  /** One sentence for hover and completion. */
  summary: string;
  /** The setting naming the node the check runs on. */
  nodeParam: 'node' | 'from';
  params: Readonly<Record<string, ParamSpec>>;
  example: string;
}

/** The router a router-aware check reads. */
const ROUTER: ParamSpec = { type: 'node', required: true, doc: 'The router.' };

/** A count of what a check finds, from 0 up to `max`. */
function countUpTo(max: number, doc: string): ParamSpec {
  return { type: 'number', min: 0, max, doc };
}

export const CHECKS: Readonly<Record<CheckKind, CheckSpec>> = {
  ping: {
    summary:
      'Pings from a node to a node, an interface (`h2:eth0`) or an address; passes when no more than `loss` percent of the pings are lost.',
    nodeParam: 'from',
    params: {
      from: { type: 'node', required: true, doc: 'The node that pings.' },
      to: {
        type: 'target',
        required: true,
        doc: "What it pings: a node (its first IPv4 address, loopback last), `node:interface` (that interface's first IPv4 address) or an address.",
      },
      count: { type: 'number', min: 1, max: 20, doc: 'How many pings each attempt sends (default 3).' },
      loss: { type: 'number', min: 0, max: 100, doc: 'The loss allowed, in percent (default 0).' },
    },
    example: 'ping: {from: h1, to: h2}',
  },
  command: {
    summary: "Runs a command on a node's console and checks its output.",
    nodeParam: 'node',
    params: {
      node: { type: 'node', required: true, doc: 'The node whose console runs the command.' },
      run: { type: 'text', required: true, doc: 'The command, as typed on the console (one line).' },
      contains: { type: 'text', doc: 'Text the output must contain.' },
      'not-contains': { type: 'text', doc: 'Text the output must not contain.' },
      matches: {
        type: 'pattern',
        doc: 'A regular expression (JavaScript syntax) that at least one line of the output must match.',
      },
      count: countUpTo(100000, 'With `matches`: exactly this many lines must match.'),
    },
    example: 'command: {node: r1, run: show ip route, contains: 10.0.2.0/24}',
  },
  'ospf-neighbors': {
    summary: "Reads a router's OSPF neighbours (FRR: `show ip ospf neighbor json`).",
    nodeParam: 'node',
    params: {
      node: ROUTER,
      count: countUpTo(1000, 'How many neighbours must be in `state` (default: at least one).'),
      state: { type: 'text', doc: 'The neighbour state counted: Full (default), 2-Way, Init, …' },
      interface: { type: 'text', doc: 'Count only the neighbours on this interface of the router.' },
      neighbor: { type: 'text', doc: 'Count only the neighbour with this router ID.' },
    },
    example: 'ospf-neighbors: {node: r2, count: 2}',
  },
  'bgp-sessions': {
    summary: "Reads a router's BGP sessions (FRR: `show bgp summary json`).",
    nodeParam: 'node',
    params: {
      node: ROUTER,
      count: countUpTo(
        10000,
        'How many sessions must be Established (default: every configured session, and at least one).',
      ),
      peer: { type: 'text', doc: 'The session with this peer address must be Established.' },
    },
    example: 'bgp-sessions: {node: r1, peer: 10.0.12.2}',
  },
  route: {
    summary:
      "Looks for a route in a node's routing table (FRR: `show ip route PREFIX json`; Linux: `ip -j route show PREFIX`).",
    nodeParam: 'node',
    params: {
      node: { type: 'node', required: true, doc: 'The router or host.' },
      prefix: { type: 'text', required: true, doc: "The route's prefix, e.g. 10.0.2.0/24 (or `default`)." },
      protocol: {
        type: 'text',
        doc: "The protocol that must have installed it: ospf, bgp, static, connected, kernel, … (Linux: the route's `proto`).",
      },
      nexthop: { type: 'text', doc: 'An address the route must go through.' },
    },
    example: 'route: {node: r1, prefix: 10.0.2.0/24, protocol: ospf}',
  },
};

/** Keys of a test besides its one check. */
export const TEST_KEYS = ['timeout'] as const;

/** Seconds a check retries by default: OSPF with default timers converges within 40 s of a start. */
export const DEFAULT_TEST_TIMEOUT_S = 60;
export const TEST_TIMEOUT_LIMITS = { min: 1, max: 3600 };

/**
 * How a node's console behaves: FRR routers answer vtysh commands, Linux hosts and switches a
 * shell, Cisco-like devices (IOS, IOS XE, NX-OS, EOS, …) their own CLI. Read from the template.
 */
export type ConsoleFamily = 'frr' | 'linux' | 'cisco';

const FAMILY_OF_TEMPLATE: Readonly<Record<string, ConsoleFamily>> = {
  frr: 'frr',
  linux: 'linux',
  switch: 'linux',
  vios: 'cisco',
  viosl2: 'cisco',
  iol: 'cisco',
  csr1000v: 'cisco',
  csr1000vng: 'cisco',
  c8000v: 'cisco',
  cat8000v: 'cisco',
  cat9kv: 'cisco',
  xrv: 'cisco',
  xrv9k: 'cisco',
  nxosv9k: 'cisco',
  titanium: 'cisco',
  veos: 'cisco',
};

export function consoleFamilyOf(template: string | undefined): ConsoleFamily | undefined {
  return template === undefined ? undefined : FAMILY_OF_TEMPLATE[template.toLowerCase()];
}

/** The checks each family runs; docs/lab-format.md says why the others cannot. */
export const FAMILY_CHECKS: Readonly<Record<ConsoleFamily, readonly CheckKind[]>> = {
  frr: ['command', 'ospf-neighbors', 'bgp-sessions', 'route'],
  linux: ['ping', 'command', 'route'],
  cisco: ['command'],
};

/** Families whose nodes the runner can ask for their addresses (a ping `to:` a node or interface). */
export const ADDRESS_FAMILIES: readonly ConsoleFamily[] = ['frr', 'linux'];

export const FAMILY_NAMES: Readonly<Record<ConsoleFamily, string>> = {
  frr: "FRR's vtysh",
  linux: 'a Linux shell',
  cisco: 'a Cisco-like CLI',
};

export function isCheckKind(key: string): key is CheckKind {
  return (CHECK_KINDS as readonly string[]).includes(key);
}

/** What a ping's `to:` names: an address, or a node with an optional interface (`h2:eth0`). */
export type PingTarget = { address: string } | { node: string; interface?: string };

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const IPV6 = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/;

export function isAddress(text: string): boolean {
  return IPV4.test(text) || IPV6.test(text);
}

export function parsePingTarget(text: string): PingTarget {
  if (isAddress(text)) return { address: text };
  const colon = text.indexOf(':');
  if (colon < 0) return { node: text };
  return { node: text.slice(0, colon), interface: text.slice(colon + 1) };
}
