/**
 * The fake EVE-NG server's node templates, written the way EVE-NG's template
 * YAML files describe them (`html/templates/intel/*.yml`): type, description,
 * defaults, `eth_format` / `eth_name`, and the images installed under
 * /opt/unetlab/addons. A template with no images is listed as `<desc>.missing`.
 * Interface ids and names are computed here, server-side, as EVE-NG's
 * `Node::setEthernets` (html/includes/__node.php, 6.2.0-4) does: its
 * per-template cases (IOL port groups, vMX, XRv 9K, vEOS, NX-OSv 9K, ASAv,
 * XRv) before the eth_format grammar. This is an independent reading, not the
 * agent's.
 */

export interface FakeTemplate {
  type: 'qemu' | 'iol' | 'vpcs';
  description: string;
  /** Installed images (folder names); none means the template is not provisioned. */
  images: string[];
  cpu: number;
  ram: number;
  ethernet: number;
  icon: string;
  console: string;
  consoles: string[];
  eth_format: string;
  eth_name?: string[];
  /** EVE-NG's `$node_config` has a config script for it (else a config read answers 200 + fail, 60058). */
  configScript: boolean;
  /** First line of `show version` on a running node (what the fake device prints). */
  banner: string;
  prompt: 'ios' | 'linux' | 'vpcs';
}

