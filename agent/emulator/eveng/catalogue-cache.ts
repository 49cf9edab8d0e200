/**
 * EVE-NG's catalogue, read once and kept for a minute: the template list needs
 * one detail request per template (dozens on a real server), and completion in
 * the editor asks for it often. Concurrent readers share one refresh.
 */
import { EmuError, type EmuIcon, type EmuNetworkType, type EmuTemplate } from '../backend';
import { parseIcons, parseNetworkTypes, parseTemplateDetail, parseTemplateList } from './catalogue';
import type { EveHttpSession } from './http-session';

const CATALOGUE_TTL_MS = 60_000;
/** Template details fetched at once. */
const DETAIL_CONCURRENCY = 6;

interface Snapshot {
  templates: EmuTemplate[];
}

export class EveCatalogue {
  private snapshot: Promise<Snapshot> | undefined;
  private snapshotAt = 0;

  constructor(
    private readonly http: EveHttpSession,
    private readonly clock: () => number,
  ) {}

  async templates(): Promise<EmuTemplate[]> {
    return (await this.current()).templates;
  }

  async template(id: string): Promise<EmuTemplate | undefined> {
    return (await this.current()).templates.find((t) => t.id === id);
  }

  async networkTypes(): Promise<{ types: EmuNetworkType[]; natOnly: boolean }> {
    const answer = await this.http.call('GET', '/api/list/networks');
    return { types: parseNetworkTypes(answer.data), natOnly: false };
  }

  async icons(): Promise<EmuIcon[]> {
    try {
      return parseIcons((await this.http.call('GET', '/api/icons')).data);
    } catch (e) {
      if (!(e instanceof EmuError && e.kind === 'not_found')) throw e;
      // Builds without /api/icons: the icons a template offers are the server's icon set.
      const first = (await this.templates()).find((t) => t.attributes.some((a) => a.name === 'icon'));
      return (first?.attributes.find((a) => a.name === 'icon')?.values ?? []).map((id) => ({
        id,
        label: id.replace(/\.(png|svg)$/, ''),
      }));
    }
  }

  private current(): Promise<Snapshot> {
    if (!this.snapshot || this.clock() - this.snapshotAt > CATALOGUE_TTL_MS) {
      this.snapshotAt = this.clock();
      const loading = this.load();
      this.snapshot = loading;
      // A failed load is not kept: the next reader tries again.
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = undefined;
      });
    }
    return this.snapshot;
  }

  /** A listed template whose detail is gone (a broken template file) still shows, without options. */
  private async detail(id: string): Promise<unknown> {
    try {
      return (await this.http.call('GET', `/api/list/templates/${encodeURIComponent(id)}`)).data;
    } catch (e) {
      if (e instanceof EmuError && e.kind === 'not_found') return {};
      throw e;
    }
  }

  private async load(): Promise<Snapshot> {
    const listing = parseTemplateList((await this.http.call('GET', '/api/list/templates/')).data);
    const templates: EmuTemplate[] = new Array<EmuTemplate>(listing.length);
    let next = 0;
    const worker = async () => {
      while (next < listing.length) {
        const i = next++;
        const entry = listing[i];
        templates[i] = parseTemplateDetail(entry.id, await this.detail(entry.id), entry);
      }
    };
    await Promise.all(Array.from({ length: Math.min(DETAIL_CONCURRENCY, listing.length) }, worker));
    return { templates };
  }
}
