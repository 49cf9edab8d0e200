/**
 * What the simulated emulator offers, modelled on an EVE-NG Community install:
 * templates with their images and options, network types and icons. Some
 * templates are not provisioned (no images uploaded) and some images are
 * listed but missing, as on real servers.
 */
import type {
  EmuConsoleType,
  EmuIcon,
  EmuNetworkType,
  EmuTemplate,
  EmuTemplateAttribute,
  EmuTemplateImage,
} from '../backend';

/** How a simulated device's console behaves (the CLI it runs). */
export type DeviceStyle = 'ios' | 'linux' | 'vpcs';

export interface SimulatedTemplate extends EmuTemplate {
  style: DeviceStyle;
  /** First line of `show version` style output, for the simulated CLI. */
  platform: string;
}

export const ICONS: readonly EmuIcon[] = [
  'Router.png',
  'Switch.png',
  'Switch L3.png',
  'Server.png',
  'Firewall.png',
  'Cloud.png',
  'Desktop.png',
  'Laptop.png',
  'AccessPoint.png',
  'Phone.png',
  'MPLS.png',
].map((id) => ({ id, label: id.replace(/\.png$/, '') }));

/** Community edition: NAT clouds (nat0) are a Pro feature, so nat0 is listed but unsupported. */
export const NETWORK_TYPES: readonly EmuNetworkType[] = [
  { id: 'bridge', label: 'Bridge', icon: 'lan.png', supported: true },
  { id: 'ovs', label: 'Open vSwitch', icon: 'lan.png', supported: true },
  { id: 'pnet0', label: 'Management (Cloud0)', icon: 'cloud.png', supported: true },
  ...Array.from({ length: 9 }, (_, i) => ({
    id: `pnet${i + 1}`,
    label: `Cloud${i + 1}`,
    icon: 'cloud.png',
    supported: true,
  })),
  { id: 'nat0', label: 'NAT (Pro edition)', icon: 'cloud.png', supported: false },
];

/**
 * natOnly would mean the emulator offers NAT clouds as the only way out of a
 * lab. The simulated Community edition offers pnet clouds instead.
 */
export const NAT_ONLY = false;

/** A template as the simulated catalogue writes it: the emulator's fields less what it derives (default image, attributes). */
interface TemplateSource extends Omit<EmuTemplate, 'defaultImage' | 'attributes'> {
  consoles?: EmuConsoleType[];
  style: DeviceStyle;
  platform: string;
}

const available = (id: string): EmuTemplateImage => ({ id, available: true });
const missing = (id: string): EmuTemplateImage => ({ id, available: false });

