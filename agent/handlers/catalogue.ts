/** Templates and metadata: templates, images, attributes, network types, icons. */
import type {
  IconsData,
  NetworkTypesData,
  Template,
  TemplateAttributesData,
  TemplateDetail,
  TemplateImagesData,
  TemplatesData,
} from '../../common/api/contract';
import type { EmuTemplate } from '../emulator/backend';
import { ApiError } from '../http/api-error';
import type { SessionHandler, SessionRequest } from './handler';

function summary(t: EmuTemplate): Template {
  return {
    id: t.id,
    description: t.description,
    type: t.type,
    provisioned: t.provisioned,
    configSupported: t.configSupported,
  };
}

async function templateOf({ session, params }: SessionRequest): Promise<EmuTemplate> {
  const template = await session.emulator.getTemplate(params.id);
  if (!template)
    throw new ApiError(
      'not_found',
      `Template "${params.id}" does not exist on the emulator; list templates to see the ones it has.`,
    );
  return template;
}

export const listTemplates: SessionHandler = async ({ session, query }): Promise<TemplatesData> => {
  const onlyProvisioned = query.get('provisioned') === 'true';
  const templates = await session.emulator.listTemplates();
  return { templates: templates.filter((t) => !onlyProvisioned || t.provisioned).map(summary) };
};

/** eth_format / eth_name are extra properties: clients may name interfaces offline with them. */
export const getTemplate: SessionHandler = async (
  req,
): Promise<TemplateDetail & { eth_format: string; eth_name?: string[]; defaults: object }> => {
  const t = await templateOf(req);
  return {
    ...summary(t),
    images: t.images.map((i) => ({ ...i })),
    default: t.defaultImage,
    attributes: t.attributes.map((a) => ({ ...a, values: [...(a.values ?? [])] })),
    eth_format: t.ethFormat,
    ...(t.ethName ? { eth_name: [...t.ethName] } : {}),
    defaults: { ...t.defaults },
  };
};

export const listTemplateImages: SessionHandler = async (req): Promise<TemplateImagesData> => {
  const t = await templateOf(req);
  return {
    template: t.id,
    type: t.type,
    provisioned: t.provisioned,
    default: t.defaultImage,
    images: t.images.map((i) => ({ ...i })),
  };
};

export const listTemplateAttributes: SessionHandler = async (req): Promise<TemplateAttributesData> => {
  const t = await templateOf(req);
  return {
    template: t.id,
    type: t.type,
    attributes: t.attributes.map((a) => ({ ...a, values: [...(a.values ?? [])] })),
  };
};

export const listNetworkTypes: SessionHandler = async ({ session }): Promise<NetworkTypesData> => {
  const { types, natOnly } = await session.emulator.listNetworkTypes();
  return { types, natOnly };
};

export const listIcons: SessionHandler = async ({ session }): Promise<IconsData> => ({
  icons: await session.emulator.listIcons(),
});
