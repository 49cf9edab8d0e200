/**
 * The agent's emulator calls made with EVE-NG's REST API: labs as `.unl`
 * paths, nodes, networks and interface connections, written the way EVE-NG's
 * own server code (html/includes/__lab.php, __node.php, api_*.php) takes them:
 *
 * - a lab's name is its file name (`Lab::save()` writes `<name>.unl`), so a lab
 *   is created under the name its path ends with and never renamed by PUT;
 * - a node edit is a whole node (`Node::edit` refuses a request that changes
 *   none of name/position/console/image/config, 20026, and takes an image only
 *   with its type and template);
 * - a node-to-node link is a bridge network created visible, both ends
 *   attached, then hidden: `Lab::save()` drops a hidden network that has no
 *   member yet, so attaching to it would fail with 20033;
 * - a node add answers 201 even when it failed (`apiAddLabNode`:
 *   `else if ($rc = 20046)`), so the node is read back;
 * - a startup config is enabled with `config: 1`, and reading the config of a
 *   template without a config script answers HTTP 200 with status fail (60058):
 *   that node has no config;
 * - IOL counts interfaces in port groups (interface-ids.ts).
 *
 * When one end of a node-to-node link goes (node deleted, interface moved,
 * interfaces dropped) the hidden network is deleted too, as the web UI does.
 */
import type { Duplex } from 'node:stream';
import type { EthFormat } from '../../../common/lab/rules/eth-format';
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
import { entriesOf, flag, itemsOf, messageId, num, record, text } from './envelope';
import type { EveHttpSession } from './http-session';
import { agentEthernet, agentInterfaceIndex, eveEthernet, eveInterfaceId, namingOf } from './interface-ids';
import type { NodePod } from './node-pod';

/** What every agent session shares: the one EVE-NG login, the catalogue cache, the server's facts. */
export interface EveServer {
  http: EveHttpSession;
  catalogue: EveCatalogue;
  /** The host the agent reaches the API at (console URLs are rewritten to it). */
  apiHost: string;
  baseUrl: string;
  /** `GET /api/status`'s version, asked once (that handler runs `top`, seconds per call). */
  version(): Promise<string>;
  /** Pro has the stop mode path, config sets and per-user lab trees. */
  edition(): Promise<'Community' | 'Pro'>;
  /**
   * Bridges made for a node-to-node link, still visible until both ends are attached:
   * `<lab>#<network id>` → ends attached so far.
   */
  linksBeingMade: Map<string, number>;
  /** The server keeps network visibility (EVE-NG) or not (UNetLab); unknown until a network is read. */
  networkVisibility?: boolean;
  /** Which lab runs each node id of the service account's one pod. */
  pod: NodePod;
  /**
   * Per lab, the id the next node add most likely gets, for servers that answer an add without the
   * new id (UNetLab, which gives the lowest free id: `Lab::getFreeNodeId`): 1 in a lab this backend
   * created, the lowest free id of a lab it read, the id after the node it added last.
   */
  nextNodeIds: Map<string, number>;
}

/** EVE-NG's "Startup config not available": the template has no config script. */
const NO_CONFIG_SCRIPT = 60058;
/** The config set Pro reads and writes when none is chosen (evengsdk's default). */
const PRO_CONFIG_SET = 'default';
/** Characters EVE-NG allows in lab and folder names (functions.php `checkLabFilename`, `checkFolder`). */
const EVE_NAME = /^[A-Za-z0-9_\s-]+$/;

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

/** Refuses a lab path EVE-NG would refuse, saying which segment and why. */
function checkEvePath(path: string): void {
  for (const segment of path
    .replace(/\.unl$/, '')
    .split('/')
    .filter(Boolean))
    if (!EVE_NAME.test(segment))
      throw new EmuError(
        'refused',
        `EVE-NG allows only letters, digits, "_", "-" and spaces in lab and folder names; "${segment}" in ${path} has ${JSON.stringify(segment.replace(/[A-Za-z0-9_\s-]/g, '').slice(0, 5))}.`,
      );
}

