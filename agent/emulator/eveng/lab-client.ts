/**
 * The agent's emulator calls made with EVE-NG's REST API: labs as `.unl`
 * paths, nodes, networks and interface connections. EVE-NG has no link
 * object: a node-to-node link is a hidden bridge network with two members, so
 * when one end goes (node deleted, interface moved, interfaces dropped) the
 * hidden network is deleted too, as the EVE-NG web UI does.
 */
import type { Duplex } from 'node:stream';
import {
  EmuError,
  type EmuInterface,
  type EmuLab,
  type EmuNetwork,
  type EmuNetworkSpec,
  type EmuNode,
  type EmuNodeSpec,
  EmuNodeStatus,
  type EmulatorClient,
  type EmuStatus,
  type EmuTemplate,
  type EmuTemplateType,
  type EmuConsoleType,
} from '../backend';
import type { EveCatalogue } from './catalogue-cache';
import { openTelnet, reachableConsoleUrl } from './console';
import { entriesOf, flag, itemsOf, num, record, text } from './envelope';
import type { EveHttpSession } from './http-session';

/** What every agent session shares: the one EVE-NG login, the catalogue cache, the server's facts. */
export interface EveServer {
  http: EveHttpSession;
  catalogue: EveCatalogue;
  /** The host the agent reaches the API at (console URLs are rewritten to it). */
  apiHost: string;
  baseUrl: string;
  /** Pro has the stop mode path and per-user lab trees; known after the first status call. */
  edition(): Promise<'Community' | 'Pro'>;
}

/** `/api/labs/<folder…>/<name>.unl`, each segment URL-encoded. */
export function labApiPath(path: string, sub = ''): string {
  return `/api/labs${path.split('/').map(encodeURIComponent).join('/')}${sub}`;
}

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.unl$/, '');
}

export function parseInterfaces(data: unknown): EmuInterface[] {
  return entriesOf(record(data).ethernet)
    .map(([key, value]) => {
      const item = record(value);
      return { index: num(key), name: text(item.name, `e${key}`), networkId: num(item.network_id) };
    })
    .sort((a, b) => a.index - b.index);
}

export function parseNode(
  raw: Record<string, unknown>,
  interfaces: EmuInterface[],
  config: string | undefined,
  apiHost: string,
): EmuNode {
  const status = Math.min(3, Math.max(0, Math.trunc(num(raw.status)))) as EmuNodeStatus;
  const consoleType = text(raw.console, 'telnet');
  return {
    id: num(raw.id),
    name: text(raw.name),
    template: text(raw.template),
    image: text(raw.image),
    icon: text(raw.icon),
    cpu: num(raw.cpu, 1),
    ram: num(raw.ram),
    ethernet: num(raw.ethernet, interfaces.length),
    console: (['telnet', 'vnc', 'rdp'].includes(consoleType) ? consoleType : 'telnet') as EmuConsoleType,
    ...(config !== undefined ? { config } : {}),
    left: num(raw.left),
    top: num(raw.top),
    type: text(raw.type, 'qemu') as EmuTemplateType,
    status,
    url: reachableConsoleUrl(text(raw.url), apiHost) ?? text(raw.url),
    interfaces,
    // A node boots from its startup config only with a fresh disk (decisions §4 "Node configs").
    configEffect: 'wipe',
  };
}

export function parseNetwork(raw: Record<string, unknown>): EmuNetwork {
  return {
    id: num(raw.id),
    name: text(raw.name),
    type: text(raw.type, 'bridge'),
    // Older builds omit visibility: a network is then shown.
    visibility: raw.visibility === undefined ? true : flag(raw.visibility),
    left: num(raw.left),
    top: num(raw.top),
  };
}

/** A node's startup configuration flag: 1 / "1" / "Saved" mean "boot from the saved config". */
function configEnabled(value: unknown): boolean {
  return flag(value) || value === 'Saved';
}

export class EveLabClient implements EmulatorClient {
  constructor(private readonly server: EveServer) {}

  private get http(): EveHttpSession {
    return this.server.http;
  }

  async status(): Promise<EmuStatus> {
    const answer = await this.http.call('GET', '/api/status');
    const version = text(record(answer.data).version, 'unknown');
    return { version, edition: /pro/i.test(version) ? 'Pro' : 'Community', baseUrl: this.server.baseUrl };
  }

  listTemplates(): Promise<EmuTemplate[]> {
    return this.server.catalogue.templates();
  }

  getTemplate(id: string): Promise<EmuTemplate | undefined> {
    return this.server.catalogue.template(id);
  }

  listNetworkTypes() {
    return this.server.catalogue.networkTypes();
  }

  listIcons() {
    return this.server.catalogue.icons();
  }

