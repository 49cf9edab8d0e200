/**
 * The labs a fresh EVE-NG server holds for the contract suite, defined once
 * for both of the places that make them: the fake server builds them into its
 * state (fake-server.ts), and the harness creates them through the real
 * server's API (harness/example-labs.ts). Templates' interface counts and
 * images come from each side (the fake's templates, the harness's installed
 * images) unless a node names an image of its own.
 */
/** An interface of a node as the server numbers it (IOL: group + 16 × port). */
type End = [node: string, ifid: number];

export interface ExampleNode {
  name: string;
  template: 'vios' | 'viosl2' | 'iol' | 'linux' | 'vpcs' | 'nxosv9k';
  left: number;
  top: number;
  /** An image other than the side's default for the template. */
  image?: string;
}

export interface ExampleLab {
  /** The lab's name; its file is `/examples/<name>.unl`. */
  name: string;
  description: string;
  nodes: ExampleNode[];
  /** Networks by EVE-NG type (`pnet0`: the host's first cloud). */
  networks: { name: string; type: string }[];
  /** A node-to-node link (a hidden bridge `Net-<node>iface_<id>`) or a node on a network. */
  links: [a: End, b: End | string][];
  /** Startup configs by node name, enabled. */
  configs?: Record<string, string>;
  /** Locked by its owner (`PUT …/Lock`). */
  locked?: boolean;
  /** Its templates have no images on the server (the fake lists them `.missing`; the harness cannot add such nodes). */
  templatesMissing?: boolean;
}

export const EXAMPLE_LABS: ExampleLab[] = [
  {
    name: 'campus',
    description: 'Campus: an edge router, two access switches, a server and a PC',
    nodes: [
      { name: 'edge', template: 'vios', left: 400, top: 100 },
      { name: 'access1', template: 'viosl2', left: 250, top: 250 },
      {
        name: 'access2',
        template: 'iol',
        left: 550,
        top: 250,
        image: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
      },
      { name: 'server', template: 'linux', left: 250, top: 400 },
      { name: 'pc', template: 'vpcs', left: 550, top: 400 },
    ],
    networks: [{ name: 'internet', type: 'pnet0' }],
    links: [
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
    configs: { edge: 'hostname edge\n!\ninterface Gi0/0\n description to access1\n!\nend' },
  },
  {
    name: 'locked',
    description: 'A lab its owner locked',
    nodes: [
      { name: 'r1', template: 'vios', left: 200, top: 200 },
      { name: 'r2', template: 'vios', left: 400, top: 200 },
    ],
    networks: [],
    links: [
      [
        ['r1', 0],
        ['r2', 0],
      ],
    ],
    locked: true,
  },
  {
    name: 'dc-fabric',
    description: 'A spine-leaf fabric whose NX-OSv images are not on this server',
    nodes: [
      { name: 'spine1', template: 'nxosv9k', left: 300, top: 100, image: 'nxosv9k-9.3.9' },
      { name: 'leaf1', template: 'nxosv9k', left: 200, top: 300, image: 'nxosv9k-9.3.9' },
      { name: 'host1', template: 'linux', left: 200, top: 450 },
    ],
    networks: [],
    links: [
      [
        ['spine1', 1],
        ['leaf1', 1],
      ],
      [
        ['leaf1', 2],
        ['host1', 0],
      ],
    ],
    templatesMissing: true,
  },
];

/** The hidden bridge EVE-NG's web UI names a node-to-node link after its first end. */
export function linkNetworkName([node, ifid]: End): string {
  return `Net-${node}iface_${ifid}`;
}
