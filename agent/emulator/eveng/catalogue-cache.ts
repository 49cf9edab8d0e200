/**
 * EVE-NG's catalogue, read once and kept for a minute: the template list needs
 * one detail request per template (dozens on a real server), and completion in
 * the editor asks for it often. Concurrent readers share one refresh. A
 * template whose detail fails (a broken template file answers 500, not 404)
 * is kept as unavailable with the reason, so one broken template does not take
 * the catalogue down; such a partial catalogue is kept for a few seconds only,
 * except for the adapter's own lookups inside an operation (held()).
 */
import { EmuError, type EmuIcon, type EmuNetworkType, type EmuTemplate } from '../backend';
import { parseIcons, parseNetworkTypes, parseTemplateDetail, parseTemplateList } from './catalogue';
import type { EveHttpSession } from './http-session';

const CATALOGUE_TTL_MS = 60_000;
const PARTIAL_CATALOGUE_TTL_MS = 5_000;
/** Template details fetched at once. */
const DETAIL_CONCURRENCY = 6;

interface Snapshot {
  templates: EmuTemplate[];
  /** Templates whose detail failed: while there are any, the catalogue is read again sooner. */
  unavailable: Set<string>;
}

export class EveCatalogue {
  private snapshot: Promise<Snapshot> | undefined;
  private snapshotAt = 0;
  private snapshotTtl = CATALOGUE_TTL_MS;

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

  /**
   * A template as the adapter's own writes and reads look it up (its type, its interface names):
   * from the catalogue held, however old, so an operation longer than the partial catalogue's
   * few seconds does not reload dozens of details in its middle. A template not held, or held
   * as unavailable, goes through template() as any other read.
   */
  async held(id: string): Promise<EmuTemplate | undefined> {
    const held = this.snapshot && (await this.snapshot.catch(() => undefined));
    const found = held?.templates.find((t) => t.id === id);
    return found && !held?.unavailable.has(id) ? found : this.template(id);
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
    if (!this.snapshot || this.clock() - this.snapshotAt > this.snapshotTtl) {
      this.snapshotAt = this.clock();
      this.snapshotTtl = CATALOGUE_TTL_MS;
      const loading = this.load();
      this.snapshot = loading;
      void loading.then(
        (s) => (this.snapshotTtl = s.unavailable.size ? PARTIAL_CATALOGUE_TTL_MS : CATALOGUE_TTL_MS),
        () => undefined,
      );
      // A failed load is not kept: the next reader tries again.
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = undefined;
      });
    }
    return this.snapshot;
  }

  /**
   * A listed template's detail: gone (404) shows it without options; any other failure (a broken
   * template file) gives the reason it is unavailable. An expired session still fails the load.
   */
  private async detail(id: string): Promise<{ data: unknown; unavailable?: string }> {
    try {
      return { data: (await this.http.call('GET', `/api/list/templates/${encodeURIComponent(id)}`)).data };
    } catch (e) {
      if (!(e instanceof EmuError) || e.kind === 'session_expired') throw e;
      if (e.kind === 'not_found') return { data: {} };
      return { data: {}, unavailable: `EVE-NG could not read this template: ${e.message}` };
    }
  }

  private async load(): Promise<Snapshot> {
    const listing = parseTemplateList((await this.http.call('GET', '/api/list/templates/')).data);
    const templates: EmuTemplate[] = new Array<EmuTemplate>(listing.length);
    let next = 0;
    const unavailableIds = new Set<string>();
    const worker = async () => {
      while (next < listing.length) {
        const i = next++;
        const entry = listing[i];
        const { data, unavailable } = await this.detail(entry.id);
        if (unavailable) unavailableIds.add(entry.id);
        templates[i] = parseTemplateDetail(entry.id, data, entry, unavailable);
      }
    };
    await Promise.all(Array.from({ length: Math.min(DETAIL_CONCURRENCY, listing.length) }, worker));
    return { templates, unavailable: unavailableIds };
  }
}
