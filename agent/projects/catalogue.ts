/**
 * The emulator's catalogue (templates, icons, network types) in the form the
 * project logic looks things up in, fetched once per request.
 */
import { compileEthFormat, type EthFormat } from '../../common/lab/eth-format';
import type { EmulatorClient, EmuNetworkType, EmuTemplate } from '../emulator/backend';

export interface Catalogue {
  templates: Map<string, EmuTemplate>;
  icons: Set<string>;
  networkTypes: Map<string, EmuNetworkType>;
  /** The compiled eth_format of a template (cached: authoring calls name thousands of interfaces). */
  ethFormat(template: EmuTemplate): EthFormat;
}

export async function loadCatalogue(client: EmulatorClient): Promise<Catalogue> {
  const [templates, icons, networkTypes] = await Promise.all([
    client.listTemplates(),
    client.listIcons(),
    client.listNetworkTypes(),
  ]);
  const formats = new Map<string, EthFormat>();
  return {
    templates: new Map(templates.map((t) => [t.id, t])),
    icons: new Set(icons.map((i) => i.id)),
    networkTypes: new Map(networkTypes.types.map((t) => [t.id, t])),
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
