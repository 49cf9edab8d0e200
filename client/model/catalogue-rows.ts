/** Rows of the Templates and Network Types views, from the agent's catalogue. */
import type { NetworkTypesData, TemplateDetail, TemplatesData } from '../../common/api/contract';
import type { TreeRow } from './tree-row';

/** What a template row carries: the id to expand it with (getTemplate). */
export interface TemplateRowData {
  templateId?: string;
  /** The agent whose template it is (set when several agents are shown). */
  agent?: string;
}

const byText = (a: string, b: string): number => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true });

export function templateRows(data: TemplatesData, provisionedOnly: boolean): TreeRow<TemplateRowData>[] {
  const templates = (data.templates ?? []).filter(
    (t): t is typeof t & { id: string } =>
      typeof t.id === 'string' && t.id !== '' && (!provisionedOnly || t.provisioned === true),
  );
  return templates
    .sort((a, b) => byText(a.id, b.id))
    .map((t) => {
      const provisioned = t.provisioned === true;
      const tooltipLines = [
        t.description ? `${t.description} (${t.id})` : t.id,
        t.type ? `Type: ${t.type}` : undefined,
        provisioned
          ? 'Provisioned: images are installed on the emulator.'
          : 'Not provisioned: no image installed, nodes cannot start.',
        t.configSupported === true
          ? 'Startup configs: supported'
          : t.configSupported === false
            ? 'Startup configs: not supported'
            : undefined,
      ];
      return {
        id: `template:${t.id}`,
        label: t.id,
        description: [t.description, provisioned ? undefined : 'not provisioned'].filter(Boolean).join(' · '),
        tooltip: tooltipLines.filter(Boolean).join('\n'),
        icon: provisioned ? 'package' : 'circle-slash',
        iconColor: provisioned ? undefined : 'disabledForeground',
        contextValue: provisioned ? 'template provisioned' : 'template',
        collapsible: 'collapsed',
        data: { templateId: t.id },
      };
    });
}

/** The children of an expanded template: its images (with availability) and its attributes. */
export function templateDetailRows(detail: TemplateDetail): TreeRow<TemplateRowData>[] {
  const id = detail.id ?? '?';
  const images = (detail.images ?? []).filter(
    (i): i is { id: string; available?: boolean } => typeof i.id === 'string',
  );
  const attributes = detail.attributes ?? [];
  const imageRows: TreeRow<TemplateRowData>[] = images.map((image) => {
    const available = image.available === true;
    const isDefault = detail.default !== undefined && detail.default === image.id;
    return {
      id: `template:${id}:image:${image.id}`,
      label: image.id,
      description: [available ? 'available' : 'not available', isDefault ? 'default' : undefined]
        .filter(Boolean)
        .join(' · '),
      tooltip: available ? `Image ${image.id} is installed.` : `Image ${image.id} is not installed on the emulator.`,
      icon: available ? 'check' : 'error',
      iconColor: available ? 'testing.iconPassed' : 'testing.iconFailed',
      contextValue: 'templateImage',
      collapsible: 'none',
      data: {},
    };
  });
  const attributeRows: TreeRow<TemplateRowData>[] = attributes.map((a, index) => {
    const name = a.name ?? `attribute ${index + 1}`;
    const values = a.values && a.values.length > 0 ? `: ${a.values.join(' | ')}` : '';
    return {
      id: `template:${id}:attribute:${name}`,
      label: a.label && a.label !== name ? `${a.label} (${name})` : name,
      description: [a.kind, a.group].filter(Boolean).join(' · '),
      tooltip: `${name}${a.kind ? ` [${a.kind}]` : ''}${values}`,
      icon: 'symbol-property',
      contextValue: 'templateAttribute',
      collapsible: 'none',
      data: {},
    };
  });
  const group = (
    key: string,
    label: string,
    icon: string,
    children: TreeRow<TemplateRowData>[],
  ): TreeRow<TemplateRowData> => ({
    id: `template:${id}:${key}`,
    label,
    description: children.length === 0 ? 'none' : String(children.length),
    icon,
    collapsible: children.length === 0 ? 'none' : 'expanded',
    children,
    data: {},
  });
  return [
    group('images', 'Images', 'file-binary', imageRows),
    group('attributes', 'Attributes', 'list-tree', attributeRows),
  ];
}

export function networkTypeRows(data: NetworkTypesData): TreeRow[] {
  return (data.types ?? [])
    .filter((t): t is typeof t & { id: string } => typeof t.id === 'string' && t.id !== '')
    .map((t) => {
      const supported = t.supported !== false;
      return {
        id: `networkType:${t.id}`,
        label: t.label && t.label !== t.id ? t.label : t.id,
        description: [t.label && t.label !== t.id ? t.id : undefined, supported ? undefined : 'not supported']
          .filter(Boolean)
          .join(' · '),
        tooltip: `Network type ${t.id}${supported ? '' : ' (not supported by this emulator)'}${t.icon ? `\nIcon: ${t.icon}` : ''}`,
        icon: supported ? 'type-hierarchy-sub' : 'circle-slash',
        iconColor: supported ? undefined : 'disabledForeground',
        contextValue: supported ? 'networkType supported' : 'networkType',
        collapsible: 'none',
        data: undefined,
      };
    });
}

/** A line to show above the Network Types list, when the emulator only does NAT. */
export function networkTypesMessage(data: NetworkTypesData): string | undefined {
  return data.natOnly === true ? 'This emulator supports NAT networks only.' : undefined;
}
