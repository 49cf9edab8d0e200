/**
 * validate (decisions §5): the local checks every client can run, plus what
 * only the agent knows because it asks the emulator: templates, images,
 * icons, network types and the interface names each template produces.
 */
import type { ProjectDiagnostic } from '../../common/api/contract';
import { validateLab, type MessageExamples } from '../../common/lab/rules/validate';
import type { LabDocument, LabNode, NodeFieldName } from '../../common/lab/model/types';
import { closestNames } from '../../common/closest-names';
import { DEFAULT_NETWORK_TYPE, listInProse } from '../../common/lab/rules/format';
import type { EmuTemplate } from '../emulator/backend';
import type { Catalogue } from './catalogue';
import { labPathForName } from './lab-path';

type Path = (string | number)[];

/** Where a node's field is written: on the node, or under defaults. */
function fieldPath(node: LabNode, field: NodeFieldName): Path {
  return node.fields[field] ? ['nodes', node.name, field] : ['defaults', field];
}

function sample(names: string[]): string {
  return names.length > 4 ? `${names.slice(0, 4).join(', ')}, …` : names.join(', ');
}

/** The examples the local checks' messages give: this emulator's first provisioned template and its first interface. */
function examplesOf(catalogue: Catalogue): MessageExamples | undefined {
  const templates = [...catalogue.templates.values()];
  const chosen = templates.find((t) => t.provisioned) ?? templates[0];
  return chosen && { template: chosen.id, interfaceName: catalogue.ethFormat(chosen).nameAt(0) };
}

/** " Did you mean frr?" with the catalogue's names closest to one written wrongly (a typo), or nothing. */
function didYouMean(wanted: string, names: Iterable<string>): string {
  const closest = closestNames(wanted, names);
  return closest.length > 0 ? ` Did you mean ${listInProse(closest, 'or')}?` : '';
}

/** The names with the closest to `wanted` first, so that a list cut short never cuts the one meant. */
function closestFirst(wanted: string, names: string[]): string[] {
  const closest = closestNames(wanted, names, names.length);
  return [...closest, ...names.filter((name) => !closest.includes(name))];
}

type Add = (path: Path, severity: 'error' | 'warning', code: string, message: string) => void;

export function validateDocument(
  doc: LabDocument,
  files: Record<string, string>,
  catalogue: Catalogue,
): ProjectDiagnostic[] {
  const local: ProjectDiagnostic[] = validateLab(doc, examplesOf(catalogue)).map((d) => ({
    ...(d.path ? { path: d.path } : {}),
    message: d.message,
    severity: d.severity,
    code: d.code,
  }));
  const agent: ProjectDiagnostic[] = [];
  const add: Add = (path, severity, code, message) => agent.push({ path, severity, code, message });

  checkLabName(doc, add);
  const templates = checkNodes(doc, files, catalogue, add);
  checkNetworks(doc, catalogue, add);
  checkEndpoints(doc, templates, catalogue, add);

  // A check the local rules already made at the same place is not repeated.
  const localPaths = new Set(local.map((d) => JSON.stringify(d.path ?? [])));
  return [...local, ...agent.filter((d) => !localPaths.has(JSON.stringify(d.path)))];
}

/** The lab name becomes the emulator's lab path, which allows fewer characters than YAML. */
function checkLabName(doc: LabDocument, add: Add): void {
  if (doc.name && !labPathForName(doc.name.value)) {
    add(
      ['name'],
      'error',
      'invalid-lab-name',
      `The lab name "${doc.name.value}" cannot be an emulator lab path; use letters, digits, spaces, "_", "+" and "-".`,
    );
  }
}

/** Each node's fields against its template; returns the template of every node that has a known one (the endpoint checks need them). */
function checkNodes(
  doc: LabDocument,
  files: Record<string, string>,
  catalogue: Catalogue,
  add: Add,
): Map<string, EmuTemplate> {
  const templates = new Map<string, EmuTemplate>();
  for (const node of doc.nodes) {
    const r = node.resolved;
    if (!r.template) continue;
    const template = catalogue.templates.get(r.template);
    if (!template) {
      add(
        fieldPath(node, 'template'),
        'error',
        'unknown-template',
        `Template "${r.template}" does not exist on the emulator.${didYouMean(r.template, catalogue.templates.keys())} Known templates: ${listInProse([...catalogue.templates.keys()])}.`,
      );
      continue;
    }
    templates.set(node.name, template);
    checkImage(node, template, add);
    if (r.icon !== undefined && !catalogue.icons.has(r.icon)) {
      add(
        fieldPath(node, 'icon'),
        'error',
        'unknown-icon',
        `Icon "${r.icon}" does not exist on the emulator.${didYouMean(r.icon, catalogue.icons)} Icons: ${sample(closestFirst(r.icon, [...catalogue.icons]))}.`,
      );
    }
    checkConsole(node, template, add);
    checkConfig(node, template, files, add);
  }
  return templates;
}