/** EVE-NG stores descriptions through htmlspecialchars(): read them back as written. */
function unescapeHtml(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#0?39|apos);/g, (_, entity: string) =>
    entity === 'amp' ? '&' : entity === 'lt' ? '<' : entity === 'gt' ? '>' : entity === 'quot' ? '"' : "'",
  );
}

/** A node's startup-config flag: "0"/0/"" mean none; "1" or a config template name mean boot from it. */
function configEnabled(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && !(num(value, 1) === 0) && value !== false;
}

export function parseInterfaces(data: unknown, naming?: EthFormat): EmuInterface[] {
  const answer = record(data);
  const type = text(answer.sort, 'qemu');
  return entriesOf(answer.ethernet)
    .map(([key, value]) => {
      const item = record(value);
      const index = agentInterfaceIndex(type, num(key));
      return { index, name: naming?.nameAt(index) ?? text(item.name, `e${key}`), networkId: num(item.network_id) };
    })
    .sort((a, b) => a.index - b.index);
}

export function parseNode(
  raw: Record<string, unknown>,
  interfaces: EmuInterface[],
  config: string | undefined,
  apiHost: string,
): EmuNode {
  // EVE-NG: 0 stopped, 1 stopped and locked (starting), 2 running, 3 running and locked (config being injected).
  const eveStatus = Math.min(3, Math.max(0, Math.trunc(num(raw.status))));
  const status = (eveStatus === 3 ? EmuNodeStatus.running : eveStatus) as EmuNodeStatus;
  const consoleType = text(raw.console, 'telnet');
  const type = text(raw.type, 'qemu');
  const image = text(raw.image);
  return {
    id: num(raw.id),
    name: text(raw.name),
    template: text(raw.template),
    // VPCS nodes have no image; EVE-NG stores "none".
    image: type === 'vpcs' && image === 'none' ? '' : image,
    icon: text(raw.icon),
    cpu: num(raw.cpu, 1),
    ram: num(raw.ram),
    ethernet: raw.ethernet === undefined ? interfaces.length : agentEthernet(type, num(raw.ethernet)),
    console: (['telnet', 'vnc', 'rdp'].includes(consoleType) ? consoleType : 'telnet') as EmuConsoleType,
    ...(config !== undefined ? { config } : {}),
    left: num(raw.left),
    top: num(raw.top),
    type: type as EmuTemplateType,
    status,
    url: reachableConsoleUrl(text(raw.url), apiHost) ?? text(raw.url),
    interfaces,
    // A node boots from its startup config only with a fresh disk (decisions §4 "Node configs").
    configEffect: 'wipe',
  };
}

/**
 * The lab's networks. UNetLab stores no visibility at all: there a bridge carrying exactly the two
 * ends of a link and named after them as the agent names its link bridges (`<a>-<b>`) is the link.
 */
export function parseNetworks(raw: Record<string, unknown>[], nodes: EmuNode[]): EmuNetwork[] {
  const members = new Map<number, string[]>();
  for (const node of nodes)
    for (const i of node.interfaces)
      if (i.networkId) members.set(i.networkId, [...(members.get(i.networkId) ?? []), node.name]);
  return raw
    .map((n) => {
      const id = num(n.id);
      const type = text(n.type, 'bridge');
      const name = text(n.name);
      const ends = members.get(id) ?? [];
      const linkBridge =
        type === 'bridge' &&
        ends.length === 2 &&
        (name === `${ends[0]}-${ends[1]}` || name === `${ends[1]}-${ends[0]}`);
      return {
        id,
        name,
        type,
        visibility: n.visibility === undefined ? !linkBridge : flag(n.visibility),
        left: num(n.left),
        top: num(n.top),
      };
    })
    .sort((a, b) => a.id - b.id);
}

/** A whole node as EVE-NG's node edit takes it: every field it has, so the edit is never one field. */
function wholeNode(raw: Record<string, unknown>): Record<string, unknown> {
  return {
    id: num(raw.id),
    name: text(raw.name),
    type: text(raw.type, 'qemu'),
    template: text(raw.template),
    image: text(raw.image),
    icon: text(raw.icon),
    cpu: num(raw.cpu, 1),
    ram: num(raw.ram),
    ethernet: num(raw.ethernet),
    console: text(raw.console, 'telnet'),
    delay: num(raw.delay),
    left: num(raw.left),
    top: num(raw.top),
    config: configEnabled(raw.config) ? '1' : '0',
  };
}

