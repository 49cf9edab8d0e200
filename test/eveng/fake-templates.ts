/**
 * The fake EVE-NG server's node templates, written the way EVE-NG's template
 * YAML files describe them (`html/templates/intel/*.yml`): type, description,
 * defaults, `eth_format` / `eth_name`, and the images installed under
 * /opt/unetlab/addons. A template with no images is listed as `<desc>.missing`.
 * Interface names are computed here, server-side, as EVE-NG does: this is an
 * independent reading of the eth_format grammar (not the agent's).
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
  },
  iol: {
    type: 'iol',
    description: 'Cisco IOL',
    images: ['i86bi_Linux-L3-AdvEnterpriseK9-M_157_3_May_2018.bin', 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin'],
    cpu: 1,
    ram: 1024,
    ethernet: 8,
    icon: 'Router.png',
    console: 'telnet',
    consoles: ['telnet'],
    eth_format: 'e{0}/{0-4}',
    banner: 'Cisco IOS Software, Linux Software (I86BI_LINUX-ADVENTERPRISEK9-M), Version 15.7(3)M2',
    prompt: 'ios',
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
  },
};

/** VPCS needs no image: it is always provisioned. */
export function isProvisioned(template: FakeTemplate): boolean {
  return template.type === 'vpcs' || template.images.length > 0;
}

export const FAKE_ICONS = ['Router.png', 'Switch.png', 'Switch L3.png', 'Server.png', 'Desktop.png', 'Cloud.png'];

/**
 * Interface names per EVE-NG's eth_format: `{n}` counts from n; with two
 * groups `{s}/{p-k}` the first is the slot (from s) and the second the port
 * (from p, k per slot). `eth_name` entries come first. Default prefix `e`.
 */
export function interfaceName(template: FakeTemplate, index: number): string {
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