export const FAKE_TEMPLATES: Record<string, FakeTemplate> = {
  vios: {
    type: 'qemu',
    description: 'Cisco vIOS Router',
    images: ['vios-adventerprisek9-m.SPA.157-3.M3', 'vios-adventerprisek9-m.SPA.159-3.M6'],
    cpu: 1,
    ram: 512,
    ethernet: 4,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Gi0/{0}',
    banner: 'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M6',
    prompt: 'ios',
    configScript: true,
  },
  viosl2: {
    type: 'qemu',
    description: 'Cisco vIOS L2',
    images: ['viosl2-adventerprisek9-m.SSA.high_iron_20190423', 'viosl2-adventerprisek9-m.SSA.high_iron_20200929'],
    cpu: 1,
    ram: 1024,
    ethernet: 8,
    icon: 'Switch.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Gi{0}/{0-4}',
    banner: 'Cisco IOS Software, vios_l2 Software (vios_l2-ADVENTERPRISEK9-M), Experimental Version 15.2',
    prompt: 'ios',
    configScript: true,
  },
  iol: {
    type: 'iol',
    description: 'Cisco IOL',
    images: ['i86bi_Linux-L3-AdvEnterpriseK9-M_157_3_May_2018.bin', 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin'],
    cpu: 1,
    ram: 1024,
    // Port groups of four interfaces.
    ethernet: 2,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet'],
    eth_format: 'e{0}/{0-4}',
    banner: 'Cisco IOS Software, Linux Software (I86BI_LINUX-ADVENTERPRISEK9-M), Version 15.7(3)M2',
    prompt: 'ios',
    configScript: true,
  },
  csr1000vng: {
    type: 'qemu',
    description: 'Cisco CSR 1000V (Denali and Everest)',
    images: ['csr1000vng-universalk9.17.03.04a'],
    cpu: 1,
    ram: 4096,
    ethernet: 4,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Gi{1}',
    banner: 'Cisco IOS XE Software, Version 17.03.04a',
    prompt: 'ios',
    configScript: true,
  },
  veos: {
    type: 'qemu',
    description: 'Arista vEOS',
    images: ['veos-4.28.3M'],
    cpu: 1,
    ram: 2048,
    ethernet: 9,
    icon: 'Switch.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Ethernet{1}',
    eth_name: ['Management1'],
    banner: 'Arista vEOS 4.28.3M',
    prompt: 'ios',
    configScript: true,
  },
  linux: {
    type: 'qemu',
    description: 'Linux',
    images: ['linux-ubuntu-22.04-server'],
    cpu: 1,
    ram: 1024,
    ethernet: 1,
    icon: 'Server.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'e{0}',
    banner: 'Linux 5.15.0-91-generic x86_64',
    prompt: 'linux',
    configScript: false,
  },
  vpcs: {
    type: 'vpcs',
    description: 'Virtual PC (VPCS)',
    images: [],
    cpu: 1,
    ram: 64,
    ethernet: 1,
    icon: 'Desktop.png',
    console: 'telnet',
    consoles: ['telnet'],
    eth_format: 'eth{0}',
    banner: 'VPCS (ver 0.8.1)',
    prompt: 'vpcs',
    configScript: true,
  },
  xrv: {
    type: 'qemu',
    description: 'Cisco XRv',
    images: [],
    cpu: 1,
    ram: 3072,
    ethernet: 4,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet'],
    eth_format: 'Gi0/0/0/{0}',
    banner: 'Cisco IOS XR Software',
    prompt: 'ios',
    configScript: false,
  },
  xrv9k: {
    type: 'qemu',
    description: 'Cisco XRv 9000',
    images: [],
    cpu: 4,
    ram: 16384,
    ethernet: 4,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Gi0/0/0/{0}',
    banner: 'Cisco IOS XR Software',
    prompt: 'ios',
    configScript: false,
  },
  nxosv9k: {
    type: 'qemu',
    description: 'Cisco NX-OSv 9K',
    images: [],
    cpu: 2,
    ram: 8192,
    ethernet: 9,
    icon: 'Switch L3.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Ethernet1/{1}',
    eth_name: ['mgmt0'],
    banner: 'Cisco Nexus Operating System (NX-OS) Software',
    prompt: 'ios',
    configScript: true,
  },
  vmx: {
    type: 'qemu',
    description: 'Juniper vMX (single VM)',
    images: ['vmx-14.1R1.10'],
    cpu: 2,
    ram: 2048,
    ethernet: 6,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet'],
    eth_format: 'em{0}',
    banner: 'JUNOS 14.1R1.10',
    prompt: 'ios',
    configScript: true,
  },
  asav: {
    type: 'qemu',
    description: 'Cisco ASAv',
    images: ['asav-9.18.1'],
    cpu: 1,
    ram: 2048,
    ethernet: 8,
    icon: 'ASA.png',
    console: 'telnet',
    consoles: ['telnet', 'vnc'],
    eth_format: 'Gi0/{0}',
    banner: 'Cisco Adaptive Security Appliance Software Version 9.18(1)',
    prompt: 'ios',
    configScript: true,
  },
};

/** VPCS needs no image: it is always provisioned. */
export function isProvisioned(template: FakeTemplate): boolean {
  return template.type === 'vpcs' || template.images.length > 0;
}

export const FAKE_ICONS = [
  'Router.png',
  'Switch.png',
  'Switch L3.png',
  'Server.png',
  'Desktop.png',
  'Cloud.png',
  'ASA.png',
];

/** Names of the first interfaces of the templates `Node::setEthernets` names itself, then a format. */
const NAMED_BY_EVE: Record<string, { first: string[]; then: (n: number) => string }> = {
  veos: { first: ['Mgmt1'], then: (n) => `Eth${n + 1}` },
  nxosv9k: { first: ['Mgmt0'], then: (n) => `E1/${n + 1}` },
  asav: { first: ['Mgmt0/0'], then: (n) => `Gi0/${n}` },
  xrv: { first: ['Mgmt0/0/CPU0/0'], then: (n) => `Gi0/0/0/${n}` },
  xrv9k: { first: ['Mgmt0/0/CPU0/0', 'Internal use', 'Internal use'], then: (n) => `Gi0/0/0/${n}` },
  vmx: { first: ['em0 / fxp0', 'em1 / Internal use'], then: (n) => `em${n + 2} / ge-0/0/${n}` },
};

/**
 * A node's ethernet interfaces as EVE-NG numbers and names them: IOL has `ethernet` port groups
 * of four, port y of group x being interface x + 16·y named e{x}/{y}; the templates above are
 * named by EVE-NG itself; the others by eth_format (`{n}` counts from n; `{s}/{p-k}` is a slot
 * from s and a port from p, k per slot; `eth_name` entries first; default prefix `e`).
 */
export function eveInterfaces(templateId: string, template: FakeTemplate, ethernet: number): [number, string][] {
  if (template.type === 'iol') {
    const out: [number, string][] = [];
    for (let x = 0; x < ethernet; x++) for (let y = 0; y <= 3; y++) out.push([x + 16 * y, `e${x}/${y}`]);
    return out.sort((a, b) => a[0] - b[0]);
  }
  const named = NAMED_BY_EVE[templateId];
  return Array.from({ length: ethernet }, (_, i): [number, string] => {
    if (named) return [i, named.first[i] ?? named.then(i - named.first.length)];
    return [i, formatName(template, i)];
  });
}

function formatName(template: FakeTemplate, index: number): string {
  const named = template.eth_name ?? [];
  if (index < named.length) return named[index];
  const n = index - named.length;
  const groups = [...template.eth_format.matchAll(/\{(\d+)(?:-(\d+))?\}/g)];
  if (groups.length === 0) return `${template.eth_format || 'e'}${n}`;
  if (groups.length === 1) return template.eth_format.replace(groups[0][0], String(Number(groups[0][1]) + n));
  const [slotGroup, portGroup] = groups;
  const perSlot = Number(portGroup[2] ?? Number.MAX_SAFE_INTEGER);
  const slot = Number(slotGroup[1]) + Math.floor(n / perSlot);
  const port = Number(portGroup[1]) + (n % perSlot);
  return template.eth_format.replace(slotGroup[0], String(slot)).replace(portGroup[0], String(port));
}