  async getLab(path: string): Promise<EmuLab | undefined> {
    let lab;
    try {
      lab = record((await this.http.call('GET', labApiPath(path))).data);
    } catch (e) {
      if (e instanceof EmuError && e.kind === 'not_found') return undefined;
      throw e;
    }
    const [nodesAnswer, networksAnswer] = await Promise.all([
      this.http.call('GET', labApiPath(path, '/nodes')),
      this.http.call('GET', labApiPath(path, '/networks')),
    ]);
    const nodes = await Promise.all(itemsOf(nodesAnswer.data).map((raw) => this.readNode(path, raw)));
    return {
      path,
      name: text(lab.name, baseName(path)),
      description: text(lab.description),
      locked: flag(lab.lock),
      nodes: nodes.sort((a, b) => a.id - b.id),
      networks: itemsOf(networksAnswer.data)
        .map(parseNetwork)
        .sort((a, b) => a.id - b.id),
    };
  }

  private async readNode(path: string, raw: Record<string, unknown>): Promise<EmuNode> {
    const id = num(raw.id);
    const [interfaces, config] = await Promise.all([
      this.interfaces(path, id),
      configEnabled(raw.config)
        ? this.http.call('GET', labApiPath(path, `/configs/${id}`)).then((a) => text(record(a.data).data))
        : Promise.resolve(undefined),
    ]);
    return parseNode(raw, interfaces, config, this.server.apiHost);
  }

  private async interfaces(path: string, nodeId: number): Promise<EmuInterface[]> {
    return parseInterfaces((await this.http.call('GET', labApiPath(path, `/nodes/${nodeId}/interfaces`))).data);
  }

  private async node(path: string, id: number): Promise<EmuNode> {
    const raw = record((await this.http.call('GET', labApiPath(path, `/nodes/${id}`))).data);
    return this.readNode(path, { id, ...raw });
  }

  /** Creates the lab's folders that do not exist yet (EVE-NG creates a lab only in an existing folder). */
  private async ensureFolder(folder: string): Promise<void> {
    if (folder === '/') return;
    try {
      await this.http.call('GET', `/api/folders${folder.split('/').map(encodeURIComponent).join('/')}`);
      return;
    } catch (e) {
      if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
    }
    const parent = folderOf(folder);
    await this.ensureFolder(parent);
    try {
      await this.http.call('POST', '/api/folders', { path: parent, name: baseName(folder) });
    } catch (e) {
      // Another request created it meanwhile.
      if (!(e instanceof EmuError && e.kind === 'exists')) throw e;
    }
  }

  async createLab(path: string, meta: { name: string; description: string }): Promise<void> {
    await this.ensureFolder(folderOf(path));
    // EVE-NG names the file after `name`; the lab's own name is set afterwards when it differs.
    await this.http.call('POST', '/api/labs', {
      path: folderOf(path),
      name: baseName(path),
      version: '1',
      author: 'lab-agent',
      description: meta.description,
      body: '',
    });
    if (meta.name !== baseName(path)) await this.editLab(path, { name: meta.name });
  }

  async editLab(path: string, meta: { name?: string; description?: string }): Promise<void> {
    // One field per request, as EVE-NG's own clients do.
    if (meta.name !== undefined) await this.http.call('PUT', labApiPath(path), { name: meta.name });
    if (meta.description !== undefined)
      await this.http.call('PUT', labApiPath(path), { description: meta.description });
  }

  /** Copies a lab object by object: works on every edition, and the copy's nodes start stopped and wiped. */
  async cloneLab(source: string, destination: string): Promise<void> {
    const original = await this.getLab(source);
    if (!original) throw new EmuError('not_found', `Lab ${source} does not exist.`);
    await this.createLab(destination, { name: baseName(destination), description: original.description });
    const networkIds = new Map<number, number>();
    for (const network of original.networks) {
      const { id: _id, ...spec } = network;
      networkIds.set(network.id, (await this.addNetwork(destination, spec)).id);
    }
    for (const node of original.nodes) {
      const { id: _id, type: _type, status: _status, url: _url, interfaces, ...spec } = node;
      const copy = await this.addNode(destination, spec);
      for (const i of interfaces) {
        const networkId = networkIds.get(i.networkId);
        if (networkId !== undefined) await this.connect(destination, copy.id, i.index, networkId);
      }
    }
  }

  async deleteLab(path: string): Promise<void> {
    await this.http.call('DELETE', labApiPath(path));
  }

  async addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode> {
    const template = await this.getTemplate(spec.template);
    if (!template) throw new EmuError('refused', `Template ${spec.template} does not exist on this EVE-NG server.`);
    const answer = await this.http.call('POST', labApiPath(path, '/nodes'), {
      type: template.type,
      template: spec.template,
      image: spec.image,
      name: spec.name,
      icon: spec.icon,
      cpu: spec.cpu,
      ram: spec.ram,
      ethernet: spec.ethernet,
      console: spec.console,
      config: spec.config !== undefined ? 'Saved' : 'Unconfigured',
      delay: 0,
      left: spec.left,
      top: spec.top,
    });
    const id = num(record(answer.data).id, NaN);
    // Older builds answer without the new id: find the node by name (the newest one of that name).
    const nodeId = Number.isFinite(id) ? id : await this.findNodeId(path, spec.name);
    if (spec.config !== undefined) await this.writeConfig(path, nodeId, spec.config);
    return this.node(path, nodeId);
  }