const SOURCES: TemplateSource[] = [
  {
    id: 'vios',
    description: 'Cisco vIOS Router',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [
      missing('vios-adventerprisek9-m.SPA.156-2.T'),
      available('vios-adventerprisek9-m.SPA.157-3.M3'),
      available('vios-adventerprisek9-m.SPA.159-3.M6'),
    ],
    ethFormat: 'Gi0/{0}',
    defaults: { cpu: 1, ram: 512, ethernet: 4, icon: 'Router.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M)',
  },
  {
    id: 'viosl2',
    description: 'Cisco vIOS L2 Switch',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [
      available('viosl2-adventerprisek9-m.SSA.high_iron_20190423'),
      available('viosl2-adventerprisek9-m.SSA.high_iron_20200929'),
    ],
    // Four ports per slot: Gi0/0 … Gi0/3, Gi1/0 … (EVE-NG's `{first-perSlot}` range).
    ethFormat: 'Gi{0}/{0-4}',
    defaults: { cpu: 1, ram: 1024, ethernet: 8, icon: 'Switch.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco IOS Software, vios_l2 Software (vios_l2-ADVENTERPRISEK9-M)',
  },
  {
    id: 'iol',
    description: 'Cisco IOL (IOS on Linux)',
    type: 'iol',
    provisioned: true,
    configSupported: true,
    images: [
      missing('i86bi-linux-l3-adventerprisek9-15.4.1T.bin'),
      available('i86bi_Linux-L3-AdvEnterpriseK9-M_157_3_May_2018.bin'),
      available('i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin'),
    ],
    // IOL groups interfaces in port groups of 4: e0/0 … e0/3, e1/0 …
    ethFormat: 'e{0}/{0-4}',
    defaults: { cpu: 1, ram: 1024, ethernet: 8, icon: 'Router.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco IOS Software, Linux Software (I86BI_LINUX-ADVENTERPRISEK9-M)',
  },
  {
    id: 'csr1000vng',
    description: 'Cisco CSR 1000V (Denali and Everest)',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [available('csr1000vng-universalk9.16.09.05'), available('csr1000vng-universalk9.17.03.04a')],
    ethFormat: 'Gi{1}',
    defaults: { cpu: 1, ram: 4096, ethernet: 4, icon: 'Router.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco IOS XE Software, Virtual XE Software (X86_64_LINUX_IOSD-UNIVERSALK9-M)',
  },
  {
    id: 'veos',
    description: 'Arista vEOS',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [missing('veos-4.25.0F'), available('veos-4.28.3M')],
    ethFormat: 'Ethernet{1}',
    ethName: ['Management1'],
    defaults: { cpu: 1, ram: 2048, ethernet: 9, icon: 'Switch.png', console: 'telnet' },
    style: 'ios',
    platform: 'Arista vEOS',
  },
  {
    id: 'vmx',
    description: 'Juniper vMX VCP',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [available('vmx-vcp-18.2R1.9')],
    ethFormat: 'ge-0/0/{0}',
    defaults: { cpu: 1, ram: 2048, ethernet: 8, icon: 'Router.png', console: 'telnet' },
    style: 'ios',
    platform: 'Juniper Networks vMX, JUNOS 18.2R1.9',
  },
  {
    id: 'xrv9k',
    description: 'Cisco XRv 9000',
    type: 'qemu',
    provisioned: false,
    configSupported: true,
    images: [],
    ethFormat: 'Gi0/0/0/{0}',
    defaults: { cpu: 4, ram: 16384, ethernet: 4, icon: 'Router.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco IOS XR Software, Version 7.2.2',
  },
  {
    id: 'nxosv9k',
    description: 'Cisco NX-OSv 9000',
    type: 'qemu',
    provisioned: false,
    configSupported: true,
    images: [],
    ethFormat: 'Ethernet1/{1}',
    ethName: ['mgmt0'],
    defaults: { cpu: 2, ram: 8192, ethernet: 9, icon: 'Switch L3.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco Nexus Operating System (NX-OS) Software',
  },
  {
    id: 'asav',
    description: 'Cisco ASAv',
    type: 'qemu',
    provisioned: true,
    configSupported: true,
    images: [available('asav-9-16-2')],
    ethFormat: 'Gi0/{0}',
    ethName: ['Management0/0'],
    defaults: { cpu: 1, ram: 2048, ethernet: 8, icon: 'Firewall.png', console: 'telnet' },
    style: 'ios',
    platform: 'Cisco Adaptive Security Appliance Software Version 9.16(2)',
  },
  {
    id: 'linux',
    description: 'Linux',
    type: 'qemu',
    provisioned: true,
    configSupported: false,
    images: [
      missing('linux-debian-10.3.0'),
      available('linux-ubuntu-20.04-server'),
      available('linux-ubuntu-22.04-server'),
    ],
    ethFormat: 'e{0}',
    defaults: { cpu: 1, ram: 1024, ethernet: 1, icon: 'Server.png', console: 'telnet' },
    consoles: ['telnet', 'vnc'],
    style: 'linux',
    platform: 'Ubuntu 22.04 LTS',
  },
  {
    id: 'vpcs',
    description: 'Virtual PC (VPCS)',
    type: 'vpcs',
    provisioned: true,
    configSupported: true,
    images: [],
    ethFormat: 'eth{0}',
    defaults: { cpu: 1, ram: 64, ethernet: 1, icon: 'Desktop.png', console: 'telnet' },
    consoles: ['telnet'],
    style: 'vpcs',
    platform: 'VPCS (ver 0.8.1)',
  },
];

function attributesOf(source: TemplateSource): EmuTemplateAttribute[] {
  const attrs: EmuTemplateAttribute[] = [
    {
      name: 'name',
      label: 'Name/prefix',
      kind: 'input',
      group: 'basic',
      values: [source.id === 'vpcs' ? 'VPC' : source.id.toUpperCase()],
    },
  ];
  if (source.images.length) {
    attrs.push({ name: 'image', label: 'Image', kind: 'list', group: 'basic', values: source.images.map((i) => i.id) });
  }
  attrs.push(
    { name: 'icon', label: 'Icon', kind: 'list', group: 'basic', values: ICONS.map((i) => i.id) },
    { name: 'cpu', label: 'CPU', kind: 'input', group: 'hardware', values: [String(source.defaults.cpu)] },
    { name: 'ram', label: 'RAM (MB)', kind: 'input', group: 'hardware', values: [String(source.defaults.ram)] },
    {
      name: 'ethernet',
      label: 'Ethernets',
      kind: 'input',
      group: 'hardware',
      values: [String(source.defaults.ethernet)],
    },
  );
  if (source.type === 'iol') {
    attrs.push(
      { name: 'nvram', label: 'NVRAM (KB)', kind: 'input', group: 'hardware', values: ['1024'] },
      { name: 'serial', label: 'Serial portgroups (4 int each)', kind: 'input', group: 'hardware', values: ['0'] },
    );
  }
  if (source.type === 'qemu') {
    attrs.push({
      name: 'qemu_nic',
      label: 'QEMU NIC',
      kind: 'list',
      group: 'advanced',
      values: ['virtio-net-pci', 'e1000', 'vmxnet3'],
    });
  }
  attrs.push({
    name: 'console',
    label: 'Console',
    kind: 'list',
    group: 'basic',
    values: source.consoles ?? ['telnet', 'vnc', 'rdp'],
  });
  if (source.configSupported) {
    attrs.push({
      name: 'config',
      label: 'Startup configuration',
      kind: 'list',
      group: 'basic',
      values: ['Unconfigured', 'Exported'],
    });
  }
  attrs.push({ name: 'delay', label: 'Delay (s)', kind: 'input', group: 'advanced', values: ['0'] });
  return attrs;
}

export const TEMPLATES: readonly SimulatedTemplate[] = SOURCES.map((source) => {
  const { consoles: _consoles, ...template } = source;
  return { ...template, attributes: attributesOf(source), defaultImage: lastAvailable(source.images) };
});

export function findTemplate(id: string): SimulatedTemplate | undefined {
  return TEMPLATES.find((t) => t.id === id);
}

/** EVE-NG's default image: the last available entry ('' when the template has none). */
function lastAvailable(images: readonly EmuTemplateImage[]): string {
  const usable = images.filter((i) => i.available);
  return usable.length ? usable[usable.length - 1].id : '';
}
