/**
 * EVE-NG's catalogue mapped onto the agent's: the template list
 * (`{id: "Description"}` with `.missing` for templates without images, or the
 * 6.2 write-up's objects), template details (options with `list` as an object
 * or an array), network types and icons.
 *
 * EVE-NG computes interface names server-side and its API does not return a
 * template's `eth_format`, so names of nodes that do not exist yet come from
 * the formats of EVE-NG's own template files below (the names of existing
 * nodes are always read from the server).
 */
import type {
  EmuConsoleType,
  EmuIcon,
  EmuNetworkType,
  EmuTemplate,
  EmuTemplateAttribute,
  EmuTemplateType,
} from '../backend';
import { entriesOf, num, record, text } from './envelope';

/** Suffixes EVE-NG appends to descriptions: no images installed, or hidden by the admin. */
const MISSING = /\.missing$/;
const HIDDEN = /\.hided$/;

/**
 * Interface names by template id, as EVE-NG's `Node::setEthernets` (html/includes/__node.php,
 * Community 6.2.0-4) names them: its per-template cases come before the template file's
 * eth_format. Where EVE-NG labels an interface with something a document cannot name (vMX's
 * "em0 / fxp0", "em2 / ge-0/0/0"; XRv 9K's two "Internal use"), the name here is the device's.
 * IOL's ids are in interface-ids.ts.
 */
const ETH_FORMATS: Record<string, { ethFormat: string; ethName?: string[] }> = {
  vios: { ethFormat: 'Gi0/{0}' },
  viosl2: { ethFormat: 'Gi{0}/{0-4}' },
  iol: { ethFormat: 'e{0}/{0-4}' },
  csr1000v: { ethFormat: 'Gi{1}' },
  csr1000vng: { ethFormat: 'Gi{1}' },
  c8000v: { ethFormat: 'Gi{1}' },
  cat9kv: { ethFormat: 'Gi1/0/{1}', ethName: ['Gi0/0'] },
  veos: { ethFormat: 'Eth{1}', ethName: ['Mgmt1'] },
  vmx: { ethFormat: 'ge-0/0/{0}', ethName: ['fxp0', 'em1'] },
  vsrxng: { ethFormat: 'ge-0/0/{0}', ethName: ['fxp0'] },
  xrv: { ethFormat: 'Gi0/0/0/{0}', ethName: ['Mgmt0/0/CPU0/0'] },
  xrv9k: { ethFormat: 'Gi0/0/0/{0}', ethName: ['Mgmt0/0/CPU0/0', 'internal1', 'internal2'] },
  nxosv9k: { ethFormat: 'E1/{1}', ethName: ['Mgmt0'] },
  asav: { ethFormat: 'Gi0/{0}', ethName: ['Mgmt0/0'] },
  linux: { ethFormat: 'e{0}' },
  vpcs: { ethFormat: 'eth{0}' },
  docker: { ethFormat: 'eth{0}' },
};
const DEFAULT_ETH_FORMAT = 'e{0}';

const TEMPLATE_TYPES: EmuTemplateType[] = ['qemu', 'iol', 'dynamips', 'vpcs', 'docker'];
const CONSOLE_TYPES: EmuConsoleType[] = ['telnet', 'vnc', 'rdp'];
const BASIC = new Set(['name', 'image', 'icon', 'console', 'config', 'template']);
const HARDWARE = new Set(['cpu', 'ram', 'ethernet', 'serial', 'nvram', 'cpulimit']);
/** Options that identify one node and mean nothing on a template. */
const NOT_ATTRIBUTES = new Set(['uuid', 'firstmac']);

export interface TemplateListing {
  id: string;
  description: string;
  provisioned: boolean;
}

/** `GET /api/list/templates/` → the visible templates, with EVE-NG's provisioned flag. */
export function parseTemplateList(data: unknown): TemplateListing[] {
  const listed: TemplateListing[] = [];
  for (const [key, value] of entriesOf(data)) {
    const object = record(value);
    const id = typeof value === 'object' ? text(object.name ?? object.id, key) : key;
    const description = typeof value === 'object' ? text(object.description, id) : text(value, id);
    if (HIDDEN.test(description)) continue;
    listed.push({ id, description: description.replace(MISSING, ''), provisioned: !MISSING.test(description) });
  }
  return listed;
}