/** Runs the steps of one write in order; a failure says which steps had already changed the lab. */
async function inSteps(what: string, steps: [done: string, step: () => Promise<void>][]): Promise<void> {
  const done: string[] = [];
  for (const [label, step] of steps) {
    try {
      await step();
    } catch (e) {
      if (!done.length || !(e instanceof EmuError)) throw e;
      throw new EmuError(e.kind, `${e.message} (${what}: already done: ${done.join('; ')}.)`);
    }
    done.push(label);
  }
}

export class EveLabClient implements EmulatorClient {
  constructor(private readonly server: EveServer) {}

  private get http(): EveHttpSession {
    return this.server.http;
  }

  private async pro(): Promise<boolean> {
    return (await this.server.edition()) === 'Pro';
  }

  /** Liveness through `GET /api/auth` (cheap, and it extends the session); the version is asked once. */
  async status(): Promise<EmuStatus> {
    await this.http.call('GET', '/api/auth');
    const version = await this.server.version();
    return { version, edition: /pro/i.test(version) ? 'EVE-NG Pro' : 'EVE-NG Community', baseUrl: this.server.baseUrl };
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
    const listed = await this.withConfigFlags(path, itemsOf(nodesAnswer.data));
    const nodes = (await Promise.all(listed.map((raw) => this.readNode(path, raw)))).sort((a, b) => a.id - b.id);
    this.server.nextNodeIds.set(path, lowestFreeId(nodes.map((n) => n.id)));
    return {
      path,
      // The lab's name is its file name: that is what EVE-NG saves it under.
      name: baseName(path),
      description: unescapeHtml(text(lab.description)),
      locked: flag(lab.lock),
      nodes: nodes.map((n) => this.server.pod.seen(path, n)),
      networks: parseNetworks(itemsOf(networksAnswer.data), nodes),
    };
  }

  /**
   * UNetLab's node list (apiGetLabNodes) has no `config` flag, so a lab read would lose every
   * startup config and plans would never converge: one `GET …/configs` (apiGetLabConfigs) has
   * the flag of each node whose template has a config script. EVE-NG lists it; no extra call there.
   */
  private async withConfigFlags(path: string, raw: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
    if (raw.every((n) => 'config' in n)) return raw;
    const flags = record((await this.http.call('GET', labApiPath(path, '/configs'))).data);
    return raw.map((n) => ('config' in n ? n : { ...n, config: record(flags[String(num(n.id))]).config ?? '0' }));
  }

  private async readNode(path: string, raw: Record<string, unknown>): Promise<EmuNode> {
    const id = num(raw.id);
    const template = await this.server.catalogue.held(text(raw.template)).catch(() => undefined);
    const [interfaces, config] = await Promise.all([
      this.interfaces(path, id, namingOf(template)),
      configEnabled(raw.config) ? this.readConfig(path, id) : Promise.resolve(undefined),
    ]);
    return parseNode(raw, interfaces, config, this.server.apiHost);
  }

  /** A node's startup config; undefined when its template has no config script (HTTP 200, status fail, 60058). */
  private async readConfig(path: string, id: number): Promise<string | undefined> {
    const sub = labApiPath(path, `/configs/${id}`);
    try {
      // Pro keeps configs in config sets and reads one with a POST (evengsdk `get_node_config_by_id`).
      const answer = (await this.pro())
        ? await this.http.call('POST', sub, { cfsid: PRO_CONFIG_SET })
        : await this.http.call('GET', sub);
      return text(record(answer.data).data);
    } catch (e) {
      if (e instanceof EmuError && messageId(e.message) === NO_CONFIG_SCRIPT) return undefined;
      throw e;
    }
  }

  private async interfaces(path: string, nodeId: number, naming?: EthFormat): Promise<EmuInterface[]> {
    return parseInterfaces((await this.http.call('GET', labApiPath(path, `/nodes/${nodeId}/interfaces`))).data, naming);
  }

  private async rawNode(path: string, id: number): Promise<Record<string, unknown>> {
    return { ...record((await this.http.call('GET', labApiPath(path, `/nodes/${id}`))).data), id };
  }