/** An unprovisioned template has no image to check against; otherwise the named image must exist and be uploaded. */
function checkImage(node: LabNode, template: EmuTemplate, add: Add): void {
  const wanted = node.resolved.image;
  if (!template.provisioned) {
    add(
      fieldPath(node, 'template'),
      'warning',
      'template-not-provisioned',
      `Template ${template.id} is not provisioned on the emulator (no images are uploaded), so ${node.name} cannot be deployed or started.`,
    );
    return;
  }
  if (wanted === undefined) return;
  const image = template.images.find((i) => i.id === wanted);
  if (!template.images.length) {
    add(
      fieldPath(node, 'image'),
      'error',
      'unknown-image',
      `Template ${template.id} takes no image; remove "image" from ${node.name}.`,
    );
  } else if (!image) {
    add(
      fieldPath(node, 'image'),
      'error',
      'unknown-image',
      `Image "${wanted}" does not exist for template ${template.id}.${didYouMean(
        wanted,
        template.images.map((i) => i.id),
      )} Images: ${listInProse(template.images.map((i) => i.id))}.`,
    );
  } else if (!image.available) {
    add(
      fieldPath(node, 'image'),
      'warning',
      'image-unavailable',
      `Image ${image.id} is listed but not available on the emulator, so ${node.name} cannot be deployed. Available: ${listInProse(template.images.filter((i) => i.available).map((i) => i.id)) || 'none'}.`,
    );
  }
}

/** The template's console attribute lists the console types it offers. */
function checkConsole(node: LabNode, template: EmuTemplate, add: Add): void {
  const wanted = node.resolved.console;
  if (wanted === undefined) return;
  const allowed = template.attributes.find((a) => a.name === 'console')?.values;
  if (allowed && !allowed.includes(wanted)) {
    add(
      fieldPath(node, 'console'),
      'error',
      'unsupported-console',
      `Template ${template.id} offers ${listInProse(allowed)} consoles, not ${wanted}.`,
    );
  }
}

/** A startup config must be among the files sent beside the lab, and the template must take one. */
function checkConfig(node: LabNode, template: EmuTemplate, files: Record<string, string>, add: Add): void {
  const config = node.resolved.config;
  if (!config) return;
  if (files[config] === undefined) {
    add(
      fieldPath(node, 'config'),
      'error',
      'config-not-found',
      `The startup config "${config}" of ${node.name} was not found beside the lab file (paths are relative to it).`,
    );
  } else if (!template.configSupported) {
    add(
      fieldPath(node, 'config'),
      'warning',
      'config-unsupported',
      `Template ${template.id} does not take startup configs; "config" of ${node.name} is ignored.`,
    );
  }
}

/** Each network's type must exist on the emulator and be one it supports. */
function checkNetworks(doc: LabDocument, catalogue: Catalogue, add: Add): void {
  const supported = [...catalogue.networkTypes.values()].filter((t) => t.supported).map((t) => t.id);
  for (const network of doc.networks) {
    const id = network.type?.value ?? DEFAULT_NETWORK_TYPE;
    const type = catalogue.networkTypes.get(id);
    const path: Path = network.type ? ['networks', network.name, 'type'] : ['networks', network.name];
    if (!type)
      add(
        path,
        'error',
        'unknown-network-type',
        `Network type "${id}" does not exist on the emulator. Types: ${sample(supported)}.`,
      );
    else if (!type.supported)
      add(
        path,
        'error',
        'network-type-unsupported',
        `Network type ${id} (${type.label}) is not supported by this emulator. Use one of ${sample(supported)}.`,
      );
  }
}

/** Every link endpoint must name an interface its node's template produces, and each interface takes one link. */
function checkEndpoints(doc: LabDocument, templates: Map<string, EmuTemplate>, catalogue: Catalogue, add: Add): void {
  const nodeByName = new Map(doc.nodes.map((n) => [n.name, n]));
  const used = new Map<string, Path>();
  doc.links.forEach((link, linkIndex) => {
    link.endpoints.forEach((end, endIndex) => {
      if (!end.node || !end.interface) return;
      const path: Path = ['links', linkIndex, 'endpoints', endIndex];
      const node = nodeByName.get(end.node);
      const template = templates.get(end.node);
      if (!node || !template) return;
      const format = catalogue.ethFormat(template);
      const ethernet = node.resolved.ethernet ?? template.defaults.ethernet;
      const index = format.indexOf(end.interface, ethernet);
      if (index === undefined) {
        // Producible beyond the interface count? Then the count is the problem, not the name.
        const beyond = format.indexOf(end.interface, 1024);
        if (beyond !== undefined) {
          add(
            path,
            'error',
            'interface-out-of-range',
            `${end.interface} is interface ${beyond + 1} of ${end.node}, which has ${ethernet} (ethernet: ${ethernet}). Raise ethernet to at least ${beyond + 1}.`,
          );
        } else {
          add(
            path,
            'error',
            'unknown-interface',
            `${end.node} (${template.id}) has no interface "${end.interface}". Its interfaces are ${sample(closestFirst(end.interface, format.names(ethernet)))}.`,
          );
        }
        return;
      }
      const key = `${end.node}#${index}`;
      if (used.has(key))
        add(
          path,
          'error',
          'interface-in-use',
          `${end.node}:${end.interface} is already used by another link; an interface takes one link.`,
        );
      else used.set(key, path);
    });
  });
}

export function hasErrors(diagnostics: ProjectDiagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