  private async findNodeId(path: string, name: string): Promise<number> {
    const nodes = itemsOf((await this.http.call('GET', labApiPath(path, '/nodes'))).data);
    const ids = nodes.filter((n) => text(n.name) === name).map((n) => num(n.id));
    if (!ids.length) throw new EmuError('refused', `EVE-NG did not create node ${name} in ${path}.`);
    return Math.max(...ids);
  }

  private async writeConfig(path: string, id: number, config: string): Promise<void> {
    await this.http.call('PUT', labApiPath(path, `/configs/${id}`), { id, data: config });
  }

  async editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void> {
    const { config, ...fields } = changes;
    const body: Record<string, unknown> = { id };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
    if ('config' in changes) {
      if (config !== undefined) await this.writeConfig(path, id, config);
      body.config = config !== undefined ? '1' : '0';
    }
    let dropped: EmuInterface[] = [];
    if (changes.ethernet !== undefined) {
      const ethernet = changes.ethernet;
      dropped = (await this.interfaces(path, id)).filter((i) => i.index >= ethernet && i.networkId);
    }
    await this.http.call('PUT', labApiPath(path, `/nodes/${id}`), body);
    await this.deleteHiddenNetworks(
      path,
      dropped.map((i) => i.networkId),
    );
  }

  async deleteNode(path: string, id: number): Promise<void> {
    const attached = (await this.interfaces(path, id)).map((i) => i.networkId).filter(Boolean);
    await this.http.call('DELETE', labApiPath(path, `/nodes/${id}`));
    await this.deleteHiddenNetworks(path, attached);
  }

  /** Deletes the hidden (node-to-node link) networks among `ids`: the link they carried lost an end. */
  private async deleteHiddenNetworks(path: string, ids: number[]): Promise<void> {
    if (!ids.length) return;
    const networks = itemsOf((await this.http.call('GET', labApiPath(path, '/networks'))).data).map(parseNetwork);
    for (const id of new Set(ids)) {
      if (networks.some((n) => n.id === id && !n.visibility)) {
        try {
          await this.deleteNetwork(path, id);
        } catch (e) {
          if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
        }
      }
    }
  }

  async addNetwork(path: string, spec: EmuNetworkSpec): Promise<EmuNetwork> {
    const answer = await this.http.call('POST', labApiPath(path, '/networks'), {
      type: spec.type,
      name: spec.name,
      left: spec.left,
      top: spec.top,
      visibility: spec.visibility ? 1 : 0,
    });
    let id = num(record(answer.data).id, NaN);
    if (!Number.isFinite(id)) {
      const networks = itemsOf((await this.http.call('GET', labApiPath(path, '/networks'))).data).map(parseNetwork);
      id = Math.max(...networks.filter((n) => n.name === spec.name).map((n) => n.id));
    }
    return { ...spec, id };
  }

  async editNetwork(path: string, id: number, changes: Partial<EmuNetworkSpec>): Promise<void> {
    const body: Record<string, unknown> = { id };
    for (const [key, value] of Object.entries(changes))
      if (value !== undefined) body[key] = key === 'visibility' ? (value ? 1 : 0) : value;
    await this.http.call('PUT', labApiPath(path, `/networks/${id}`), body);
  }

  async deleteNetwork(path: string, id: number): Promise<void> {
    await this.http.call('DELETE', labApiPath(path, `/networks/${id}`));
  }

  async connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    const previous = (await this.interfaces(path, nodeId)).find((i) => i.index === index);
    if (!previous) throw new EmuError('refused', `Node ${nodeId} has no interface ${index}.`);
    await this.connect(path, nodeId, index, networkId);
    if (previous.networkId && previous.networkId !== networkId)
      await this.deleteHiddenNetworks(path, [previous.networkId]);
  }

  private async connect(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    await this.http.call('PUT', labApiPath(path, `/nodes/${nodeId}/interfaces`), {
      [String(index)]: networkId ? String(networkId) : '',
    });
  }

  async startNode(path: string, id: number): Promise<void> {
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/start`));
  }

  async stopNode(path: string, id: number, stopmode: number): Promise<void> {
    // Pro takes the stop mode as a path segment; Community's router has no such route.
    const pro = (await this.server.edition()) === 'Pro';
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/stop${pro ? `/stopmode=${stopmode}` : ''}`));
  }

  async wipeNode(path: string, id: number): Promise<void> {
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/wipe`));
  }

  async openConsole(path: string, id: number): Promise<Duplex> {
    const raw = record((await this.http.call('GET', labApiPath(path, `/nodes/${id}`))).data);
    const node = parseNode({ id, ...raw }, [], undefined, this.server.apiHost);
    if (node.status !== EmuNodeStatus.starting && node.status !== EmuNodeStatus.running)
      throw new EmuError('refused', `${node.name} is not running, so its console does not answer.`);
    return openTelnet(node.url, node.name);
  }

  labUrl(path: string): string {
    return `${this.server.baseUrl}/legacy/labs${path.split('/').map(encodeURIComponent).join('/')}/topology`;
  }
}