  private async rawNodeIfAny(path: string, id: number): Promise<Record<string, unknown> | undefined> {
    try {
      return await this.rawNode(path, id);
    } catch (e) {
      if (e instanceof EmuError && e.kind === 'not_found') return undefined;
      throw e;
    }
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

  /** The lab is created under the name its path ends with: EVE-NG names the file after it. */
  async createLab(path: string, meta: { name: string; description: string }): Promise<void> {
    checkEvePath(path);
    await this.ensureFolder(folderOf(path));
    await this.http.call('POST', '/api/labs', {
      path: folderOf(path),
      name: baseName(path),
      version: '1',
      author: 'lab-agent',
      description: meta.description,
      body: '',
    });
    this.server.nextNodeIds.set(path, 1);
  }

  /** Only the description can change: a new name would save the lab to another file (a PUT {name} moves it). */
  async editLab(path: string, meta: { name?: string; description?: string }): Promise<void> {
    if (meta.description !== undefined)
      await this.http.call('PUT', labApiPath(path), { description: meta.description });
    if (meta.name !== undefined && meta.name !== baseName(path))
      throw new EmuError(
        'refused',
        `EVE-NG names a lab after its file, so the lab at ${path} is called "${baseName(path)}" and cannot be renamed to "${meta.name}"${meta.description !== undefined ? ' (its description was updated)' : ''}. Deploy the document to /lab-agent/${meta.name}.unl instead, or keep its name.`,
      );
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
        if (networkId !== undefined) await this.connect(destination, copy.id, copy.type, i.index, networkId);
      }
    }
  }

  async deleteLab(path: string): Promise<void> {
    await this.http.call('DELETE', labApiPath(path));
    this.server.pod.forgetLab(path);
    this.server.nextNodeIds.delete(path);
  }

  async addNode(path: string, spec: EmuNodeSpec): Promise<EmuNode> {
    const template = await this.server.catalogue.held(spec.template);
    if (!template) throw new EmuError('refused', `Template ${spec.template} does not exist on this EVE-NG server.`);
    const answer = await this.http.call('POST', labApiPath(path, '/nodes'), {
      type: template.type,
      template: spec.template,
      image: spec.image,
      name: spec.name,
      icon: spec.icon,
      cpu: spec.cpu,
      ram: spec.ram,
      ethernet: eveEthernet(template.type, spec.ethernet, spec.name),
      console: spec.console,
      // Node::edit / checkNodeConfig take "0", "1" or a config template name.
      config: spec.config !== undefined ? '1' : '0',
      delay: 0,
      left: spec.left,
      top: spec.top,
    });
    const answered = num(record(answer.data).id, NaN);
    // A failed add answers 201 success too (apiAddLabNode's `else if ($rc = 20046)`): read the node back.
    // Older builds (UNetLab) answer without the new id: the node is read at the id it most likely got,
    // and only when another node is there, found by name in the whole list (the newest of that name).
    let nodeId = Number.isFinite(answered) ? answered : (this.server.nextNodeIds.get(path) ?? NaN);
    let raw = Number.isFinite(nodeId) ? await this.rawNodeIfAny(path, nodeId) : undefined;
    if (!Number.isFinite(answered) && text(raw?.name) !== spec.name) {
      nodeId = await this.findNodeId(path, spec.name);
      raw = await this.rawNodeIfAny(path, nodeId);
    }
    if (!raw || text(raw.name) !== spec.name)
      throw new EmuError('refused', `EVE-NG did not add node ${spec.name} to ${path}: "${answer.message}".`);
    this.server.nextNodeIds.set(path, nodeId + 1);
    if (spec.config !== undefined) {
      const config = spec.config;
      const added = raw;
      await inSteps(`node ${spec.name}`, [
        [`node ${spec.name} added as id ${nodeId}`, () => Promise.resolve()],
        ['startup config written', () => this.writeConfig(path, nodeId, config)],
        // UNetLab's Lab::__construct sets config to 0 for a node without config data, so the flag
        // sent with the add is gone by now: set it again once the data exists.
        ['startup config enabled', () => this.enableConfig(path, nodeId)],
      ]);
      raw = { ...added, config: '1' };
    }
    return this.readNode(path, raw);
  }

  /** Sets a node's config flag with a whole-node edit, when the server does not have it set. */
  private async enableConfig(path: string, id: number): Promise<void> {
    const raw = await this.rawNode(path, id);
    if (configEnabled(raw.config)) return;
    await this.http.call('PUT', labApiPath(path, `/nodes/${id}`), { ...wholeNode(raw), config: '1' });
  }

  private async findNodeId(path: string, name: string): Promise<number> {
    const nodes = itemsOf((await this.http.call('GET', labApiPath(path, '/nodes'))).data);
    const ids = nodes.filter((n) => text(n.name) === name).map((n) => num(n.id));
    if (!ids.length) throw new EmuError('refused', `EVE-NG did not create node ${name} in ${path}.`);
    return Math.max(...ids);
  }

  private async writeConfig(path: string, id: number, config: string): Promise<void> {
    const body: Record<string, unknown> = { id, data: config };
    if (await this.pro()) body.cfsid = PRO_CONFIG_SET;
    await this.http.call('PUT', labApiPath(path, `/configs/${id}`), body);
  }

  /**
   * A whole node goes in every edit (name, type and template with the changes): EVE-NG refuses an
   * edit that changes none of its "modifying" fields and ignores an image without type and template.
   * The config text is written first, then the node, then the link bridges of dropped interfaces
   * go; a failure says which of these had already happened.
   */
  async editNode(path: string, id: number, changes: Partial<EmuNodeSpec>): Promise<void> {
    const raw = await this.rawNode(path, id);
    const type = text(raw.type, 'qemu');
    const name = text(raw.name);
    const body = wholeNode(raw);
    const { config, ethernet, ...fields } = changes;
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
    if (ethernet !== undefined) body.ethernet = eveEthernet(type, ethernet, name);
    if ('config' in changes) body.config = config !== undefined ? '1' : '0';
    const dropped =
      ethernet !== undefined
        ? (await this.interfaces(path, id)).filter((i) => i.index >= ethernet && i.networkId).map((i) => i.networkId)
        : [];
    // The config text goes first: UNetLab clears the flag of a node that has no config data yet.
    await inSteps(`node ${name}`, [
      ['startup config written', () => (config !== undefined ? this.writeConfig(path, id, config) : Promise.resolve())],
      [
        'node fields written',
        () => this.http.call('PUT', labApiPath(path, `/nodes/${id}`), body).then(() => undefined),
      ],
      ['link bridges of dropped interfaces deleted', () => this.deleteHiddenNetworks(path, dropped)],
    ]);
  }

  async deleteNode(path: string, id: number): Promise<void> {
    // apiDeleteLabNode stops that node id in every pod directory: never while another lab runs it.
    this.server.pod.claim(path, id, 'delete');
    const attached = (await this.interfaces(path, id)).map((i) => i.networkId).filter(Boolean);
    await this.http.call('DELETE', labApiPath(path, `/nodes/${id}`));
    this.server.pod.stopped(path, id);
    const next = this.server.nextNodeIds.get(path);
    if (next !== undefined) this.server.nextNodeIds.set(path, Math.min(next, id));
    await this.deleteHiddenNetworks(path, attached);
  }

  /** Deletes the hidden (node-to-node link) networks among `ids`: the link they carried lost an end. */
  private async deleteHiddenNetworks(path: string, ids: number[]): Promise<void> {
    if (!ids.length) return;
    const lab = await this.getLab(path);
    for (const id of new Set(ids)) {
      if (lab?.networks.some((n) => n.id === id && !n.visibility)) {
        try {
          await this.deleteNetwork(path, id);
        } catch (e) {
          if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
        }
      }
    }
  }

  /** A hidden network is created visible and hidden once both ends are on it (see connect). */
  async addNetwork(path: string, spec: EmuNetworkSpec): Promise<EmuNetwork> {
    const answer = await this.http.call('POST', labApiPath(path, '/networks'), {
      type: spec.type,
      name: spec.name,
      left: spec.left,
      top: spec.top,
      visibility: 1,
    });
    let id = num(record(answer.data).id, NaN);
    if (!Number.isFinite(id)) {
      const networks = itemsOf((await this.http.call('GET', labApiPath(path, '/networks'))).data);
      id = Math.max(...networks.filter((n) => text(n.name) === spec.name).map((n) => num(n.id)));
    }
    if (!spec.visibility) this.server.linksBeingMade.set(`${path}#${id}`, 0);
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
    this.server.linksBeingMade.delete(`${path}#${id}`);
  }

  async connectInterface(path: string, nodeId: number, index: number, networkId: number): Promise<void> {
    const answer = (await this.http.call('GET', labApiPath(path, `/nodes/${nodeId}/interfaces`))).data;
    const previous = parseInterfaces(answer, undefined).find((i) => i.index === index);
    if (!previous) throw new EmuError('refused', `Node ${nodeId} has no interface ${index}.`);
    await this.connect(path, nodeId, text(record(answer).sort, 'qemu'), index, networkId);
    if (previous.networkId && previous.networkId !== networkId)
      await this.deleteHiddenNetworks(path, [previous.networkId]);
  }

  /** Attaches one interface; the second end on a link bridge being made hides the bridge. */
  private async connect(path: string, nodeId: number, type: string, index: number, networkId: number): Promise<void> {
    await this.http.call('PUT', labApiPath(path, `/nodes/${nodeId}/interfaces`), {
      [String(eveInterfaceId(type, index))]: networkId ? String(networkId) : '',
    });
    const key = `${path}#${networkId}`;
    const ends = this.server.linksBeingMade.get(key);
    if (ends === undefined) return;
    if (ends + 1 < 2) {
      this.server.linksBeingMade.set(key, ends + 1);
      return;
    }
    this.server.linksBeingMade.delete(key);
    // UNetLab has no network visibility (a PUT of it alone answers 500 and leaves the lab file
    // locked): there the bridge stays as it is and is read back as the link (parseNetworks).
    if (await this.hasVisibility(path, networkId))
      await this.http.call('PUT', labApiPath(path, `/networks/${networkId}`), { visibility: 0 });
  }

  /** Whether the server keeps network visibility, learnt once from a network it returns. */
  private async hasVisibility(path: string, networkId: number): Promise<boolean> {
    if (this.server.networkVisibility === undefined) {
      const network = record((await this.http.call('GET', labApiPath(path, `/networks/${networkId}`))).data);
      this.server.networkVisibility = 'visibility' in network;
    }
    return this.server.networkVisibility;
  }

  async startNode(path: string, id: number): Promise<void> {
    this.server.pod.claim(path, id);
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/start`));
    this.server.pod.started(path, id);
  }

  async stopNode(path: string, id: number, stopmode: number): Promise<void> {
    // The pod's node id may be another lab's: stopping would stop that lab's node.
    if (!this.server.pod.mayStop(path, id)) return;
    // Pro takes the stop mode as a path segment; Community's router has no such route.
    const pro = await this.pro();
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/stop${pro ? `/stopmode=${stopmode}` : ''}`));
    this.server.pod.stopped(path, id);
  }

  async wipeNode(path: string, id: number): Promise<void> {
    // A wipe stops the node first, by its pod-wide console port: another lab's node would stop.
    if (!this.server.pod.mayStop(path, id)) return;
    await this.http.call('GET', labApiPath(path, `/nodes/${id}/wipe`));
  }

  async openConsole(path: string, id: number): Promise<Duplex> {
    const node = parseNode(await this.rawNode(path, id), [], undefined, this.server.apiHost);
    const running = this.server.pod.seen(path, node);
    if (running.status !== EmuNodeStatus.starting && running.status !== EmuNodeStatus.running)
      throw new EmuError('refused', `${node.name} is not running, so its console does not answer.`);
    return openTelnet(node.url, node.name);
  }

  labUrl(path: string): string {
    return `${this.server.baseUrl}/legacy/labs${path.split('/').map(encodeURIComponent).join('/')}/topology`;
  }
}

/** The lowest positive id not in `ids`: the one UNetLab gives the next node (`Lab::getFreeNodeId`). */
function lowestFreeId(ids: number[]): number {
  const taken = new Set(ids);
  let id = 1;
  while (taken.has(id)) id++;
  return id;
}
