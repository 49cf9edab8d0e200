/**
 * The emulator's catalogue (templates, icons, network types) in the form the
 * project logic looks things up in, fetched once per request.
 */
import { compileEthFormat, type EthFormat } from '../../common/lab/rules/eth-format';
import type { EmulatorClient, EmuIcon, EmuNetworkType, EmuTemplate } from '../emulator/backend';

export interface Catalogue {
  templates: Map<string, EmuTemplate>;
  icons: Set<string>;
  networkTypes: Map<string, EmuNetworkType>;
  /** The compiled eth_format of a template (cached: authoring calls name thousands of interfaces). */
  ethFormat(template: EmuTemplate): EthFormat;
}

/** The catalogue as plain data, as the emulator lists it (it can be sent to a worker thread). */
export interface CatalogueData {
  templates: EmuTemplate[];
  icons: EmuIcon[];
  networkTypes: EmuNetworkType[];
}

export async function loadCatalogueData(client: EmulatorClient): Promise<CatalogueData> {
  const [templates, icons, networkTypes] = await Promise.all([
    client.listTemplates(),
    client.listIcons(),
    client.listNetworkTypes(),
  ]);
  return { templates, icons, networkTypes: networkTypes.types };
}

export async function loadCatalogue(client: EmulatorClient): Promise<Catalogue> {
  return catalogueOf(await loadCatalogueData(client));
}

export function catalogueOf({ templates, icons, networkTypes }: CatalogueData): Catalogue {
  const formats = new Map<string, EthFormat>();
  return {
    templates: new Map(templates.map((t) => [t.id, t])),
    icons: new Set(icons.map((i) => i.id)),
    networkTypes: new Map(networkTypes.map((t) => [t.id, t])),
    ethFormat(template) {
      let format = formats.get(template.id);
      if (!format) {
        format = compileEthFormat(template.ethFormat, template.ethName);
        formats.set(template.id, format);
      }
      return format;
    },
  };
}
