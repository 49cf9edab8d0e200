/**
 * What the agent offers to build labs from: templates, their images, details
 * and interfaces, icons, network types. It changes rarely, so each answer is cached
 * for the life of the session; RefreshCatalogue and a session change drop it.
 * Failed calls are not cached, so the next request tries again.
 */
import type { Icon, Iface, NetworkType, Template, TemplateDetail, TemplateImagesData } from '../common/api/contract';
import type { AgentClient } from '../common/api/client';
import type { RemoteAgent } from './remote-agent';

/** Catalogue calls serve completion and hover, which must not hang on a slow agent. */
const CATALOGUE_TIMEOUT_MS = 5000;
/** Interfaces are asked for while typing a link: a slow agent must not freeze it for long. */
const INTERFACES_TIMEOUT_MS = 2000;

export class Catalogue {
  private entries = new Map<string, Promise<unknown>>();

  constructor(private readonly agent: RemoteAgent) {
    agent.onDidChange(() => this.clear());
  }

  clear(): void {
    // A new map, so answers still in flight for the old session land in the discarded one.
    this.entries = new Map();
  }

  async templates(): Promise<Template[] | undefined> {
    const data = await this.cached('templates', (client) =>
      client.listTemplates({}, { timeoutMs: CATALOGUE_TIMEOUT_MS }),
    );
    return data?.templates;
  }

  templateImages(template: string): Promise<TemplateImagesData | undefined> {
    return this.cached(`images:${template}`, (client) =>
      client.listTemplateImages({ id: template }, { timeoutMs: CATALOGUE_TIMEOUT_MS }),
    );
  }

  template(template: string): Promise<TemplateDetail | undefined> {
    return this.cached(`template:${template}`, (client) =>
      client.getTemplate({ id: template }, { timeoutMs: CATALOGUE_TIMEOUT_MS }),
    );
  }

  /**
   * The interfaces of a node of `template` with `ethernet` of them (undefined:
   * the template's default), in order, used or not. That depends on nothing
   * else, so one answer serves every such node; which ones links use is for
   * the caller to find in the document, which changes as links are written.
   */
  async interfaces(template: string, ethernet: number | undefined): Promise<Iface[] | undefined> {
    const request = ethernet === undefined ? { template } : { template, attributes: { ethernet } };
    const data = await this.cached(`interfaces:${ethernet ?? 'default'}:${template}`, (client) =>
      client.completeLinkInterfaces(request, { timeoutMs: INTERFACES_TIMEOUT_MS }),
    );
    return data?.items;
  }

  async icons(): Promise<Icon[] | undefined> {
    const data = await this.cached('icons', (client) => client.listIcons({ timeoutMs: CATALOGUE_TIMEOUT_MS }));
    return data?.icons;
  }

  async networkTypes(): Promise<NetworkType[] | undefined> {
    const data = await this.cached('network-types', (client) =>
      client.listNetworkTypes({ timeoutMs: CATALOGUE_TIMEOUT_MS }),
    );
    return data?.types;
  }

  /** The cached answer, or one call shared by every concurrent asker; undefined without a session or on failure. */
  private cached<T>(key: string, fetch: (client: AgentClient) => Promise<T>): Promise<T | undefined> {
    const entries = this.entries;
    const existing = entries.get(key) as Promise<T | undefined> | undefined;
    if (existing) return existing;
    if (!this.agent.active) return Promise.resolve(undefined);
    const pending = this.agent.call(fetch).then((outcome) => {
      if (outcome?.ok) return outcome.value;
      if (entries.get(key) === pending) entries.delete(key);
      return undefined;
    });
    entries.set(key, pending);
    return pending;
  }
}

/** The catalogue of a document's agent (agent-pool.ts). */
export type CatalogueOf = (uri: string) => Catalogue;
