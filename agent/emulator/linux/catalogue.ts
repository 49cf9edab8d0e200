/**
 * What the Linux emulator offers, derived from the machine it runs on: the
 * installed FRRouting version is the router image and its installed routing
 * daemons are the router's `daemons` attribute; iproute2's version is the
 * host image; the kernel release is the switch image. Icons cannot be asked
 * from the system, so they are the three the templates use.
 */
import type { EmuIcon, EmuNetworkType, EmuTemplate, EmuTemplateAttribute } from '../backend';
import type { LinuxHost } from './system';

/** How a node of a template is realized: FRR in a namespace, a shell in a namespace, or a bridge. */
export type KindName = 'router' | 'host' | 'switch';

export const TEMPLATE_KIND: Readonly<Record<string, KindName>> = { frr: 'router', linux: 'host', switch: 'switch' };

export const ICONS: readonly EmuIcon[] = ['Router.png', 'Server.png', 'Switch.png'].map((id) => ({
  id,
  label: id.replace(/\.png$/, ''),
}));

/** A network is a Linux bridge in the lab's fabric namespace. */
export const NETWORK_TYPES: readonly EmuNetworkType[] = [
  { id: 'bridge', label: 'Linux bridge', icon: 'lan.png', supported: true },
];

export const ETH_FORMAT = 'eth{0}';

function attributes(kind: KindName, image: string, ethernet: number, host: LinuxHost): EmuTemplateAttribute[] {
  const attrs: EmuTemplateAttribute[] = [
    {
      name: 'name',
      label: 'Name/prefix',
      kind: 'input',
      group: 'basic',
      values: [kind === 'router' ? 'R' : kind === 'host' ? 'H' : 'SW'],
    },
    { name: 'image', label: 'Image', kind: 'list', group: 'basic', values: [image] },
    { name: 'icon', label: 'Icon', kind: 'list', group: 'basic', values: ICONS.map((i) => i.id) },
    {
      name: 'ethernet',
      label: 'Ethernets (eth0, eth1, …)',
      kind: 'input',
      group: 'hardware',
      values: [String(ethernet)],
    },
    { name: 'console', label: 'Console', kind: 'list', group: 'basic', values: ['telnet'] },
  ];
  if (kind === 'router') {
    attrs.push(
      {
        name: 'config',
        label: 'Startup configuration (FRR)',
        kind: 'list',
        group: 'basic',
        values: ['Unconfigured', 'Exported'],
      },
      // zebra and staticd always run; the others start when the config has their `router …` section.
      {
        name: 'daemons',
        label: 'Routing daemons',
        kind: 'list',
        group: 'advanced',
        values: ['zebra', 'staticd', ...host.daemons],
      },
    );
  }
  if (kind === 'host')
    attrs.push({ name: 'config', label: 'Startup script (sh)', kind: 'textarea', group: 'basic', values: [] });
  return attrs;
}

export function linuxTemplates(host: LinuxHost): EmuTemplate[] {
  const make = (id: string, description: string, image: string, ethernet: number, icon: string): EmuTemplate => {
    const kind = TEMPLATE_KIND[id];
    return {
      id,
      description,
      type: 'docker',
      provisioned: image !== '',
      configSupported: kind !== 'switch',
      images: image ? [{ id: image, available: true }] : [],
      defaultImage: image,
      attributes: attributes(kind, image, ethernet, host),
      ethFormat: ETH_FORMAT,
      defaults: { cpu: 1, ram: 64, ethernet, icon, console: 'telnet' },
    };
  };
  return [
    make(
      'frr',
      `FRRouting ${host.frrVersion || '(not installed)'} router in a network namespace`,
      host.frrVersion ? `frr-${host.frrVersion}` : '',
      4,
      'Router.png',
    ),
    make(
      'linux',
      'Linux host: a network namespace with a shell and iproute2',
      host.iproute2Version ? `iproute2-${host.iproute2Version}` : '',
      1,
      'Server.png',
    ),
    make(
      'switch',
      'Layer-2 switch: a Linux bridge in its own network namespace',
      `linux-bridge-${host.kernel}`,
      8,
      'Switch.png',
    ),
  ];
}
