/**
 * The labs the contract suite expects on a fresh emulator, as the fake EVE-NG
 * server (fake-server.ts `fixtureLabs`) and the simulated emulator hold them:
 * `/examples/campus.unl` to import and `/examples/locked.unl`, which its owner
 * locked. On the harness they are made through the server's own API, as a
 * person would in the web UI, so the files are what the server itself writes.
 * UNetLab has no lab lock (EVE-NG added `lock` and `PUT …/Lock`): there the
 * locked lab exists but is not locked, and the seeding says so.
 */
import { IMAGES } from './unetlab-harness';

interface Answer {
  status: number;
  json: { code?: number | string; status?: string; message?: string; data?: unknown };
}

/** A logged-in client of the server's API; fails loudly on any refusal. */
class Api {
  private cookie = '';

  constructor(private readonly url: string) {}

  async send(method: string, path: string, body?: unknown, allowFailure = false): Promise<Answer> {
    const res = await fetch(this.url + path, {
      method,
      headers: { 'Content-Type': 'application/json', ...(this.cookie ? { Cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    const text = await res.text();
    let json: Answer['json'];
    try {
      json = JSON.parse(text) as Answer['json'];
    } catch {
      json = { message: text.slice(0, 300) };
    }
    if (!allowFailure && (res.status >= 300 || json.status === 'fail' || json.status === 'error'))
      throw new Error(`seeding the example labs: ${method} ${path} → ${res.status} ${json.message ?? ''}`);
    return { status: res.status, json };
  }
}

type NodeSpec = {
  name: string;
  template: string;
  type: string;
  image: string;
  /** IOL: port groups of four. */
  ethernet: number;
  left: number;
  top: number;
};
/** Interface ids as the server numbers them (IOL: group + 16 × port). */
type Link = [a: [node: string, ifid: number], b: [node: string, ifid: number] | string];

async function seedLab(
  api: Api,
  name: string,
  description: string,
  nodes: NodeSpec[],
  networks: { name: string; type: string }[],
  links: Link[],
  configs: Record<string, string> = {},
): Promise<string> {
  const lab = `/api/labs/examples/${name}.unl`;
  await api.send('POST', '/api/labs', {
    path: '/examples',
    name,
    version: '1',
    author: 'fixture',
    description,
    body: '',
  });
  // Ids as the server answers them: UNetLab gives the lowest free one in the lab, 6.2 numbers per author.
  const idOf = (answer: Answer, what: string): number => {
    const id = Number((answer.json.data as { id?: unknown } | undefined)?.id);
    if (!Number.isInteger(id)) throw new Error(`seeding the example labs: ${what} answered no id`);
    return id;
  };
  const nodeId = new Map<string, number>();
  for (const node of nodes)
    nodeId.set(node.name, idOf(await api.send('POST', `${lab}/nodes`, { ...node, config: '0', delay: 0 }), node.name));
  const networkId = new Map<string, number>();
  const addNetwork = async (network: { name: string; type: string }, left: number) => {
    networkId.set(
      network.name,
      // Visible at first: EVE-NG's Lab::save drops an empty network with visibility 0 (20033 on the link).
      idOf(await api.send('POST', `${lab}/networks`, { ...network, left, top: 0, visibility: 1 }), network.name),
    );
  };
  for (const network of networks) await addNetwork(network, 400);
  for (const [a, b] of links) {
    const network = typeof b === 'string' ? b : `Net-${a[0]}iface_${a[1]}`;
    if (typeof b !== 'string') await addNetwork({ name: network, type: 'bridge' }, 0);
    for (const [node, ifid] of typeof b === 'string' ? [a] : [a, b])
      await api.send('PUT', `${lab}/nodes/${nodeId.get(node)}/interfaces`, { [ifid]: String(networkId.get(network)) });
    // A node-to-node link's bridge is hidden once both ends hold it, as EVE-NG's own UI does.
    if (typeof b !== 'string') await api.send('PUT', `${lab}/networks/${networkId.get(network)}`, { visibility: 0 });
  }
  for (const [node, config] of Object.entries(configs)) {
    const id = nodeId.get(node) as number;
    await api.send('PUT', `${lab}/configs/${id}`, { id, data: config });
    const spec = nodes.find((n) => n.name === node) as NodeSpec;
    await api.send('PUT', `${lab}/nodes/${id}`, {
      id,
      name: spec.name,
      type: spec.type,
      template: spec.template,
      config: '1',
    });
  }
  return lab;
}

/** Makes the example labs with `account`; `locked` tells whether the server could lock the locked one. */
export async function seedExampleLabs(
  url: string,
  account: { username: string; password: string },
): Promise<{ locked: boolean }> {
  const api = new Api(url);
  await api.send('POST', '/api/auth/login', { ...account, html5: '0' });
  await api.send('POST', '/api/folders', { path: '/', name: 'examples' });
  const qemu = (
    name: string,
    template: keyof typeof IMAGES,
    ethernet: number,
    left: number,
    top: number,
  ): NodeSpec => ({
    name,
    template,
    type: 'qemu',
    image: IMAGES[template],
    ethernet,
    left,
    top,
  });
  await seedLab(
    api,
    'campus',
    'Campus: an edge router, two access switches, a server and a PC',
    [
      qemu('edge', 'vios', 4, 400, 100),
      qemu('access1', 'viosl2', 8, 250, 250),
      { name: 'access2', template: 'iol', type: 'iol', image: IMAGES.iolL2, ethernet: 2, left: 550, top: 250 },
      qemu('server', 'linux', 1, 250, 400),
      { name: 'pc', template: 'vpcs', type: 'vpcs', image: '', ethernet: 1, left: 550, top: 400 },
    ],
    // The fake's internet is pnet0; UNetLab offers a pnetN only where the host has that interface
    // (`listNetworkTypes` scans /sys/devices/virtual/net), which a test machine has not.
    [{ name: 'internet', type: 'bridge' }],
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
    { edge: 'hostname edge\n!\ninterface Gi0/0\n description to access1\n!\nend' },
  );
  const locked = await seedLab(
    api,
    'locked',
    'A lab its owner locked',
    [qemu('r1', 'vios', 4, 200, 200), qemu('r2', 'vios', 4, 400, 200)],
    [],
    [
      [
        ['r1', 0],
        ['r2', 0],
      ],
    ],
  );
  // EVE-NG's lock (Community 2.0.3 and later); UNetLab has no such route.
  await api.send('PUT', `${locked}/Lock`, undefined, true);
  const read = await api.send('GET', locked);
  const lock = (read.json.data as { lock?: unknown } | undefined)?.lock;
  return { locked: lock === 1 || lock === '1' || lock === true };
}
