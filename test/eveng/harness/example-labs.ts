/**
 * The labs the contract suite expects on a fresh emulator (../example-labs.ts,
 * the definition the fake EVE-NG server builds its own from):
 * `/examples/campus.unl` to import and `/examples/locked.unl`, which its owner
 * locked. On the harness they are made through the server's own API, as a
 * person would in the web UI, so the files are what the server itself writes.
 * `/examples/dc-fabric.unl` is not: its NX-OSv 9K has no image on the harness.
 * UNetLab has no lab lock (EVE-NG added `lock` and `PUT …/Lock`): there the
 * locked lab exists but is not locked, and the seeding says so.
 */
import { EXAMPLE_LABS, linkNetworkName, type ExampleLab, type ExampleNode } from '../example-labs';
import { FAKE_TEMPLATES } from '../fake-templates';
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

/** A pnetN cloud on the fake; UNetLab and the harness's 6.2 offer a pnetN only where the host has that interface. */
const SEEDED_NETWORK_TYPE = 'bridge';

async function seedLab(api: Api, example: ExampleLab): Promise<string> {
  const lab = `/api/labs/examples/${example.name}.unl`;
  await api.send('POST', '/api/labs', {
    path: '/examples',
    name: example.name,
    version: '1',
    author: 'fixture',
    description: example.description,
    body: '',
  });
  // Ids as the server gives them (6.2 numbers nodes per author): from the answer, or, where the
  // answer has none (UNetLab's node add), read back by name.
  const idOf = async (answer: Answer, kind: 'nodes' | 'networks', name: string): Promise<number> => {
    const answered = Number((answer.json.data as { id?: unknown } | undefined)?.id);
    if (Number.isInteger(answered)) return answered;
    const listed = (await api.send('GET', `${lab}/${kind}`)).json.data;
    const found = Object.values((listed ?? {}) as Record<string, { id?: unknown; name?: unknown }>).find(
      (item) => item.name === name,
    );
    const id = Number(found?.id);
    if (!Number.isInteger(id)) throw new Error(`seeding the example labs: ${name} is not in ${lab}/${kind}`);
    return id;
  };
  const nodeId = new Map<string, number>();
  const typeOf = (template: ExampleNode['template']) => FAKE_TEMPLATES[template].type;
  for (const node of example.nodes) {
    const spec = {
      name: node.name,
      template: node.template,
      type: typeOf(node.template),
      image: node.image ?? (node.template in IMAGES ? IMAGES[node.template as keyof typeof IMAGES] : ''),
      ethernet: FAKE_TEMPLATES[node.template].ethernet,
      left: node.left,
      top: node.top,
    };
    const added = await api.send('POST', `${lab}/nodes`, { ...spec, config: '0', delay: 0 });
    nodeId.set(node.name, await idOf(added, 'nodes', node.name));
  }
  const networkId = new Map<string, number>();
  const addNetwork = async (network: { name: string; type: string }, left: number) => {
    // Visible at first: EVE-NG's Lab::save drops an empty network with visibility 0 (20033 on the link).
    const added = await api.send('POST', `${lab}/networks`, { ...network, left, top: 0, visibility: 1 });
    networkId.set(network.name, await idOf(added, 'networks', network.name));
  };
  for (const network of example.networks)
    await addNetwork(
      { name: network.name, type: network.type.startsWith('pnet') ? SEEDED_NETWORK_TYPE : network.type },
      400,
    );
  for (const [a, b] of example.links) {
    const network = typeof b === 'string' ? b : linkNetworkName(a);
    if (typeof b !== 'string') await addNetwork({ name: network, type: 'bridge' }, 0);
    for (const [node, ifid] of typeof b === 'string' ? [a] : [a, b])
      await api.send('PUT', `${lab}/nodes/${nodeId.get(node)}/interfaces`, { [ifid]: String(networkId.get(network)) });
    // A node-to-node link's bridge is hidden once both ends hold it, as EVE-NG's own UI does. UNetLab
    // has no visibility (its networks read back without one, and a PUT of it alone answers 500).
    if (typeof b === 'string') continue;
    const bridge = `${lab}/networks/${networkId.get(network)}`;
    const read = (await api.send('GET', bridge)).json.data as Record<string, unknown> | undefined;
    if (read && 'visibility' in read) await api.send('PUT', bridge, { visibility: 0 });
  }
  for (const [name, config] of Object.entries(example.configs ?? {})) {
    const id = nodeId.get(name) as number;
    await api.send('PUT', `${lab}/configs/${id}`, { id, data: config });
    const node = example.nodes.find((n) => n.name === name) as ExampleNode;
    await api.send('PUT', `${lab}/nodes/${id}`, {
      id,
      name,
      type: typeOf(node.template),
      template: node.template,
      config: '1',
    });
  }
  return lab;
}

/**
 * Makes the example labs with `account` (all but those whose templates have no images: the server
 * cannot add such nodes); `locked` tells whether the server could lock the one its owner locked.
 */
export async function seedExampleLabs(
  url: string,
  account: { username: string; password: string },
): Promise<{ locked: boolean }> {
  const api = new Api(url);
  await api.send('POST', '/api/auth/login', { ...account, html5: '0' });
  await api.send('POST', '/api/folders', { path: '/', name: 'examples' });
  let locked = true;
  for (const example of EXAMPLE_LABS.filter((e) => !e.templatesMissing)) {
    const lab = await seedLab(api, example);
    if (!example.locked) continue;
    // EVE-NG's lock (Community 2.0.3 and later); UNetLab has no such route.
    await api.send('PUT', `${lab}/Lock`, undefined, true);
    const lock = ((await api.send('GET', lab)).json.data as { lock?: unknown } | undefined)?.lock;
    locked &&= lock === 1 || lock === '1' || lock === true;
  }
  return { locked };
}