/** The values of an option's `list`: keys of an object, or the items of an array. */
function listValues(list: unknown): string[] {
  if (Array.isArray(list)) return list.map((v) => text(v)).filter(Boolean);
  return Object.keys(record(list));
}

/**
 * `GET /api/list/templates/{id}` → the agent's template (provisioned comes from the list). A
 * template whose detail EVE-NG could not give (`unavailable`: why) is listed as not provisioned.
 */
export function parseTemplateDetail(
  id: string,
  data: unknown,
  listing: TemplateListing | undefined,
  unavailable?: string,
): EmuTemplate {
  const detail = record(data);
  const options = record(detail.options);
  const option = (name: string) => record(options[name]);
  const images = listValues(option('image').list);
  const type = text(detail.type) as EmuTemplateType;
  const consoleValue = text(option('console').value, 'telnet') as EmuConsoleType;
  const attributes: EmuTemplateAttribute[] = [];
  for (const [name, raw] of Object.entries(options)) {
    if (NOT_ATTRIBUTES.has(name)) continue;
    const o = record(raw);
    const kind =
      o.type === 'list' ? 'list' : o.type === 'checkbox' ? 'checkbox' : o.type === 'textarea' ? 'textarea' : 'input';
    const values = kind === 'list' ? listValues(o.list) : o.value === undefined ? [] : [text(o.value)];
    attributes.push({
      name,
      label: text(o.name, name),
      kind,
      group: BASIC.has(name) ? 'basic' : HARDWARE.has(name) ? 'hardware' : 'advanced',
      values,
    });
  }
  const formats = ETH_FORMATS[id] ?? { ethFormat: DEFAULT_ETH_FORMAT };
  return {
    id,
    description: `${listing?.description ?? text(detail.description, id)}${unavailable ? ` (unavailable: ${unavailable})` : ''}`,
    type: TEMPLATE_TYPES.includes(type) ? type : id === 'iol' ? 'iol' : id === 'vpcs' ? 'vpcs' : 'qemu',
    // UNetLab marks no template `.missing`: there, a template without images has an empty image list.
    provisioned:
      !unavailable && (listing?.provisioned ?? true) && (images.length > 0 || !('image' in options) || type === 'vpcs'),
    configSupported: 'config' in options,
    images: images.map((image) => ({ id: image, available: true })),
    defaultImage: text(option('image').value) || (images[images.length - 1] ?? ''),
    attributes,
    ethFormat: formats.ethFormat,
    ...(formats.ethName ? { ethName: formats.ethName } : {}),
    defaults: {
      cpu: num(option('cpu').value, 1),
      ram: num(option('ram').value, 1024),
      ethernet: num(option('ethernet').value, 1),
      icon: text(option('icon').value, 'Router.png'),
      console: CONSOLE_TYPES.includes(consoleValue) ? consoleValue : 'telnet',
    },
  };
}

/** `GET /api/list/networks` → `{bridge: "bridge", pnet0: "Management(Cloud0)", …}` (or a list of ids). */
export function parseNetworkTypes(data: unknown): EmuNetworkType[] {
  const types = entriesOf(data).map(([key, value]) => {
    const id = Array.isArray(data) ? text(value) : key;
    return {
      id,
      label: text(value, id),
      icon: /^(bridge|ovs|internal|private)$/.test(id) ? 'lan.png' : 'cloud.png',
      supported: true,
    };
  });
  // Every EVE-NG accepts a bridge (functions.php `checkNetworkType`), even the 6.2.0-4 copy whose
  // list (`listNetworkTypes`) names only the clouds configured for the user.
  if (!types.some((t) => t.id === 'bridge'))
    types.unshift({ id: 'bridge', label: 'bridge', icon: 'lan.png', supported: true });
  return types;
}

/** `GET /api/icons` → `{file: label}` (bare JSON in newer forks) or a list of file names. */
export function parseIcons(data: unknown): EmuIcon[] {
  return entriesOf(data)
    .map(([key, value]) => {
      const id = Array.isArray(data) ? text(value) : key;
      return { id, label: Array.isArray(data) ? id.replace(/\.(png|svg)$/, '') : text(value, id) };
    })
    .filter((icon) => icon.id);
}
