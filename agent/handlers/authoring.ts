/**
 * Authoring help (decisions §4): the interfaces a node has, named by its
 * template's eth_format, with which ones links already use. These back
 * interactive completion, so they work from the session's cached parse and
 * name only the nodes asked for.
 */
import type { Iface, InterfacesPreviewData, LinkCompletionsData } from '../../common/api/contract';
import { compileEthFormat, type EthFormat } from '../../common/lab/rules/eth-format';
import type { LabDocument } from '../../common/lab/model/types';
import { invalidRequest } from '../http/api-error';
import { optionalBoolean, optionalObject, optionalString, rejectLocalPaths } from '../http/fields';
import { loadCatalogue, type Catalogue } from '../domain/catalogue';
import type { SessionHandler, SessionRequest } from './handler';

interface Subject {
  node: string;
  format: EthFormat;
  count: number;
}

/** Interface name → what it is linked to, per node, from the document's links. */
function linkUse(doc: LabDocument | undefined): Map<string, Map<string, string>> {
  const use = new Map<string, Map<string, string>>();
  for (const link of doc?.links ?? []) {
    if (link.endpoints.length !== 2) continue;
    link.endpoints.forEach((end, i) => {
      if (!end.node || !end.interface) return;
      const other = link.endpoints[1 - i];
      const peers = use.get(end.node) ?? new Map<string, string>();
      if (!peers.has(end.interface)) peers.set(end.interface, other.text);
      use.set(end.node, peers);
    });
  }
  return use;
}

function ethernetOverride(attributes: Record<string, unknown> | undefined): number | undefined {
  const value = attributes?.ethernet;
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1024) {
    throw invalidRequest('"attributes.ethernet" must be a whole number of interfaces between 0 and 1024.');
  }
  return n;
}

async function interfacesOf(req: SessionRequest): Promise<{ node: string; items: Iface[] }> {
  const { body, session } = req;
  rejectLocalPaths(body);
  const yaml = optionalString(body, 'yaml');
  const node = optionalString(body, 'node') ?? '';
  const templateId = optionalString(body, 'template');
  const attributes = optionalObject(body, 'attributes');
  const ethFormat = optionalString(body, 'eth_format');
  const excludeUsed = optionalBoolean(body, 'excludeUsed') ?? false;
  const ethernet = ethernetOverride(attributes);

  const doc = yaml !== undefined ? session.documents.parse(yaml) : undefined;
  const catalogue: Catalogue = await loadCatalogue(session.emulator);

  const docNodes = new Map(doc?.nodes.map((n) => [n.name, n]));
  const subjectFor = (name: string): Subject | undefined => {
    const inDoc = docNodes.get(name);
    const template = catalogue.templates.get(templateId || inDoc?.resolved.template || '');
    const count = ethernet ?? inDoc?.resolved.ethernet ?? template?.defaults.ethernet;
    if (count === undefined) return undefined;
    if (ethFormat !== undefined) return { node: name, format: compileEthFormat(ethFormat, template?.ethName), count };
    return template && { node: name, format: catalogue.ethFormat(template), count };
  };

  const subjects: Subject[] = [];
  if (node) {
    const one = subjectFor(node);
    if (one) subjects.push(one);
  } else if (doc && doc.nodes.length) {
    for (const n of doc.nodes) {
      const s = subjectFor(n.name);
      if (s) subjects.push(s);
    }
  } else {
    const s = subjectFor('');
    if (s) subjects.push(s);
  }

  const use = linkUse(doc);
  const items: Iface[] = [];
  for (const subject of subjects) {
    const peers = use.get(subject.node);
    subject.format.names(subject.count).forEach((name, index) => {
      const peer = peers?.get(name);
      if (excludeUsed && peer !== undefined) return;
      items.push(
        peer !== undefined
          ? { node: subject.node, name, index, used: true, peer }
          : { node: subject.node, name, index, used: false },
      );
    });
  }
  return { node, items };
}

export const completeLinkInterfaces: SessionHandler = async (req): Promise<LinkCompletionsData> => interfacesOf(req);

export const previewInterfaces: SessionHandler = async (req): Promise<InterfacesPreviewData> => {
  const { items } = await interfacesOf({ ...req, body: { ...req.body, excludeUsed: false } });
  return { items };
};
