/**
 * Labs the simulated emulator has before anyone deploys: something to import
 * (campus), a lab locked by its owner, and one whose templates are not
 * provisioned on this server (its nodes cannot start).
 */
import { EmuNodeStatus } from '../backend';
import { findTemplate } from './catalogue';
import type { StoredLab, StoredNetwork, StoredNode } from '../lab-store';

interface NodeSketch {
  name: string;
  template: string;
  image?: string;
  left: number;
  top: number;
  config?: string;
}

type End = [node: string, index: number] | string;

function lab(
  path: string,
  description: string,
  nodes: NodeSketch[],
  networks: Omit<StoredNetwork, 'id' | 'visibility'>[],
  links: [End, End][],
  locked = false,
): StoredLab {
  const stored: StoredLab = {
    path,
    name: path.replace(/^.*\//, '').replace(/\.unl$/, ''),
    description,
    locked,
    nodes: [],
    networks: [],
    nextNodeId: 1,
    nextNetworkId: 1,
  };
  for (const sketch of nodes) {
    const template = findTemplate(sketch.template);
    if (!template) throw new Error(`example lab ${path}: unknown template ${sketch.template}`);
    const node: StoredNode = {
      id: stored.nextNodeId++,
      name: sketch.name,
      template: template.id,
      image: sketch.image ?? template.defaultImage,
      icon: template.defaults.icon,
      cpu: template.defaults.cpu,
      ram: template.defaults.ram,
      ethernet: template.defaults.ethernet,
      console: template.defaults.console,
      left: sketch.left,
      top: sketch.top,
      status: EmuNodeStatus.stopped,
      links: new Array<number>(template.defaults.ethernet).fill(0),
    };
    if (sketch.config) node.config = sketch.config;
    stored.nodes.push(node);
  }
  for (const network of networks) stored.networks.push({ ...network, id: stored.nextNetworkId++, visibility: true });

  const nodeId = (name: string): StoredNode => {
    const node = stored.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`example lab ${path}: unknown node ${name}`);
    return node;
  };
  for (const [a, b] of links) {
    if (typeof a !== 'string' && typeof b !== 'string') {
      const bridge: StoredNetwork = {
        id: stored.nextNetworkId++,
        name: `${a[0]}-${b[0]}`,
        type: 'bridge',
        visibility: false,
        left: 0,
        top: 0,
      };
      stored.networks.push(bridge);
      nodeId(a[0]).links[a[1]] = bridge.id;
      nodeId(b[0]).links[b[1]] = bridge.id;
    } else {
      const [end, networkName] = typeof a === 'string' ? [b as [string, number], a] : [a, b as string];
      const network = stored.networks.find((n) => n.name === networkName);
      if (!network) throw new Error(`example lab ${path}: unknown network ${networkName}`);
      nodeId(end[0]).links[end[1]] = network.id;
    }
  }
  return stored;
}

export function exampleLabs(): StoredLab[] {
  return [
    lab(
      '/examples/campus.unl',
      'Campus: an edge router, two access switches, a server and a PC',
      [
        {
          name: 'edge',
          template: 'vios',
          left: 400,
          top: 100,
          config: 'hostname edge\n!\ninterface Gi0/0\n description to access1\n!\nend',
        },
        { name: 'access1', template: 'viosl2', left: 250, top: 250 },
        {
          name: 'access2',
          template: 'iol',
          image: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
          left: 550,
          top: 250,
        },
        { name: 'server', template: 'linux', left: 250, top: 400 },
        { name: 'pc', template: 'vpcs', left: 550, top: 400 },
      ],
      [{ name: 'internet', type: 'pnet0', left: 400, top: 0 }],
      [
        [
          ['edge', 0],
          ['access1', 0],
        ],
        [
          ['edge', 1],
          ['access2', 0],
        ],
        [
          ['access1', 1],
          ['server', 0],
        ],
        [
          ['access2', 1],
          ['pc', 0],
        ],
        [['edge', 3], 'internet'],
      ],
    ),
    lab(
      '/examples/locked.unl',
      'A lab its owner locked: it can be read, not changed',
      [
        { name: 'r1', template: 'vios', left: 200, top: 200 },
        { name: 'r2', template: 'vios', left: 400, top: 200 },
      ],
      [],
      [
        [
          ['r1', 0],
          ['r2', 0],
        ],
      ],
      true,
    ),
    lab(
      '/examples/dc-fabric.unl',
      'A spine-leaf fabric whose NX-OSv images are not on this server',
      [
        { name: 'spine1', template: 'nxosv9k', image: 'nxosv9k-9.3.9', left: 300, top: 100 },
        { name: 'leaf1', template: 'nxosv9k', image: 'nxosv9k-9.3.9', left: 200, top: 300 },
        { name: 'host1', template: 'linux', left: 200, top: 450 },
      ],
      [],
      [
        [
          ['spine1', 1],
          ['leaf1', 1],
        ],
        [
          ['leaf1', 2],
          ['host1', 0],
        ],
      ],
    ),
  ];
}
